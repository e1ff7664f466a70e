/**
 * The imgbb dialect's answer to an upload (docs/api.md, "The imgbb dialect"): imgbb's
 * shape with imgbb's types, numbers sent as strings where imgbb sends strings. Clients written for
 * imgbb read `data.url`, `data.display_url`, `data.thumb.url`, `data.delete_url` and friends.
 */
import type { StoredImage, StoredVariant } from './image-json';

const file = (variant: StoredVariant) => ({
  filename: `${variant.name}.${variant.extension}`,
  name: variant.name,
  mime: variant.mime,
  extension: variant.extension,
  url: variant.url,
});

/** Seconds the image lives, as asked (or as the key's default gave it); 0 for none. */
const lifetimeSeconds = (image: StoredImage) =>
  image.expiresAt ? Math.max(0, Math.round((image.expiresAt.getTime() - image.createdAt.getTime()) / 1000)) : 0;

export function imgbbJson(image: StoredImage) {
  return {
    data: {
      id: image.idEncoded,
      // imgbb titles an untitled upload with its file's name.
      title: image.title ?? image.name,
      url_viewer: image.viewerUrl,
      url: image.url,
      display_url: image.medium.url,
      width: String(image.width),
      height: String(image.height),
      size: String(image.size),
      time: String(Math.floor(image.createdAt.getTime() / 1000)),
      expiration: String(lifetimeSeconds(image)),
      image: file(image),
      thumb: file(image.thumb),
      medium: file(image.medium),
      delete_url: image.deleteUrl,
      placeholder: image.placeholder,
      dominant_color: image.dominantColor,
      moderation: image.moderation ?? 'none',
    },
    success: true,
    status: 200,
  };
}
