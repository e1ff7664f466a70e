/**
 * Maps a stored image to the API's `image` object (docs/api.md, "The image object"): every field of
 * the dialect's image object, in its order, with its types; extra fields after.
 */
import { formatSize } from '../../../shared/format-size';
import type { ModerationState } from '../config/constants';

export interface StoredVariant {
  /** Base name including the suffix, e.g. `cat-Ab12Cd34.th`. */
  name: string;
  /** Lowercase extension without dot. */
  extension: string;
  mime: string;
  width: number;
  height: number;
  /** Bytes. */
  size: number;
  bits: number;
  channels: number | null;
  /** Absolute URL. */
  url: string;
}

export interface StoredImage extends StoredVariant {
  idEncoded: string;
  md5: string;
  title: string | null;
  description: string | null;
  nsfw: boolean;
  views: number;
  originalFilename: string;
  originalExif: Record<string, unknown> | null;
  createdAt: Date;
  /** Truthful label of the storage layout, e.g. the upload provider's name. */
  storage: string;
  viewerUrl: string;
  /** The delete link, secret included: only ever in the upload's answer. */
  deleteUrl: string;
  expiresAt: Date | null;
  thumb: StoredVariant;
  medium: StoredVariant;
  /** ThumbHash (base64) and `#rrggbb` (images/placeholder.ts). */
  placeholder: string;
  dominantColor: string;
  /** The digest a key that reuses or refuses duplicates recorded it under (storage/duplicates.ts). */
  sourceDigest?: string | null;
  /** Where it stands in moderation; absent in answers saved before moderation existed: `none`. */
  moderation?: ModerationState;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD HH:MM:SS` of an instant in an IANA time zone. */
export function formatDateTime(date: Date, timeZone: string): string {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  const part = Object.fromEntries(formatter.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}`;
}

const AGE_UNITS: Array<[string, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "moments ago" under a minute, else "N unit(s) ago" in the largest whole unit. */
export function howLongAgo(then: Date, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
  for (const [unit, length] of AGE_UNITS) {
    const count = Math.floor(seconds / length);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
  }
  return 'moments ago';
}

const ratio = (width: number, height: number) => width / height;

export function variantJson(variant: StoredVariant) {
  return {
    filename: `${variant.name}.${variant.extension}`,
    name: variant.name,
    width: variant.width,
    height: variant.height,
    ratio: ratio(variant.width, variant.height),
    size: variant.size,
    size_formatted: formatSize(variant.size),
    mime: variant.mime,
    extension: variant.extension,
    bits: variant.bits,
    channels: variant.channels,
    url: variant.url,
  };
}

export function imageJson(image: StoredImage, timeZone: string, now: Date = new Date()) {
  return {
    name: image.name,
    extension: image.extension,
    size: image.size,
    width: image.width,
    height: image.height,
    date: formatDateTime(image.createdAt, timeZone),
    date_gmt: formatDateTime(image.createdAt, 'UTC'),
    storage_id: null,
    description: image.description,
    nsfw: image.nsfw ? '1' : '0',
    md5: image.md5,
    storage: image.storage,
    original_filename: image.originalFilename,
    original_exifdata: image.originalExif,
    views: String(image.views),
    id_encoded: image.idEncoded,
    filename: `${image.name}.${image.extension}`,
    ratio: ratio(image.width, image.height),
    size_formatted: formatSize(image.size),
    mime: image.mime,
    bits: image.bits,
    channels: image.channels,
    url: image.url,
    url_viewer: image.viewerUrl,
    thumb: variantJson(image.thumb),
    medium: variantJson(image.medium),
    views_label: image.views === 1 ? 'view' : 'views',
    display_url: image.medium.url,
    how_long_ago: howLongAgo(image.createdAt, now),
    title: image.title,
    delete_url: image.deleteUrl,
    expiration_date_gmt: image.expiresAt ? formatDateTime(image.expiresAt, 'UTC') : null,
    placeholder: image.placeholder,
    dominant_color: image.dominantColor,
    moderation: image.moderation ?? 'none',
  };
}
