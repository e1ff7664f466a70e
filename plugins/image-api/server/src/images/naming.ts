/**
 * Identifiers and file names: `id_encoded` (short, random, not guessable from another) and stored
 * names derived from the client's file name, safe for URLs and file systems, never colliding.
 */
import { customAlphabet } from 'nanoid';
import slugify from '@sindresorhus/slugify';

/**
 * A random id of `length` characters from [A-Za-z0-9]: nanoid draws them from the system's secure
 * random source without modulo bias (it masks bytes to 6 bits and skips those past 61). nanoid 3,
 * as 4 and later are ES modules only and the server is built to CommonJS.
 */
export const randomId: (length?: number) => string = customAlphabet('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 8);

export const EXTENSION_BY_FORMAT = { jpeg: 'jpg', png: 'png', gif: 'gif', webp: 'webp', avif: 'avif' } as const;
export const MIME_BY_FORMAT = { jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif' } as const;

/**
 * Stored base name: the slug of the client's name (without extension) and the id, which makes it
 * unique; the id alone when the name gives nothing usable.
 */
export function storedName(originalFilename: string | null, idEncoded: string): string {
  // The last path segment only (clients send "C:\\pics\\a.png" or "../a.png"), without its extension.
  const base = (originalFilename ?? '').split(/[\\/]/).pop()!.replace(/\.[^.]*$/, '');
  // Plain ASCII names (most of them) need no transliteration: a regex does the slug's work.
  const slug = (
    /^[A-Za-z0-9 ._-]*$/.test(base)
      ? base.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
      : slugify(base, { decamelize: false })
  )
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug ? `${slug}-${idEncoded}` : idEncoded;
}

/** A printable file name for display and records: control characters out, 255 characters at most. */
export function cleanOriginalFilename(name: string): string {
  // Control characters, and the bidirectional controls that make a page show `cat\u202Egpj.exe` as
  // `catexe.jpg`.
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim().slice(0, 255);
}

/** Characters of a Media Library file name (its `name` column). */
const LIBRARY_NAME_LENGTH = 255;

/** Extensions that name the stored format (`jpg` and `jpeg` are one). */
const SAME_FORMAT = new Map<string, string[]>([['jpg', ['jpg', 'jpeg']]]);

/**
 * The file's name in the Media Library, what editors see on its card: the title when one was given,
 * else the client's file name, else the id; always with the stored extension, so a BMP stored as
 * PNG or a HEIC stored as JPEG is named for what it is (`scan.bmp` → `scan.png`).
 */
export function libraryName(title: string | null, originalFilename: string, extension: string): string {
  const named = title?.trim() || originalFilename;
  const dot = named.lastIndexOf('.');
  const own = dot > 0 ? named.slice(dot + 1).toLowerCase() : '';
  if ((SAME_FORMAT.get(extension) ?? [extension]).includes(own)) return named;
  // The client's name's own image extension is replaced; a title's dot is part of the title.
  const base = !title?.trim() && dot > 0 && /^[a-z0-9]{2,5}$/.test(own) ? named.slice(0, dot) : named;
  // A client's name may already be 255 characters: the extension must still fit the column.
  return `${base.slice(0, LIBRARY_NAME_LENGTH - extension.length - 1)}.${extension}`;
}

/**
 * A kept transformation result's stored name, without its extension (delivery/variants.ts):
 * its image's name, `_t`, and 24 hex digits of its key. No image name holds `_` (storedName()), nor
 * does a Media Library hash end so (Strapi ends them with `_` and 10 hex digits).
 */
export const keptResultName = (imageName: string, key: string): string => `${imageName}_t${key.slice(0, 24)}`;

/** Whether a stored file name (extension included) is a kept transformation result's. */
export const isKeptResultFile = (fileName: string): boolean => /_t[0-9a-f]{24}\.[A-Za-z0-9]+$/.test(fileName);
