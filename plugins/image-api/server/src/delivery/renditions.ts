/**
 * Transformation results, rendered once and kept (docs/api.md, "Transformations"): through the upload provider (local
 * disk or S3, so a repeat on any instance is a read, not a render), named by a row of `rendition`
 * whose key is what makes the bytes (the source file, the plan with its crop, the encoding). A moved
 * focal point moves the crop, so it makes a new key: an old crop is never served for it.
 *
 * - Concurrent requests for one result on this instance share one render.
 * - A render takes a ticket of the render gate (operations/render-gate.ts: 503/429 past its limits, apart
 *   from the uploads') and a render slot of the image work (images/image-work.ts: fewer than uploads
 *   have), so renders asked for by strangers never refuse or hold up keyed uploads.
 * - The answer goes as soon as the pixels are ready; the result is kept after it (settled() waits).
 *   A result is written once: not while this instance keeps it already, nor once its row is there
 *   (the local provider writes a file in place, so a second write would cut it short under readers).
 * - A kept result is read back whole only when the hot bytes keep it (delivery/hot-file-cache.ts); a larger
 *   one is streamed from the provider's file, each request its own stream, so slow readers hold a
 *   chunk each, not a copy of the result.
 * - Complete or absent: the journal names the file before it is written; the row is recorded with the
 *   image's row locked, so a deletion either sees the row and takes it, or went first and the render
 *   is refused and its file removed (storage/image-removal.ts takes an image's rows in its transaction).
 * - `transformCacheBytes`: past it, the least recently used go (maintain(), run every EVICT_EVERY_MS).
 */
import crypto from 'crypto';
import { promises as fsp } from 'fs';
import type { Core } from '@strapi/strapi';
import { IMAGE_UID, RENDITION_UID } from '../config/constants';
import { getConfig, getService } from '../get-service';
import { createRowWriter, type Knex } from '../database/sql-rows';
import { transaction } from '../database/transaction';
import { isUniqueViolation } from '../database/unique-violation';
import { databaseClock } from '../database/database-clock';
import { runRenderWork } from '../images/image-work';
import { keptResultName } from '../images/naming';
import { periodic } from '../operations/periodic';
import { render, sourceSize, type Rendered } from './render';
import { renderAnimation } from './animated-render';
import { isAnimatedFormat } from '../images/animation-encoding';
import type { RenderPlan } from '../../../shared/render-plan';
import type { OutputFormat } from './transform-options';
import type { HotEntry } from './hot-file-cache';
import type { ImmutableBytes } from './immutable-answer';
import { refusalError } from '../operations/request-gate';
import { rendersPerAddress } from '../operations/render-gate';
import { shareTicket } from '../operations/request-gate';
import { isFileMissing, providerFile } from '../storage/media-store';
import { errors } from '../http/api-error';
import { renditionJournalName, type JournalledFile, type KeptFile } from '../storage/journal';
import type { NamedFile } from './image-sources';

/** What a transformation asks of one source file. */
export interface RenditionRequest {
  source: NamedFile;
  plan: RenderPlan;
  format: OutputFormat;
  quality: number;
  /** Frames rendered: an animated source's when the result is animated too (GIF, WebP), else 1. */
  frames: number;
  /** The plan for the source's real size, should its header disagree with its record. */
  replan: (size: { width: number; height: number }) => RenderPlan;
}

/** A kept result's row, as a deletion takes it. */
interface RenditionRow {
  id: number;
  key: string;
  image_name: string;
  hash: string;
  ext: string;
  url: string;
  size: number;
}

/** How often usage is written and the byte budget enforced. */
const EVICT_EVERY_MS = 60_000;
/**
 * The largest source a render may borrow the uploads' image-work slot for: a phone's photo. A 24 MP
 * JPEG renders in about 0.1 s (shrunk on load); a 100 MP PNG, which has no shrink-on-load, takes
 * seconds, and an upload would wait for it.
 */
const BORROW_MAX_PIXELS = 24_000_000;

/** Results evicted per statement. */
const EVICT_BATCH = 100;

/**
 * The key: SHA-256 of everything the bytes depend on. An animated result is marked (a still of its
 * first frame was kept under the same options before animations were rendered); nothing else changes,
 * so every other kept result keeps its key.
 */
export function renditionKey({ source, plan, format, quality, frames }: Omit<RenditionRequest, 'replan'>): string {
  const { hash, ext } = source.file;
  const what = { v: 1, file: `${hash}${ext}`, plan, format, quality };
  return crypto.createHash('sha256').update(JSON.stringify(frames > 1 ? { ...what, animated: true } : what)).digest('hex');
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);
  const table = () => rows.model(RENDITION_UID).tableName;
  const column = (uid: string, attribute: string) => rows.model(uid).attributes[attribute]?.columnName ?? attribute;
  const clock = databaseClock(strapi);
  const inFlight = new Map<string, Promise<ImmutableBytes>>();
  /** Results being written and recorded after their answer went. */
  const pendingKeeps = new Set<Promise<unknown>>();
  /** The keys of the results being kept (keep()): one write of a result at a time. */
  const keeping = new Set<string>();
  /** Keys served since the last write of `last_used_at` (written by the periodic job, not per request). */
  const used = new Set<string>();
  const sqlite = () => strapi.db.dialect.client === 'sqlite';

  const etagOf = (key: string) => `"${key.slice(0, 32)}"`;
  const entryOf = (key: string, bytes: Buffer, mime: string, createdAt: Date): HotEntry => ({ bytes, type: mime, etag: etagOf(key), lastModified: createdAt });
  const served = (entry: HotEntry): ImmutableBytes => ({ ...entry, size: entry.bytes.length });

  /**
   * The kept result of `key`: its bytes when the hot bytes keep them, else a stream of its file;
   * null: none (render it); 'file-gone': its row is there but not its file (render it, write it again).
   */
  async function findKept(key: string): Promise<ImmutableBytes | null | 'file-gone'> {
    const row = await strapi.db.connection(table()).where(column(RENDITION_UID, 'key'), key).first();
    if (!row) return null;
    const store = getService(strapi, 'media-store');
    const file = { hash: row.hash, ext: row.ext, url: row.url };
    const createdAt = new Date(row[column(RENDITION_UID, 'createdAt')] ?? Date.now());
    const local = store.localPath(file);
    // The file is gone (evicted or removed meanwhile): render it again.
    const size = local ? (await fsp.stat(local).catch(() => null))?.size : Number(row.size);
    if (size === undefined) return 'file-gone';
    if (getService(strapi, 'hot-files').fits(size)) {
      const bytes = await store.read(file).catch(() => null);
      return bytes ? served(entryOf(key, bytes, row.mime, createdAt)) : 'file-gone';
    }
    // Gone since its row was read (evicted meanwhile), or unreadable (a private bucket): it throws
    // isFileMissing(), and the request is answered by a render (get()'s `skipKept`).
    const open = (start: number, end: number) => store.stream(file, start === 0 && end === size - 1 ? undefined : { start, end });
    return { bytes: null, size, open, type: row.mime, etag: etagOf(key), lastModified: createdAt };
  }

  /** Records the kept file, unless its image went meanwhile (then: false). */
  async function record(key: string, request: RenditionRequest, file: ReturnType<typeof providerFile>, journalId: number, renderedAt: Date): Promise<boolean> {
    const journal = getService(strapi, 'journal');
    return transaction(strapi, async (trx) => {
      // The image's row locked until this commits: a deletion waits, then takes this row too.
      const lookup = trx(rows.model(IMAGE_UID).tableName).where(column(IMAGE_UID, 'name'), request.source.image.name);
      const image = await (sqlite() ? lookup : lookup.forUpdate()).first('id');
      if (!image) return false;
      const now = clock.now();
      const row = rows.toRow(RENDITION_UID, {
        key,
        image_name: request.source.image.name,
        hash: file.hash,
        ext: file.ext,
        mime: file.mime,
        size: file.sizeInBytes,
        width: file.width,
        height: file.height,
        url: file.url ?? '',
        provider_metadata: file.provider_metadata ?? null,
        last_used_at: now,
        // The render's time: its Last-Modified, the same from every instance that reads it back.
        createdAt: renderedAt,
        updatedAt: now,
        publishedAt: now,
      });
      await rows.insert(trx, table(), row);
      await journal.close(journalId, trx);
      return true;
    });
  }

  /**
   * Writes and records a rendered result, unless it is being kept here already or is kept (a second
   * render began before the first one's row was there). `rewrite`: its row is there but its file
   * could not be read: written again.
   */
  async function keep(key: string, request: RenditionRequest, rendered: Rendered, renderedAt: Date, rewrite: boolean): Promise<void> {
    if (keeping.has(key)) return;
    keeping.add(key);
    try {
      if (!rewrite && (await strapi.db.connection(table()).where(column(RENDITION_UID, 'key'), key).first('id'))) return;
      await writeAndRecord(key, request, rendered, renderedAt);
    } finally {
      keeping.delete(key);
    }
  }

  /** Writes the result through the provider and records it; complete or absent (see the module comment). */
  async function writeAndRecord(key: string, request: RenditionRequest, rendered: Rendered, renderedAt: Date): Promise<void> {
    const file = providerFile(rendered, keptResultName(request.source.image.name, key));
    const journal = getService(strapi, 'journal');
    const store = getService(strapi, 'media-store');
    const files: JournalledFile[] = [{ hash: file.hash, ext: file.ext }];
    const journalId = await journal.open(renditionJournalName(key), files);
    try {
      await store.put(file, rendered.buffer);
      // Its image went meanwhile: the result goes too.
      if (!(await record(key, request, file, journalId, renderedAt))) throw Object.assign(new Error('its image was deleted meanwhile'), { gone: true });
    } catch (error) {
      // Another instance kept the same result first: the file (same name, same bytes) is its.
      if (isUniqueViolation(error)) {
        await journal.close(journalId).catch(() => undefined);
        return;
      }
      if (await store.remove(files)) await journal.close(journalId).catch(() => undefined);
      if ((error as { gone?: boolean }).gone) return;
      throw error;
    }
  }

  async function renderAndKeep(key: string, request: RenditionRequest, address: string, keepIt: boolean, rewrite: boolean): Promise<ImmutableBytes> {
    const config = getConfig(strapi);
    const metrics = getService(strapi, 'metrics');
    const ticket = getService(strapi, 'render-gate').enter(0, address);
    if (typeof ticket === 'string') {
      metrics.refused(ticket);
      throw refusalError(ticket, rendersPerAddress(config), 'renders');
    }
    const renderDone = metrics.timeRender();
    let rendered: Rendered;
    try {
      const store = getService(strapi, 'media-store');
      // Deleted since it was looked up (before the read, or while libvips read it): 404.
      const gone = async (error: unknown): Promise<never> => {
        if (isFileMissing(error)) throw errors.imageNotFound();
        const stillThere = await store.source(request.source.file).then(() => true, (missing) => !isFileMissing(missing));
        throw stillThere ? error : errors.imageNotFound();
      };
      // A still of a source up to BORROW_MAX_PIXELS may borrow the uploads' slot while no upload
      // wants it (images/image-work.ts): an upload then waits for that one render at most.
      const animated = request.frames > 1 && isAnimatedFormat(request.format);
      const borrow = !animated && request.source.file.width * request.source.file.height <= BORROW_MAX_PIXELS;
      // The source's bytes are read inside the slot: at most the slots' sources are held at once. They
      // sit in a buffer the next render reuses once this work settles: every sharp call in it is
      // awaited, and nothing here may race it or stop waiting for it (a timeout) while libvips reads.
      rendered = await runRenderWork(
        () =>
          store.withSource(request.source.file, async (source) => {
            // The plan was made from the recorded size; the file's own header has the last word.
            const size = await sourceSize(source, config.maxPixels);
            const recorded = request.source.file;
            const plan = size.width === recorded.width && size.height === recorded.height ? request.plan : request.replan(size);
            const settings = { format: request.format, quality: request.quality, defaultQuality: config.jpegQuality };
            if (animated && isAnimatedFormat(settings.format)) {
              return renderAnimation(source, plan, { ...settings, format: settings.format }, { ...size, frames: request.frames });
            }
            return render(source, plan, settings, config.maxPixels);
          }),
        { borrow }
      ).catch(gone);
      // A render that outlived its lookup of the image (kept SOURCE_TTL_MS) answers only if the image
      // is still there: deleted meanwhile, its purges may have gone by, and a cache in front would
      // keep this answer for a month. A render within the lookup's second is covered by the purge's
      // second round (purge/purge-journal.ts).
      const sources = getService(strapi, 'image-sources');
      const still = await sources.byName(request.source.image.name);
      if (!still || !sources.isLive(still)) throw errors.imageNotFound();
      metrics.transformAnswered('render');
    } catch (error) {
      ticket.leave();
      throw error;
    } finally {
      renderDone();
    }
    // Held by every answer that sends these bytes, until it is done: a client that stops reading
    // keeps a render's ticket, so the render gate bounds the results waiting to be sent too.
    const lease = shareTicket(ticket);

    // Kept after the answer: a client waits for its pixels, not for the storage write and the four
    // SQL statements that record it (waiting for them cost a third of the render rate in
    // bench:delivery). Whole seconds, as HTTP dates are.
    const renderedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    if (!keepIt) return { ...served(entryOf(key, rendered.buffer, rendered.mime, renderedAt)), lease };
    const kept = keep(key, request, rendered, renderedAt, rewrite).catch((error) =>
      strapi.log.warn(`image-api: a transformation result was not kept: ${(error as Error)?.message ?? error}`)
    );
    pendingKeeps.add(kept);
    void kept.finally(() => pendingKeeps.delete(kept));
    return { ...served(entryOf(key, rendered.buffer, rendered.mime, renderedAt)), lease };
  }

  /** Resolves once every result rendered so far is kept (or given up). */
  async function settled(): Promise<void> {
    while (pendingKeeps.size > 0) await Promise.allSettled([...pendingKeeps]);
  }

  /** Writes the usage noted since the last run, then evicts past the byte budget. */
  async function maintain(): Promise<number> {
    const keys = [...used];
    used.clear();
    if (keys.length > 0) {
      await strapi.db.connection(table()).whereIn(column(RENDITION_UID, 'key'), keys).update({ [column(RENDITION_UID, 'last_used_at')]: clock.now() });
    }
    const budget = getConfig(strapi).transformCacheBytes;
    if (budget === null) return 0;
    const sizeColumn = column(RENDITION_UID, 'size');
    const total = Number((await strapi.db.connection(table()).sum({ total: sizeColumn }).first())?.total ?? 0);
    let excess = total - budget;
    let evicted = 0;
    while (excess > 0) {
      const oldest: RenditionRow[] = await strapi.db.connection(table()).orderBy(column(RENDITION_UID, 'last_used_at')).limit(EVICT_BATCH);
      if (oldest.length === 0) break;
      const batch: RenditionRow[] = [];
      for (const row of oldest) {
        if (excess <= 0) break;
        batch.push(row);
        excess -= Number(row.size);
      }
      await remove(batch);
      evicted += batch.length;
    }
    return evicted;
  }
  const job = periodic(maintain, (error) => strapi.log.warn(`image-api: kept transformations upkeep failed: ${(error as Error)?.message ?? error}`));

  /** Deletes rows (journalled first) and then their files. */
  async function remove(batch: RenditionRow[]): Promise<void> {
    if (batch.length === 0) return;
    const journal = getService(strapi, 'journal');
    const names = batch.map((row) => renditionJournalName(row.key));
    await journal.openMany(batch.map((row) => ({ name: renditionJournalName(row.key), files: [{ hash: row.hash, ext: row.ext }] })));
    await strapi.db.connection(table()).whereIn('id', batch.map((row) => row.id)).del();
    if (await getService(strapi, 'media-store').remove(batch.map(({ hash, ext }) => ({ hash, ext })))) await journal.closeNames(names);
  }

  return {
    /**
     * The result: kept (its bytes, or a stream of its file), or rendered now (and kept). `keep:
     * false`: rendered and answered, not kept (an unsigned URL that is not presets alone).
     * `skipKept`: its kept file could not be read; rendered, and its file written again.
     */
    async get(
      request: RenditionRequest,
      address: string,
      { keep: keepIt = true, skipKept = false }: { keep?: boolean; skipKept?: boolean } = {}
    ): Promise<ImmutableBytes> {
      const key = renditionKey(request);
      const hot = getService(strapi, 'hot-files');
      const cached = hot.get(key);
      // Hits are what the budget's "recently used" counts (a new result is recorded as used).
      if (cached) {
        used.add(key);
        getService(strapi, 'metrics').transformAnswered('hit');
        return served(cached);
      }
      // A render asked for past an unreadable kept file joins only another such render.
      const flight = skipKept ? `${key}:render` : key;
      let pending = inFlight.get(flight);
      if (!pending) {
        const keptOrRendered = async () => {
          const kept = skipKept ? 'file-gone' : await findKept(key);
          if (kept === null || kept === 'file-gone') return renderAndKeep(key, request, address, keepIt, kept === 'file-gone');
          used.add(key);
          getService(strapi, 'metrics').transformAnswered('hit');
          return kept;
        };
        pending = keptOrRendered()
          .then((entry) => {
            if (entry.bytes) hot.keep(key, { bytes: entry.bytes, type: entry.type, etag: entry.etag, lastModified: entry.lastModified }, request.source.image.name);
            return entry;
          })
          .finally(() => inFlight.delete(flight));
        inFlight.set(flight, pending);
      }
      return pending;
    },

    /** Counts a hit answered elsewhere (the fast path) as a use, for the byte budget. */
    touch(key: string): void {
      used.add(key);
      getService(strapi, 'metrics').transformAnswered('hit');
    },

    /**
     * In a deletion's transaction: deletes the kept results of these images and journals their
     * files (named after their image, as its own files are); returns the files, to remove once it
     * commits.
     */
    async takeFor(trx: Knex, imageNames: string[]): Promise<Map<string, KeptFile[]>> {
      const taken = new Map<string, KeptFile[]>();
      if (imageNames.length === 0) return taken;
      const query = trx(table()).whereIn(column(RENDITION_UID, 'image_name'), imageNames).select('id', column(RENDITION_UID, 'image_name'), 'hash', 'ext', 'url');
      const found: RenditionRow[] = await (sqlite() ? query : query.forUpdate());
      if (found.length === 0) return taken;
      for (const row of found) taken.set(row.image_name, [...(taken.get(row.image_name) ?? []), { hash: row.hash, ext: row.ext, url: row.url }]);
      await trx(table()).whereIn('id', found.map((row) => row.id)).del();
      await getService(strapi, 'journal').openMany([...taken].map(([name, files]) => ({ name, files: files.map(({ hash, ext }) => ({ hash, ext })) })), trx);
      return taken;
    },

    /** Writes usage and enforces the byte budget now (a run under way is joined); returns the results evicted. */
    maintain: (): Promise<number> => job.run(),
    start: (): void => job.start(EVICT_EVERY_MS, () => []),
    settled,
    async stop(): Promise<void> {
      await settled();
      await job.stop();
    },
  };
};
