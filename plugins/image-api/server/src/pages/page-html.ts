/**
 * The HTML pages served outside the API: the viewer (with the tags that unfurl links in chat apps,
 * its report form, and for an NSFW image a first view without it), the delete link's confirmation
 * and result, a report's refusal, and "not found". Self-contained: no script, no external style,
 * nothing from elsewhere but the image itself. English only, as every page here.
 */
import escapeHtml from 'escape-html';
import { formatSize } from '../../../shared/format-size';
import { REPORT_REASONS, type ReportReason } from '../config/constants';
import { REPORT_TEXT_MAX } from '../moderation/report-input';
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
a{color:#9cf}.note{color:#cfc}.sensitive{padding:48px 0}.show{font-size:1.2em}
details.report{margin-top:32px;color:#aaa}summary{cursor:pointer}
form.report{display:inline-grid;gap:8px;text-align:left;margin-top:12px}
select,textarea{font:inherit;background:#222;color:#eee;border:1px solid #555;border-radius:4px;padding:4px}
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

/** The reasons as the report form offers them (REPORT_REASONS, in its order). */
const REASON_LABELS: Record<ReportReason, string> = {
  sexual: 'Sexual content',
  violence: 'Violence or gore',
  hate: 'Hate or harassment',
  illegal: 'Illegal content',
  spam: 'Spam or scam',
  copyright: 'Copyright infringement',
  other: 'Something else',
};

export interface ViewerOptions {
  /** The viewer asked to see an NSFW image (`?show=1`, the first view's "Show" link). */
  show: boolean;
  /** Back from a report (`?reported=1`): the page thanks the reporter. */
  reported: boolean;
}

/** The report form: a reason, an optional text, posted (no script) to `<viewer>/report`. */
function reportForm(pageUrl: string): string {
  const options = REPORT_REASONS.map((reason) => `<option value="${reason}">${REASON_LABELS[reason]}</option>`).join('');
  // The viewer's own path, whatever host served the page (the form posts to this origin).
  const action = `${new URL(pageUrl).pathname}/report`;
  return `<details class="report"><summary>Report this image</summary>
<form class="report" method="post" action="${escapeHtml(action)}">
<label>Reason <select name="reason" required><option value="">Choose…</option>${options}</select></label>
<label>Details (optional)<br><textarea name="text" maxlength="${REPORT_TEXT_MAX}" rows="3" cols="40"></textarea></label>
<button type="submit">Send report</button>
</form></details>`;
}

/**
 * The viewer page. An NSFW image (sent with nsfw=1, or flagged by moderation) is not in the first
 * view at all: no <img>, no link to a file, no og:image or twitter:image (a chat app's preview would
 * show it), only a "Show" link to `?show=1`, where it is. No script needed, and nothing of the image
 * is fetched until the viewer asks.
 */
export function viewerPage(image: ViewerImage, base: string, pageUrl: string, options: ViewerOptions = { show: false, reported: false }): string {
  const file = image.file!;
  const title = image.title || image.originalFilename || image.idEncoded;
  const imageUrl = absolute(base, file.url);
  const hidden = image.nsfw && !options.show;
  // Link previews show the medium (500 wide); its own dimensions go with it.
  const preview = image.medium ?? file;
  const previewUrl = absolute(base, preview.url);
  const views = `${image.views} ${image.views === 1 ? 'view' : 'views'}`;
  const meta = [
    ['property', 'og:type', 'website'],
    ['property', 'og:title', title],
    ['property', 'og:url', pageUrl],
    ...(hidden
      ? [['name', 'twitter:card', 'summary']]
      : [
          ['property', 'og:image', previewUrl],
          ['property', 'og:image:width', String(preview.width)],
          ['property', 'og:image:height', String(preview.height)],
          ['name', 'twitter:card', 'summary_large_image'],
        ]),
    ['name', 'twitter:title', title],
    ...(hidden ? [] : [['name', 'twitter:image', previewUrl]]),
    ...(image.description ? [['property', 'og:description', image.description]] : []),
  ]
    .map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeHtml(value)}">\n`)
    .join('');
  const picture = hidden
    ? `<div class="sensitive"><p>This image is marked as sensitive (NSFW).</p>
<p><a class="show" href="${escapeHtml(`${new URL(pageUrl).pathname}?show=1`)}" rel="nofollow">Show</a></p></div>`
    : `<a href="${escapeHtml(imageUrl)}"><img src="${escapeHtml(imageUrl)}" alt="${escapeHtml(title)}" width="${file.width}" height="${file.height}"></a>`;
  const body = `<h1>${escapeHtml(title)}</h1>
${options.reported ? '<p class="note" role="status">Thank you: your report was sent to the moderators.</p>\n' : ''}${picture}
<p><span class="dimensions">${file.width} × ${file.height}</span> · <span class="size">${formatSize(image.bytes)}</span> · <span class="views">${views}</span></p>
${image.description ? `<p class="description">${escapeHtml(image.description)}</p>` : ''}
${reportForm(pageUrl)}`;
  return page(title, body, meta);
}

/** A report the form sent and the server refused: why, and the way back. */
export const reportRefusedPage = (message: string, viewerPath: string) =>
  page('Report not sent', `<h1>Report not sent</h1><p>${escapeHtml(message)}.</p><p><a href="${escapeHtml(viewerPath)}">Back to the image</a></p>`);

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
