/**
 * Nothing served from `/uploads/` runs script on the app's origin (docs/security.md, "Serving"): the
 * Media Library stores what editors and authors upload (HTML, SVG, scripts, PDFs, files without an
 * extension whose type nobody knows), and the admin panel shares the origin. A page there would run
 * with the admin's session, and the admin's own CSP (`script-src 'self'`) lets it load a script
 * uploaded beside it. So every file answer there is `nosniff`, and every one that is not a raster
 * image a browser shows as a picture is also sandboxed (no script, an opaque origin) and a download.
 * `<img>`, `<video>` and `<audio>` elements still show such files: the headers only change what a
 * browser does when the file is opened as a page.
 */

/** Shown inline: the formats the API stores, and BMP. A browser renders none of them as a document. */
const INLINE_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

/** Whether a file of this Content-Type (parameters allowed) may be shown inline. */
export const showsInline = (contentType: string | undefined): boolean =>
  INLINE_IMAGE_TYPES.has((contentType ?? '').split(';')[0].trim().toLowerCase());

/** On every file answer under `/uploads/`: the browser takes the Content-Type as sent. */
export const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

/** On every other one: no script, no origin, no resource loaded, and saved rather than shown. */
export const INERT_HEADERS = {
  ...NOSNIFF,
  'Content-Security-Policy': "sandbox; default-src 'none'",
  'Content-Disposition': 'attachment',
} as const;

/** The headers a file answer of this Content-Type gets. */
export const fileAnswerHeaders = (contentType: string | undefined): Record<string, string> => (showsInline(contentType) ? { ...NOSNIFF } : { ...INERT_HEADERS });
