/**
 * The upload API, top to bottom: `/api/<version>/<action>` (upload, delete, albums) and imgbb's path
 * (`imgbbPath`, always an upload). One request walks these steps, in this order:
 *
 *   1. admit         the request gate (operations/request-gate.ts), before a byte of the body is read
 *   2. authenticate  a key sent in the X-API-Key header with a body, before that body is read
 *   3. read the body (upload-body/)
 *   4. route         the version, the action, the method
 *   5. gather        the parameters (protocol/request-params.ts), checked by the action's schema
 *   (the key the parameters name: step 2's confirmed, or one from the body or the query)
 *   then the action; an upload goes on:
 *   6. source        where the image goes, its expiration, the key's room, the source's bytes
 *   7. image work    probe, the stored original and its variants (images/); screened by moderation
 *                    (moderation/screening.ts): the blocklist, the classifier, the key's mode
 *   8. store         provider files and rows (storage/media-store.ts)
 *   9. record        in the same transaction: the key's quota, a duplicate's digest, an Idempotency-Key
 *  10. answer        in the dialect and format asked
 *
 * Every step throws the error table's ApiError (http/api-error.ts; docs/api.md, "Errors"); one handler
 * (`failureHandler`, protocol/answers.ts) answers whatever was thrown, in the format the client asked
 * (the query's until the body is read). A request refused before its body was read (load, a wrong
 * header key, a body refused while read) has the unread rest of that body discarded as it arrives
 * (http/end-after-body.ts), and never held: nothing is written for it, no temp folder made.
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { errors, isApiError } from '../http/api-error';
import { ERROR_TABLE } from '../http/error-table';
import { clientAddress } from '../http/client-address';
import { endAfterBody } from '../http/end-after-body';
import type { RequestScope } from '../http/request-scope';
import { tempRoot } from '../http/temp-folders';
import { isUniqueViolation } from '../database/unique-violation';
import {
  ACTIONS,
  answerFormat,
  checkAlbumsParams,
  checkDeleteParams,
  checkUploadParams,
  gatherParams,
  type Action,
  type Format,
  type SentParams,
  type UploadParams,
} from '../protocol/request-params';
import { answerSuccess, failureHandler, type Asked, type Dialect } from '../protocol/answers';
import { imageJson, type StoredImage } from '../protocol/image-json';
import { imgbbJson } from '../protocol/imgbb-json';
import { expirationSeconds, type ExpirationLimits } from '../protocol/expiration';
import type { SourceInput } from '../protocol/source-precedence';
import { refusalError, requestsPerAddress, type Ticket } from '../operations/request-gate';
import { busyWithImages } from '../operations/idle-collection';
import type { SourceLabel } from '../operations/metrics';
import { readExif } from '../images/metadata/exif-read';
import { withTrueAlphaFlag } from '../images/metadata/webp-chunks';
import { probeImage } from '../images/image-probe';
import { buildVariants, checkStoredBytes, type VariantSet } from '../images/image-variants';
import { runImageWork } from '../images/image-work';
import { settleAll } from '../images/settle-all';
import { cleanOriginalFilename, EXTENSION_BY_FORMAT, randomId, storedName, libraryName } from '../images/naming';
import { policyFor } from '../sources/address-policy';
import { readSource } from '../sources/read-source';
import { isValidIdempotencyKey } from '../storage/idempotency';
import type { ImageForRemoval } from '../storage/image-records';
import type { AuthenticatedKey } from '../keys/api-keys';
import { bodyLimitsFor, bodyReader, EMPTY_BODY, maxBodyBytes, type ParsedBody } from './upload-body';
import { getConfig, getService } from '../get-service';

export type { Dialect } from '../protocol/answers';

/** Whether the request has a body to read: a declared length above 0, or a chunked one. */
export const hasBody = (ctx: Context) => (ctx.get('content-length') !== '' ? Number(ctx.get('content-length')) > 0 : ctx.get('transfer-encoding') !== '');

/**
 * The action a route path names (`/api/1/<action>`, the router's parameter, decoded): one trailing
 * slash allowed, and in any case, as the router matches the path itself (`/API/1/UPLOAD`).
 */
export const routeAction = (value: unknown): Action | null => {
  const action = String(value ?? '').replace(/\/$/, '').toLowerCase();
  return (ACTIONS as readonly string[]).includes(action) ? (action as Action) : null;
};

/**
 * The shape an upload answers in: imgbb's on the imgbb path, or for an image sent in imgbb's field
 * (`image`) on /api/1/upload, as the reference implementation does.
 */
export const uploadDialect = (route: Dialect, sent: Pick<SentParams, 'sourceField'>): Dialect =>
  route === 'imgbb' || sent.sourceField === 'image' ? 'imgbb' : 'api';

/** The kind of image an upload request sent, for its count. */
const sourceLabel = (sent: SentParams): SourceLabel => {
  const kind = sent.source?.kind;
  return kind === 'file' || kind === 'url' ? kind : kind === 'base64' || kind === 'decoded' ? 'base64' : 'none';
};

/** The Idempotency-Key header, checked; null without one. */
function idempotencyKeyOf(ctx: Context): string | null {
  const value = ctx.get('Idempotency-Key');
  if (value === '') return null;
  if (!isValidIdempotencyKey(value)) throw errors.idempotencyKey();
  return value;
}

/** Moderation's refusals (106: refused, 107: blocked), which a key is charged for (docs/moderation.md). */
const MODERATION_CODES = new Set([ERROR_TABLE.refusedByModeration.code, ERROR_TABLE.blockedContent.code]);

/** Uploaded with this key, or with a key of the same admin or site user. */
const mayDelete = (key: AuthenticatedKey, image: ImageForRemoval) =>
  image.apiKeyId === key.id ||
  (key.adminOwnerId !== null && image.adminOwnerId === key.adminOwnerId) ||
  (key.siteUserOwnerId !== null && image.siteUserOwnerId === key.siteUserOwnerId);

/**
 * What the client asked to store, and how: the upload's parameters (protocol/request-params.ts) with a
 * source; the album is checked against the key's folder, the expiration against its default.
 */
type UploadRequest = Omit<UploadParams, 'source'> & { source: SourceInput };

/** A request on its way: what the steps found so far, for the steps after them and the answer. */
interface Walk {
  ctx: Context;
  asked: Asked;
  /** The key, once authenticated (step 2, then confirmed after the parameters). */
  key: AuthenticatedKey | null;
  scope: RequestScope;
  body: ParsedBody;
}

/** Requests that the plugin's body parser leaves for this pipeline to read (see `leaveBodyToPipeline`). */
const bodiesLeftToPipeline = new WeakSet<object>();

/**
 * Called for the upload paths where Strapi's body parser would run (http-entries.ts): Strapi's parser
 * does not read their bodies, the pipeline does. A request the router sends here without that (a
 * path spelled so that the two disagree) is a bug, answered 500 rather than read twice.
 */
export const leaveBodyToPipeline = (ctx: Context) => bodiesLeftToPipeline.add(ctx.req);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const answerFailure = failureHandler(strapi.log);
  const body = bodyReader();

  /**
   * 1. Admit. Past the gate's limits, or while the process shuts down, 503 with Retry-After at once
   * (429 when the client's address holds its share). A request whose key is known good before its
   * body is read may use the whole gate: no body at all (nothing to trickle), a key in the X-API-Key
   * header (step 2 refuses a wrong one at once, so it cannot hold a slot), or, asked only when the
   * others' share is full, a `key` in the query that is a valid key (imgbb's clients send theirs there).
   * Others hold only a share (operations/request-gate.ts): a stranger's slow body cannot shut keyed
   * uploads out.
   */
  async function admit(ctx: Context): Promise<Ticket> {
    const config = getConfig(strapi);
    const address = clientAddress(ctx.req, config.trustedProxies);
    const gate = getService(strapi, 'request-gate');
    const declared = bodyBytes(ctx, config.maxBytes);
    const vouched = !hasBody(ctx) || ctx.get('x-api-key') !== '';
    let ticket = gate.enter(declared, address, vouched);
    if (ticket === 'full' && !vouched && (await vouchedByQuery(ctx))) ticket = gate.enter(declared, address, true);
    if (typeof ticket !== 'string') return ticket;
    getService(strapi, 'metrics').refused(ticket);
    // A process that shuts down closes the connection after the answer (and the unread body).
    if (ticket === 'draining') ctx.set('Connection', 'close');
    throw refusalError(ticket, requestsPerAddress(config));
  }

  /**
   * The bytes a request will hold: its declared length, or the largest image when it declares none. A
   * body declared over the routes' limit holds nothing: it is refused (413) before a byte is read.
   */
  function bodyBytes(ctx: Context, maxBytes: number): number {
    if (!hasBody(ctx)) return 0;
    const declared = Number(ctx.get('content-length'));
    if (!Number.isFinite(declared) || declared <= 0) return maxBytes;
    return declared > maxBodyBytes(bodyLimitsFor(maxBytes)) ? 0 : declared;
  }

  /** Whether the query's `key` is a valid key. Not counted as a failed attempt: a wrong one is checked, and counted, once the body is read. */
  function vouchedByQuery(ctx: Context): Promise<boolean> {
    const key = ctx.query.key;
    if (typeof key !== 'string' || key === '') return Promise.resolve(false);
    return getService(strapi, 'api-keys').authenticate(key).then(
      () => true,
      () => false
    );
  }

  /**
   * 2. Authenticate, before the body: a request that has a body and sends its key in the X-API-Key
   * header has that key checked before a byte of the body is read, so such a body costs nothing to
   * refuse (a 16 MB hostile JSON body once blocked the event loop for seconds before the 401). The
   * header is the one place that settles the key before the body: a `key` in the query yields to one in
   * the body (docs/api.md, "Parameters"), so it is checked once the body is read, and the parsers bound
   * what reading costs. An outage (the database away) is not answered here: the key is checked again
   * after the parameters, which answers it as every outage is answered.
   */
  async function keyBeforeBody(ctx: Context): Promise<AuthenticatedKey | null> {
    const key = hasBody(ctx) ? ctx.get('x-api-key') : '';
    if (key === '') return null;
    try {
      return await getService(strapi, 'access').authenticate(key, ctx.req);
    } catch (error) {
      if (isApiError(error)) throw error;
      return null;
    }
  }

  /**
   * The key the parameters name, authenticated (401 or 403; 429 for an address past its failed
   * attempts). Step 2's check is confirmed, not trusted: a body may take up to bodyTimeoutMs to
   * arrive, and a key revoked, expired or moved meanwhile must not store or delete under it. The
   * confirmation is the key cache's (emptied by every key change: keys/key-changes.ts), not a query.
   */
  const authenticate = async (walk: Walk, key: string | null) =>
    (walk.key = await getService(strapi, 'access').authenticate(key, walk.ctx.req));

  /** 4. Route: the version and the action of `/api/<version>/<action>` (imgbb's path is an upload), then the method. */
  function route(ctx: Context, dialect: Dialect): Action {
    let action: Action | null = 'upload';
    if (dialect === 'api') {
      if (ctx.params.version !== '1') throw errors.badVersion();
      action = routeAction(ctx.params.action);
      if (!action) throw errors.badAction();
    }
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST, OPTIONS');
      throw errors.methodNotAllowed();
    }
    return action;
  }

  /** One request, start to finish (see the file comment). */
  async function handle(ctx: Context, dialect: Dialect): Promise<void> {
    const config = getConfig(strapi);
    const walk = { ctx, asked: { dialect, format: answerFormat(ctx.query.format) } } as Walk;
    // An upload's answer is counted by dialect, source kind and status (operations/metrics.ts); a
    // refusal before the parameters are read (load, a key, 413, a malformed body) counts as source `none`.
    let counted: { dialect: Dialect; source: SourceLabel } | null =
      dialect === 'imgbb' || routeAction(ctx.params.action) === 'upload' ? { dialect, source: 'none' } : null;
    let ticket: Ticket | null = null;
    let scope: (RequestScope & { end(): Promise<void> }) | null = null;
    let done: (() => void) | null = null;
    let bodyRead = false;
    try {
      if (!bodiesLeftToPipeline.has(ctx.req)) throw new Error('the upload routes reached without the plugin\'s body middleware (keep strapi::body in config/middlewares.ts)');
      ticket = await admit(ctx);
      walk.key = await keyBeforeBody(ctx);
      // What the request leaves (its body, the files it made) is collected once the process is quiet.
      done = busyWithImages();
      scope = walk.scope = body.openScope(tempRoot(config.tmpDir));
      walk.body = await body.read(ctx, scope, {
        limits: bodyLimitsFor(config.maxBytes),
        stall: { windowMs: config.bodyIdleTimeoutMs, minBytesPerSecond: config.bodyMinBytesPerSecond, deadlineMs: config.bodyTimeoutMs },
      });
      bodyRead = true;
      const action = route(ctx, dialect);
      const sent = gatherParams(ctx, walk.body);
      walk.asked.format = answerFormat(sent.format);
      if (counted) counted = { dialect: uploadDialect(dialect, sent), source: sourceLabel(sent) };
      if (action === 'upload') await upload(walk, sent);
      else if (action === 'delete') await deleteImage(walk, sent);
      else await listAlbums(walk, sent);
    } catch (error) {
      const answered = answerFailure(ctx, error, walk.asked);
      // Refused before its body was read: the rest is read and discarded as it arrives before the
      // connection may close (closing it on unread data resets it, and clients, fetch among others,
      // then lose the answer). A stalled body (408) is not waited for: its connection closes.
      if (!bodyRead && answered.status !== 408) endAfterBody(ctx.req, ctx.res, config.bodyIdleTimeoutMs);
    } finally {
      if (counted) getService(strapi, 'metrics').uploadAnswered(counted.dialect, counted.source, ctx.status);
      // The request's context may outlive it (an async resource made while it ran keeps it): it keeps no body.
      walk.body = EMPTY_BODY;
      try {
        // Everything that read the parts (image work, provider writes) has settled by now.
        await scope?.end();
      } finally {
        done?.();
        ticket?.leave();
      }
    }
  }

  /** `/api/1/upload` and imgbb's path (docs/api.md, "Answers" and "Retrying an upload"). */
  async function upload(walk: Walk, sent: SentParams): Promise<void> {
    const { ctx } = walk;
    const dialect = uploadDialect(walk.asked.dialect, sent);
    const params = checkUploadParams(sent, getConfig(strapi));
    const idempotencyKey = idempotencyKeyOf(ctx);
    const key = await authenticate(walk, params.key);
    const idempotency = getService(strapi, 'idempotency');
    const remembered = idempotencyKey === null ? null : { apiKeyId: key.id, key: idempotencyKey };
    const answer = (image: StoredImage, replayed: boolean) => answerUpload(ctx, walk.asked.format, dialect, image, replayed);
    // A repeated request: the first upload's answer, stored nothing and charged nothing.
    const earlier = remembered && (await idempotency.find(remembered));
    if (earlier) return answer(earlier, true);

    const rateLimits = getService(strapi, 'rate-limits');
    ctx.set(await rateLimits.chargeKey(key));
    let stored = false;
    // Moderation's refusals keep their charge: the blocklist and the classifier answer no key for free.
    let judged = false;
    try {
      if (!params.source) throw errors.emptySource();
      // A GET's parameters are in its URL, which mangles base64 and cuts it short.
      if (params.source.kind === 'base64' && ctx.method === 'GET') throw errors.base64ViaGet();
      try {
        const image = await store({ ...params, source: params.source }, key, walk.scope, remembered);
        stored = true;
        answer(image, false);
      } catch (error) {
        judged = isApiError(error) && MODERATION_CODES.has(error.code);
        // A twin request with the same Idempotency-Key was recorded first: its answer is this one's.
        const winner = remembered && isUniqueViolation(error) ? await idempotency.find(remembered) : null;
        if (!winner) throw error;
        answer(winner, true);
      }
    } finally {
      // Only stored uploads count against the key's budget: a refusal or a failure gives its charge back.
      if (!stored && !judged) await rateLimits.refundKey(key);
    }
  }

  /** 6 to 9: the source's bytes, the image work, the store and its records; an earlier image for a duplicate. */
  async function store(request: UploadRequest, apiKey: AuthenticatedKey, scope: RequestScope, remembered: { apiKeyId: number; key: string } | null): Promise<StoredImage> {
    const cfg = getConfig(strapi);
    // 6. Refusals that cost nothing come before the download and the image work.
    const folder = await getService(strapi, 'media-folder').uploadFolder(apiKey.folderId, request.albumId);
    const expiration = request.expiration ?? keyDefaultExpiration(apiKey, cfg);
    const quotas = getService(strapi, 'quotas');
    await quotas.checkRoom(apiKey);
    const { bytes, filename } = await readSource(request.source, scope, cfg, policyFor(cfg.urlAllowlist));
    if (bytes.length === 0) throw errors.emptySource();
    const metrics = getService(strapi, 'metrics');
    metrics.bytesReceived(request.source.kind === 'decoded' ? 'base64' : request.source.kind, bytes.length);
    // A key that reuses or refuses duplicates: one indexed lookup before any image work.
    const duplicates = getService(strapi, 'duplicates');
    const sourceDigest = duplicates.digestOf(apiKey, bytes);
    const earlier = sourceDigest && (await duplicates.find(sourceDigest));
    if (earlier) return duplicates.answerFor(apiKey, earlier);
    // The bytes as sent, against the blocklist's exact hashes: a blocked file costs no image work.
    const screening = getService(strapi, 'screening');
    const sourceDigests = await screening.screenSource(bytes);
    const policy = screening.policy(apiKey);
    // The medium's decoded pixels, kept for the screening only when it reads them.
    const screeningPixels = await screening.needsPixels(policy);

    // 7. The image work.
    const workDone = metrics.timeImageWork();
    const { variants, originalExif } = await runImageWork(async () => {
      // A WebP whose VP8X flags deny the alpha its image has would be decoded without it: repaired first.
      const decodable = withTrueAlphaFlag(bytes);
      const probed = await probeImage(decodable, cfg.allowedTypes, cfg);
      const [variants, originalExif] = await settleAll<[VariantSet, Record<string, unknown> | null]>([
        buildVariants(decodable, probed, { ...cfg, screeningPixels }, request.width),
        cfg.keepExif && probed.hasMetadata ? readExif(decodable) : Promise.resolve(null),
      ]);
      checkStoredBytes(variants, cfg.maxBytes);
      return { variants, originalExif };
    }).finally(workDone);
    // The stored original is often the bytes as sent (nothing to strip or turn): digests the
    // blocklist's check made of them are not computed twice (a comparison costs a fraction of a hash).
    const hashedAsSent = sourceDigests.md5 !== undefined || sourceDigests.sha256 !== undefined;
    const asSent = hashedAsSent && variants.original.buffer.equals(bytes) ? sourceDigests : {};
    const md5 = asSent.md5 ?? crypto.createHash('md5').update(variants.original.buffer).digest('hex');
    const screened = await screening.screenImage(variants, { md5, sha256: asSent.sha256 }, policy, request.nsfw);
    // Read: let go of them before the store.
    delete variants.pixels;

    // 8. The store: provider files, then the rows.
    const idEncoded = randomId(10);
    const idempotency = getService(strapi, 'idempotency');
    const extension = EXTENSION_BY_FORMAT[variants.original.format];
    const originalFilename = cleanOriginalFilename(filename ?? '') || `${idEncoded}.${extension}`;
    const storing = getService(strapi, 'media-store').store({
      variants,
      idEncoded,
      name: storedName(filename, idEncoded),
      md5,
      originalFilename,
      libraryName: libraryName(request.title, originalFilename, extension),
      title: request.title,
      description: request.description,
      nsfw: screened.verdict.nsfw,
      moderation: { state: screened.verdict.state, score: screened.score, scores: screened.scores },
      apiKeyId: apiKey.id,
      keyName: apiKey.name,
      adminOwnerId: apiKey.adminOwnerId,
      createdByAdminId: apiKey.adminOwnerId ?? apiKey.issuedByAdminId,
      siteUserOwnerId: apiKey.siteUserOwnerId,
      originalExif,
      folder,
      expiresIn: expiration,
      deleteSecret: sourceDigest ? duplicates.deleteSecret(sourceDigest, idEncoded) : remembered && idempotency.deleteSecret(remembered, idEncoded),
      sourceDigest,
      // 9. Recorded in the same transaction as the upload's rows (only stored uploads count): the
      // key's quota and use count, a duplicate's digest, and the Idempotency-Key (a twin request
      // racing it fails here).
      inTransaction: async (trx, image, file) => {
        await quotas.charge(trx, apiKey, file);
        if (sourceDigest) await duplicates.freeExpired(trx, sourceDigest, image.createdAt);
        if (remembered) await idempotency.remember(trx, remembered, image);
      },
    });
    const storeDone = metrics.timeStore();
    try {
      const image = await storing;
      if (screened.verdict.state !== 'none') metrics.moderated(screened.verdict.state);
      return image;
    } catch (error) {
      // An identical upload of the key was recorded first (the unique index on the digest refused
      // this one, whose files are gone again): this one is its duplicate.
      const twin = sourceDigest && isUniqueViolation(error) ? await duplicates.find(sourceDigest) : null;
      if (!twin) throw error;
      return duplicates.answerFor(apiKey, twin);
    } finally {
      storeDone();
    }
  }

  /**
   * The key entry's default expiration, in seconds. It was checked when the entry was saved; if the
   * configured range has narrowed since, the range wins; a value that no longer parses is ignored.
   */
  function keyDefaultExpiration(apiKey: AuthenticatedKey, limits: ExpirationLimits): number | null {
    if (!apiKey.defaultExpiration) return null;
    try {
      const seconds = expirationSeconds(apiKey.defaultExpiration, { minExpiration: 1, maxExpiration: Number.MAX_SAFE_INTEGER });
      return Math.min(Math.max(seconds, limits.minExpiration), limits.maxExpiration);
    } catch {
      strapi.log.warn(`image-api: key "${apiKey.name}": default expiration "${apiKey.defaultExpiration}" is not one; ignored`);
      return null;
    }
  }

  /** 10. An upload's answer: the API's envelope or imgbb's shape, its text, or a redirect to its viewer page. */
  function answerUpload(ctx: Context, format: Format, dialect: Dialect, image: StoredImage, replayed: boolean) {
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    answerSuccess(ctx, format, {
      message: 'image uploaded',
      json: { image: imageJson(image, getConfig(strapi).timeZone) },
      whole: dialect === 'imgbb' ? imgbbJson(image) : undefined,
      text: image.url,
      location: image.viewerUrl,
    });
  }

  /**
   * `/api/1/delete`: deletes an image uploaded with the key, or with another key of the same owner
   * (docs/api.md, "Deleting an image"). Any other image answers exactly as an unknown one: 404.
   */
  async function deleteImage(walk: Walk, sent: SentParams): Promise<void> {
    const params = checkDeleteParams(sent);
    const key = await authenticate(walk, params.key);
    const image = /^[A-Za-z0-9]{1,12}$/.test(params.id) ? await getService(strapi, 'images').findForRemoval(params.id) : null;
    if (!image || !mayDelete(key, image)) throw errors.imageNotFound();
    await getService(strapi, 'image-removal').remove([image], 'api');
    answerSuccess(walk.ctx, walk.asked.format, { message: 'image deleted', text: 'deleted' });
  }

  /** `/api/1/albums`: the Media Library folders a key may upload to (docs/api.md, "Albums"); always JSON. */
  async function listAlbums(walk: Walk, sent: SentParams): Promise<void> {
    const params = checkAlbumsParams(sent);
    const key = await authenticate(walk, params.key);
    const albums = await getService(strapi, 'media-folder').albumsOf(key.folderId);
    const json = { albums: albums.map(({ id, name, path, imageCount }) => ({ id, name, path, image_count: imageCount })) };
    walk.ctx.set('Cache-Control', 'no-store');
    answerSuccess(walk.ctx, 'json', { message: 'albums', json, text: '' });
  }

  return {
    /** Answers one request of the upload API's routes (`dialect`: the route's, `api` or `imgbb`). */
    handle,
  };
};
