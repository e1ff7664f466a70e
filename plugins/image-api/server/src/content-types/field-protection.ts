/**
 * The plugin's fields that clients of the document service (the Content Manager, the content API,
 * another plugin) may not write or read; the plugin itself writes through the query engine, which
 * none of this touches.
 *
 * The way in: what only the server writes (SERVER_KEPT_FIELDS). The Content Manager may send these
 * fields; their values are dropped before the write, whatever the edit view shows. API images are
 * made by uploads only: a hand-made entry would be a record without a file.
 *
 * The way out: what never leaves the server, for any role (SERVER_ONLY_FIELDS): a key's hash and
 * encrypted copy, an image's delete-link hash and the expiry sweep's claims. And when an image's key
 * rides along as a relation (the Content Manager's image list populates it, so does `?populate=`
 * anywhere), only what names the key: an Editor may see which key an image came with, not the
 * requester's details or its limits. Stripped wherever they appear, at any depth: from what the
 * document service returns (the admin panel shows `private` fields), and from every JSON answer of
 * the app (the Media Library's `GET /upload/files?populate=related` reads through the query engine,
 * around the document service).
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Context, Next } from 'koa';
import { API_KEY_UID, IMAGE_UID } from '../constants';

/** Both ways, from the plugin's register. */
export function protectFields(strapi: Core.Strapi): void {
  keepServerFields(strapi);
  hideServerOnlyFields(strapi);
}

// The way in.

/** By content type: the fields whose values the server keeps. */
export const SERVER_KEPT_FIELDS: Record<string, string[]> = {
  [API_KEY_UID]: ['upload_count', 'last_used_at', 'key_prefix', 'key_last4', 'key_hash', 'key_encrypted', 'images', 'live_images', 'live_bytes'],
  // Editors may change an image's title, description, NSFW flag and expiry; the rest is the upload's.
  [IMAGE_UID]: [
    'id_encoded', 'name', 'md5', 'views', 'original_filename', 'original_exifdata', 'file', 'api_key', 'owner', 'owner_user',
    'album', 'delete_hash', 'expiry_claim', 'expiry_claimed_at', 'placeholder', 'dominant_color', 'source_digest', 'answer', 'label',
  ],
};

function keepServerFields(strapi: Core.Strapi): void {
  strapi.documents.use(async (context, next) => {
    const kept = SERVER_KEPT_FIELDS[context.uid];
    if (!kept) return next();
    if (context.uid === IMAGE_UID && context.action === 'create') {
      throw new errors.ApplicationError('API images are made by uploads through the API (POST /api/1/upload), not by hand');
    }
    if (context.action === 'create' || context.action === 'update') {
      const data = (context.params as { data?: Record<string, unknown> } | undefined)?.data;
      if (data) for (const field of kept) delete data[field];
      // A new title names the entry; an emptied one gives the name back to the client's file name.
      const documentId = (context.params as { documentId?: string } | undefined)?.documentId;
      if (context.uid === IMAGE_UID && data && 'title' in data && documentId) {
        const title = typeof data.title === 'string' ? data.title.trim() : '';
        const record = title ? null : await strapi.db.query(IMAGE_UID).findOne({ where: { documentId }, select: ['original_filename'] });
        data.label = title || record?.original_filename || null;
      }
    }
    return next();
  });
}

// The way out.

/** Fields that never leave the server, by content type. */
export const SERVER_ONLY_FIELDS: Record<string, string[]> = {
  [API_KEY_UID]: ['key_hash', 'key_encrypted'],
  [IMAGE_UID]: ['delete_hash', 'expiry_claim', 'expiry_claimed_at', 'source_digest', 'answer'],
};

const SECRET_NAMES = new Set(Object.values(SERVER_ONLY_FIELDS).flat());

/** The image's relation to its key (content-types/image/schema.ts). */
const KEY_RELATION = 'api_key';
/** What a key shows as an image's relation: enough to tell which key it is. */
export const KEY_AS_RELATION: ReadonlySet<string> = new Set(['id', 'documentId', 'name', 'key_prefix', 'key_last4', 'active', 'locale', 'publishedAt']);

/** Deepest level walked; documents with their relations are far shallower. */
const MAX_DEPTH = 16;

function strip(value: unknown, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) {
    for (const item of value) strip(item, depth + 1);
    return;
  }
  // Streams, dates and other class instances carry no document fields.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return;
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (SECRET_NAMES.has(name)) delete record[name];
    else if (name === KEY_RELATION && isRecord(record[name])) keyAsRelation(record[name] as Record<string, unknown>);
    else strip(record[name], depth + 1);
  }
}

/** A stored entry (it has its ids), not, say, the Content Manager's settings of the `api_key` field. */
const isRecord = (value: unknown): boolean => value !== null && typeof value === 'object' && ('documentId' in value || 'id' in value);

function keyAsRelation(record: Record<string, unknown>): void {
  for (const name of Object.keys(record)) if (!KEY_AS_RELATION.has(name)) delete record[name];
}

/** Removes the server-only fields from `value`, in place, at any depth (see the file comment). */
export function stripServerOnlyFields<T>(value: T): T {
  strip(value, 0);
  return value;
}

function hideServerOnlyFields(strapi: Core.Strapi): void {
  strapi.documents.use(async (_context, next) => stripServerOnlyFields(await next()));
  // Outermost: sees every answer's body once the routes have set it, before Koa sends it.
  strapi.server.use(async (ctx: Context, next: Next) => {
    await next();
    if (ctx.body && typeof ctx.body === 'object') stripServerOnlyFields(ctx.body);
  });
}
