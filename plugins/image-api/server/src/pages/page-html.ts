/**
 * The HTML pages served outside the API: the viewer (with the tags that unfurl links in chat apps),
 * the delete link's confirmation and result, and "not found". Self-contained: no script, no external
 * style, nothing from elsewhere but the image itself.
 */
import escapeHtml from 'escape-html';
import { formatSize } from '../../../shared/format-size';
import type { ViewerImage } from '../storage/image-records';

const absolute = (base: string, url: string) => (/^https?:\/\//i.test(url) ? url : `${base}${url}`);

export function page(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head}<style>
body{margin:0;font-family:system-ui,sans-serif;background:#111;color:#eee;text-align:center}
main{padding:24px}img{max-width:100%;max-height:80vh;box-shadow:0 4px 24px #000}
h1{font-size:1.4em;font-weight:600;margin:0 0 16px}p{color:#aaa}
button{font:inherit;padding:8px 20px;border:0;border-radius:4px;background:#c33;color:#fff;cursor:pointer}
</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

export const unavailablePage = (message: string) =>
  page('Try again later', `<h1>Try again later</h1><p>${escapeHtml(message)}.</p>`);

export const notFoundPage = () => page('Image not found', '<h1>Image not found</h1><p>There is no image at this address.</p>');

export function viewerPage(image: ViewerImage, base: string, pageUrl: string): string {
  const file = image.file!;
  const title = image.title || image.originalFilename || image.idEncoded;
  const imageUrl = absolute(base, file.url);
  // Link previews show the medium (500 wide); its own dimensions go with it.
  const preview = image.medium ?? file;
  const previewUrl = absolute(base, preview.url);
  const views = `${image.views} ${image.views === 1 ? 'view' : 'views'}`;
  const meta = [
    ['property', 'og:type', 'website'],
    ['property', 'og:title', title],
    ['property', 'og:url', pageUrl],
    ['property', 'og:image', previewUrl],
    ['property', 'og:image:width', String(preview.width)],
    ['property', 'og:image:height', String(preview.height)],
    ['name', 'twitter:card', 'summary_large_image'],
    ['name', 'twitter:title', title],
    ['name', 'twitter:image', previewUrl],
    ...(image.description ? [['property', 'og:description', image.description]] : []),
  ]
    .map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeHtml(value)}">\n`)
    .join('');
  const body = `<h1>${escapeHtml(title)}</h1>
<a href="${escapeHtml(imageUrl)}"><img src="${escapeHtml(imageUrl)}" alt="${escapeHtml(title)}" width="${file.width}" height="${file.height}"></a>
<p><span class="dimensions">${file.width} × ${file.height}</span> · <span class="size">${formatSize(image.bytes)}</span> · <span class="views">${views}</span></p>
${image.description ? `<p class="description">${escapeHtml(image.description)}</p>` : ''}`;
  return page(title, body, meta);
}

/** Nothing from these pages may tell another site the link (it holds the secret). */
const NO_REFERRER = '<meta name="referrer" content="no-referrer">\n';

/** The delete link's GET: what would be deleted, and a button that POSTs back to the same link. */
export function confirmDeletePage(image: { title: string | null; originalFilename: string | null; idEncoded: string; thumbUrl: string | null }, base: string): string {
  const title = image.title || image.originalFilename || image.idEncoded;
  const thumb = image.thumbUrl ? `<p><img src="${escapeHtml(absolute(base, image.thumbUrl))}" alt="${escapeHtml(title)}" width="160" height="160"></p>\n` : '';
  const body = `<h1>Delete ${escapeHtml(title)}?</h1>
${thumb}<p>The image and its copies are deleted for good.</p>
<form method="post"><button type="submit">Delete</button></form>`;
  return page(`Delete ${title}?`, body, NO_REFERRER);
}

export const deletedPage = () => page('Image deleted', '<h1>Image deleted</h1><p>The image and its copies are gone.</p>', NO_REFERRER);
