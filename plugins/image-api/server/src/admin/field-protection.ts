/**
 * The plugin's fields that clients of the document service (the Content Manager, the content API,
 * another plugin) may not write or read; the plugin itself writes through the query engine, which
 * none of this touches.
 *
 * The way in: what only the server writes (SERVER_KEPT_FIELDS). The Content Manager may send these
 * fields; their values are dropped before the write, whatever the edit view shows. API images are
 * made by uploads only: a hand-made entry would be a record without a file.
 *
 * The way out (field-visibility.ts says what): what never leaves the server, for any role
 * (SERVER_ONLY_FIELDS): a key's hash and encrypted copy, an image's delete-link hash and the expiry
 * sweep's claims. And an entry riding along as a relation of an image or key (RELATION_VIEWS: the
 * Content Manager's image list populates the key and the site user, so does `?populate=` anywhere)
 * shows what names it, its other fields only to the admins its view lets read them (a key's, to no
 * one; a site user's, to admins whose role reads users), its secrets (a user's password hash and
 * tokens) to no one. Stripped wherever they appear, at any depth: from what the document service
 * returns (the admin panel shows `private` fields; inside the server a site user keeps what a reader
 * would see), and from every JSON answer of the app, for the admin who asks (the Media Library's
 * `GET /upload/files?populate=related` reads through the query engine, around the document service).
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Context, Next } from 'koa';
import { API_KEY_UID, IMAGE_UID } from '../config/constants';
import { RELATION_VIEWS, SERVER_ONLY_FIELDS, inAudience, readerOf, type Ability, type RelationView } from './field-visibility';

/** Both ways, from the plugin's register. */
export function protectFields(strapi: Core.Strapi): void {
  keepServerFields(strapi);
  hideServerOnlyFields(strapi);
}

// The way in.

/** By content type: the fields whose values the server keeps. */
export const SERVER_KEPT_FIELDS: Record<string, string[]> = {
  [API_KEY_UID]: ['upload_count', 'last_used_at', 'key_prefix', 'key_last4', 'key_hash', 'key_encrypted', 'images', 'live_images', 'live_bytes'],
  // Editors may change an image's title, description, NSFW flag and expiry; the rest is the upload's
  // and moderation's.
  [IMAGE_UID]: [
    'id_encoded', 'name', 'md5', 'views', 'original_filename', 'original_exifdata', 'file', 'api_key', 'owner', 'owner_user',
    'album', 'delete_hash', 'expiry_claim', 'expiry_claimed_at', 'placeholder', 'dominant_color', 'source_digest', 'answer', 'label',
    // Moderation's: an Editor cannot release a held image or clear it from the review queue.
    'moderation', 'nsfw_score', 'nsfw_scores', 'review_since', 'report_count',
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

const SECRET_NAMES = new Set(Object.values(SERVER_ONLY_FIELDS).flat());

/** The relation views (field-visibility.ts) by the name of the relation that carries each. */
const VIEWS_BY_FIELD = new Map(Object.entries(RELATION_VIEWS).map(([uid, view]) => [view.field, { uid, view }]));

/** Whom an answer is for: whether they read `field` of `uid` (readerOf). */
type Reads = (uid: string, field: string) => boolean;
/** The document service's results stay inside the server: they lose the secrets and what nobody sees, nothing a reader would see. */
const INSIDE: Reads = () => true;

/** Deepest level walked; documents with their relations are far shallower. */
const MAX_DEPTH = 16;

function strip(value: unknown, depth: number, reads: Reads): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) {
    for (const item of value) strip(item, depth + 1, reads);
    return;
  }
  // Streams, dates and other class instances carry no document fields.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return;
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const related = VIEWS_BY_FIELD.get(name);
    if (SECRET_NAMES.has(name)) delete record[name];
    else if (related) asRelation(record[name], related, depth + 1, reads);
    else strip(record[name], depth + 1, reads);
  }
}

/** A stored entry (it has its ids), not, say, the Content Manager's settings of the `api_key` field. */
const isEntry = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && ('documentId' in value || 'id' in value);

/** Keeps of a related entry (or each of a list of them) what its view shows to `reads`. */
function asRelation(value: unknown, { uid, view }: { uid: string; view: RelationView }, depth: number, reads: Reads): void {
  if (Array.isArray(value)) {
    for (const item of value) asRelation(item, { uid, view }, depth + 1, reads);
    return;
  }
  if (!isEntry(value)) return strip(value, depth, reads);
  for (const name of Object.keys(value)) {
    const shown = view.names.has(name) || (!view.secrets.has(name) && inAudience(view.others.shown, reads, uid, name));
    if (shown) strip(value[name], depth + 1, reads);
    else delete value[name];
  }
}

/**
 * Removes from `value`, in place, at any depth, what `reads` may not see (see the file comment);
 * without `reads`, what stays inside the server may keep what a reader would see.
 */
export function stripServerOnlyFields<T>(value: T, reads: Reads = INSIDE): T {
  strip(value, 0, reads);
  return value;
}

function hideServerOnlyFields(strapi: Core.Strapi): void {
  strapi.documents.use(async (_context, next) => stripServerOnlyFields(await next()));
  // Outermost: sees every answer's body once the routes have set it, before Koa sends it. Admins'
  // requests carry their abilities; any other (the content API, strangers) reads no related field
  // beyond what names it.
  strapi.server.use(async (ctx: Context, next: Next) => {
    await next();
    if (ctx.body && typeof ctx.body === 'object') stripServerOnlyFields(ctx.body, readerOf((ctx.state as { userAbility?: Ability }).userAbility));
  });
}
