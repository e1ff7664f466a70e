/** `GET /image/<id_encoded>`: the viewer page. Counts the view, then shows the image with unfurl tags. */
import escapeHtml from 'escape-html';
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { formatSize } from '../services/contract/image-json';
import type { ViewerImage } from '../services/storage/images';
import { getService } from '../get-service';

const absolute = (base: string, url: string) => (/^https?:\/\//i.test(url) ? url : `${base}${url}`);

function page(title: string, body: string, head = ''): string {
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
</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

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

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async show(ctx: Context) {
    const images = getService(strapi, 'images');
    const publicUrl = getService(strapi, 'public-url');
    const id = String(ctx.params.id ?? '');
    const found = /^[A-Za-z0-9]{1,12}$/.test(id) && (await images.countView(id)) ? await images.findForViewer(id) : null;

    ctx.type = 'text/html; charset=utf-8';
    if (!found?.file) {
      ctx.status = 404;
      ctx.body = page('Image not found', '<h1>Image not found</h1><p>There is no image at this address.</p>');
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = viewerPage(found, publicUrl.base(), publicUrl.viewer(id));
  },
});
