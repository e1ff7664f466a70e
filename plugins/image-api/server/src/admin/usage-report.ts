/**
 * What the admin's "Image API" page shows: totals, uploads and views per day, each key's use, the
 * most viewed and the latest images. Every query is bounded by the number of days and keys, or
 * reads a few rows through an index (images by `views`, by `created_at`), so the page costs the same
 * at a thousand images as at a million. The answers' types are shared with the admin page
 * (shared/contracts/usage.ts).
 */
import type { Core } from '@strapi/strapi';
import { API_KEY_UID, IMAGE_UID } from '../config/constants';
import { dayOf } from '../storage/usage-tally';
import { getConfig, getService } from '../get-service';
import { presetOptions, readOptions } from '../delivery/transform-options';
import type { DayUsage, ImageCard, KeyHolding, KeySummary, Overview } from '../../../shared/contracts/usage';
import { presetWidth, type ServingAnswer } from '../../../shared/contracts/serving';
import type { Geometry } from '../../../shared/render-plan';

/** A key entry's fields that say what it holds against its quotas. */
const HOLDING_FIELDS = ['live_images', 'live_bytes', 'quota_images', 'quota_bytes'];

const holdingOf = (key: Record<string, unknown>): KeyHolding => ({
  images: Number(key.live_images ?? 0),
  bytes: Number(key.live_bytes ?? 0),
  quotaImages: key.quota_images == null ? null : Number(key.quota_images),
  quotaBytes: key.quota_bytes == null ? null : Number(key.quota_bytes),
});

const DAY_MS = 86_400_000;

/** The last `count` UTC days, oldest first, ending today. */
export const lastDays = (count: number, now = new Date()): string[] =>
  Array.from({ length: count }, (_, i) => dayOf(new Date(now.getTime() - (count - 1 - i) * DAY_MS)));

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = () => strapi.db.connection;
  const usage = () => getService(strapi, 'usage-tally').table();

  /** Per day over `days` (zeros filled in), for one key or all. */
  async function perDay(days: string[], keyId?: number): Promise<DayUsage[]> {
    const query = knex()(usage())
      .select('day')
      .sum({ uploads: 'uploads', views: 'views', bytes: 'bytes_added' })
      .where('day', '>=', days[0])
      .groupBy('day');
    if (keyId !== undefined) query.andWhere('key_id', keyId);
    const found = new Map((await query).map((row: Record<string, unknown>) => [String(row.day), row]));
    return days.map((day) => {
      const row = found.get(day);
      return { day, uploads: Number(row?.uploads ?? 0), views: Number(row?.views ?? 0), bytesAdded: Number(row?.bytes ?? 0) };
    });
  }

  async function images(orderBy: Record<string, 'desc'>, limit: number, withKeys: boolean, now: Date, where: Record<string, unknown> = {}): Promise<ImageCard[]> {
    const records = await strapi.db.query(IMAGE_UID).findMany({
      // Held images are the reviewers' (moderation/review.ts), not the dashboard's.
      where: { $and: [{ $or: [{ expires_at: null }, { expires_at: { $gt: now } }] }, { $or: [{ moderation: null }, { moderation: { $ne: 'held' } }] }], ...where },
      orderBy,
      limit,
      select: ['id', 'documentId', 'id_encoded', 'title', 'original_filename', 'views', 'createdAt', 'expires_at', 'placeholder', 'dominant_color'],
      populate: { file: { select: ['url', 'formats', 'width', 'height'] }, ...(withKeys ? { api_key: { select: ['id', 'name'] } } : {}) },
    });
    const publicUrl = getService(strapi, 'public-url');
    return records.map((record: Record<string, any>) => ({
      idEncoded: record.id_encoded,
      documentId: record.documentId,
      title: record.title ?? null,
      originalFilename: record.original_filename ?? null,
      views: Number(record.views),
      createdAt: new Date(record.createdAt).toISOString(),
      expiresAt: record.expires_at ? new Date(record.expires_at).toISOString() : null,
      thumbUrl: record.file?.formats?.thumbnail?.url ?? record.file?.url ?? null,
      viewerUrl: publicUrl.viewer(record.id_encoded),
      url: record.file?.url ? publicUrl.fileUrl(record.file.url) : null,
      width: record.file?.width ?? null,
      height: record.file?.height ?? null,
      placeholder: record.placeholder ?? null,
      dominantColor: record.dominant_color ?? null,
      key: withKeys && record.api_key ? { id: record.api_key.id, name: record.api_key.name } : null,
    }));
  }

  return {
    /**
     * Where transformations are (`{base}{transformPath}`) and the presets usable there unsigned, each
     * with the geometry delivery reads in it: the admin describes each preset URL in a srcset by the
     * width it renders (shared/contracts/serving.ts).
     */
    serving(): ServingAnswer {
      const { transformPath, transformPresets } = getConfig(strapi);
      const geometryOf = (definition: string): Geometry | null => {
        try {
          const { resizingType, width, height, dpr, enlarge, gravity } = readOptions(presetOptions(definition), transformPresets).spec;
          return { resizingType, width, height, dpr, enlarge, gravity };
        } catch {
          return null;
        }
      };
      return {
        transformBase: transformPath === null ? null : `${getService(strapi, 'public-url').base()}${transformPath}`,
        presets: Object.entries(transformPresets).map(([name, definition]) => ({
          name,
          definition,
          width: presetWidth(definition),
          geometry: geometryOf(definition),
        })),
      };
    },

    /** The page's overview. Key names on images only for those who may see keys. */
    async overview({ days: count = 30, withKeys = false, now = new Date() } = {}): Promise<Overview> {
      const days = lastDays(count, now);
      const [series, [totals]] = await Promise.all([
        perDay(days),
        knex()(usage()).sum({ uploads: 'uploads', removals: 'removals', added: 'bytes_added', removed: 'bytes_removed', views: 'views', viewsRemoved: 'views_removed' }),
      ]);
      const sum = (field: keyof DayUsage) => series.reduce((total, day) => total + Number(day[field]), 0);
      return {
        days: series,
        totals: {
          images: Number(totals?.uploads ?? 0) - Number(totals?.removals ?? 0),
          storageBytes: Number(totals?.added ?? 0) - Number(totals?.removed ?? 0),
          // Of the images there are, as the most viewed list is: a deleted image's views leave with it.
          views: Math.max(0, Number(totals?.views ?? 0) - Number(totals?.viewsRemoved ?? 0)),
          uploadsInWindow: sum('uploads'),
          viewsInWindow: sum('views'),
        },
        // Only images seen at least once: with none, the page says so rather than listing unseen ones.
        topViewed: await images({ views: 'desc' }, 8, withKeys, now, { views: { $gt: 0 } }),
        recent: await images({ createdAt: 'desc' }, 24, withKeys, now),
      };
    },

    /** Every key with its status and use over the window (keys are few: issued by hand). */
    async keys({ days: count = 30, now = new Date() } = {}): Promise<KeySummary[]> {
      const days = lastDays(count, now);
      const inWindow = new Map(
        (await knex()(usage()).select('key_id').sum({ uploads: 'uploads' }).where('day', '>=', days[0]).groupBy('key_id')).map(
          (row: Record<string, unknown>) => [Number(row.key_id), Number(row.uploads)]
        )
      );
      const keys = await strapi.db.query(API_KEY_UID).findMany({
        select: [
          'id', 'documentId', 'name', 'active', 'key_prefix', 'key_last4', 'expires_at', 'last_used_at', 'upload_count',
          ...HOLDING_FIELDS,
        ],
        orderBy: { name: 'asc' },
      });
      const iso = (value: unknown) => (value ? new Date(value as string).toISOString() : null);
      return keys.map((key: Record<string, any>) => ({
        id: key.id,
        documentId: key.documentId,
        name: key.name,
        status: !key.active ? 'revoked' : key.expires_at && new Date(key.expires_at) <= now ? 'expired' : 'active',
        prefix: key.key_prefix ?? null,
        last4: key.key_last4 ?? null,
        expiresAt: iso(key.expires_at),
        lastUsedAt: iso(key.last_used_at),
        uploads: Number(key.upload_count ?? 0),
        uploadsInWindow: inWindow.get(key.id) ?? 0,
        holding: holdingOf(key),
      }));
    },

    /** What one key holds against its quotas, by its document id; null for an unknown key. */
    async keyHolding(documentId: string): Promise<KeyHolding | null> {
      const key = await strapi.db.query(API_KEY_UID).findOne({ where: { documentId }, select: HOLDING_FIELDS });
      return key ? holdingOf(key) : null;
    },

    /** One key's uploads and views per day, by its document id; null for an unknown key. */
    async keyUsage(documentId: string, { days: count = 30, now = new Date() } = {}): Promise<DayUsage[] | null> {
      const key = await strapi.db.query(API_KEY_UID).findOne({ where: { documentId }, select: ['id'] });
      if (!key) return null;
      return perDay(lastDays(count, now), key.id);
    },
  };
};
