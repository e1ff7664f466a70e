/**
 * Events of API images (docs/events.md): Strapi's own `media.create` and `media.delete`,
 * with the payload Strapi's upload service gives them (`{ media: <file entry> }`, sanitized as it
 * sanitizes), and the plugin's `image-api.image.upload`, `.delete`, `.expire`, `.report` and `.takedown`, registered in
 * Strapi's webhook store so admins pick them in Settings > Webhooks. Both go through `strapi.eventHub`,
 * which the webhook runner listens to.
 *
 * Emitted only after the transaction that stored or removed the image committed, and never awaited by
 * the request: the event hub runs its subscribers one after another, and one of them may be slow.
 * A deletion reads what its events carry before its rows go (snapshot), and emits after they went.
 * The upload service's emitEvent, add and remove it follows are pinned (tests/config/strapi-pins.test.ts).
 */
import type { Core } from '@strapi/strapi';
import { sanitize } from '@strapi/utils';
import { FILE_UID, IMAGE_UID } from '../config/constants';
import { getConfig, getService } from '../get-service';
import { imageJson, type StoredImage } from '../protocol/image-json';
import type { SavedAnswer } from './duplicates';

/** The plugin's webhook events: Strapi's webhook store key, and the event name webhooks subscribe to. */
export const IMAGE_EVENTS = {
  IMAGE_API_IMAGE_UPLOAD: 'image-api.image.upload',
  IMAGE_API_IMAGE_DELETE: 'image-api.image.delete',
  IMAGE_API_IMAGE_EXPIRE: 'image-api.image.expire',
  // Moderation (docs/moderation.md): a viewer's report; a reviewer's takedown (with its reason).
  IMAGE_API_IMAGE_REPORT: 'image-api.image.report',
  IMAGE_API_IMAGE_TAKEDOWN: 'image-api.image.takedown',
} as const;

/** Strapi's upload plugin's names for the same moments. */
const MEDIA_CREATE = 'media.create';
const MEDIA_DELETE = 'media.delete';

/** A report as its event carries it (docs/events.md). */
export interface ReportEvent {
  reason: string;
  text: string | null;
  /** ISO 8601, UTC. */
  created_at: string;
}

/**
 * What deleted an image: `expiry` emits `.expire`, `takedown` (a reviewer's, moderation/review.ts)
 * `.takedown` with its reason, every other cause `.delete` (its `deleted_by`).
 */
export type RemovalCause = 'delete-link' | 'api' | 'image-api-page' | 'content-manager' | 'media-library' | 'expiry' | 'takedown';

/** An image about to be removed, as its events will carry it. */
export interface RemovalSnapshot {
  /** The Media Library file entry as the database has it; null when an editor deleted it already. */
  file: Record<string, unknown> | null;
  image: ReturnType<typeof eventImageJson>;
  keyName: string | null;
}

/**
 * The image JSON (docs/api.md, "The image object") an event carries: as the upload answered it,
 * except the delete link, whose secret only the uploader ever gets (docs/security.md).
 */
const eventImageJson = (image: StoredImage, timeZone: string) => ({ ...imageJson(image, timeZone), delete_url: null });

interface ImageRecord {
  id: number;
  id_encoded: string;
  name: string;
  title: string | null;
  description: string | null;
  nsfw: boolean | number | null;
  views: number | string;
  original_filename: string | null;
  original_exifdata: Record<string, unknown> | string | null;
  expires_at: string | Date | null;
  placeholder: string | null;
  dominant_color: string | null;
  answer: SavedAnswer | string | null;
  createdAt: string | Date;
  file: (Record<string, unknown> & FileFields) | null;
  api_key: { name: string } | null;
}

interface FileFields {
  url: string;
  ext: string;
  mime: string;
  size: number | string;
  width: number;
  height: number;
  provider: string;
  formats?: Record<string, { hash: string; ext: string; mime: string; width: number; height: number; sizeInBytes?: number; size: number; url: string }> | null;
}

const parsed = <T>(value: T | string | null): T | null => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const timeZone = () => getConfig(strapi).timeZone;

  /** Runs `make` after the current request moves on, and emits what it returns; a failure is logged. */
  function emitLater(make: () => Promise<Array<[string, Record<string, unknown>]>>): void {
    setImmediate(() => {
      make()
        .then(async (events) => {
          for (const [name, payload] of events) await strapi.eventHub.emit(name, payload);
        })
        .catch((error: Error) => strapi.log.error(`image-api: an image event was not emitted: ${error?.message ?? error}`));
    });
  }

  /** The file entry as Strapi's upload service puts it in `media.*` events. */
  const sanitizedFile = (file: Record<string, unknown>) =>
    sanitize.sanitizers.defaultSanitizeOutput({ schema: strapi.getModel(FILE_UID), getModel: (uid: string) => strapi.getModel(uid as never) }, file as never);

  /**
   * The stored image of a record, for an event: the answer its upload recorded, with what editors may
   * have changed since (title, description, nsfw), its views and expiry as now. A record older than
   * recorded answers is described from its file entry (bits and channels then unknown: 8 and null).
   */
  function storedImageOf(record: ImageRecord): StoredImage {
    const publicUrl = getService(strapi, 'public-url');
    const answer = parsed(record.answer);
    const current = {
      title: record.title ?? null,
      description: record.description ?? null,
      nsfw: Boolean(Number(record.nsfw ?? 0)),
      views: Number(record.views),
      expiresAt: record.expires_at ? new Date(record.expires_at) : null,
      deleteUrl: '',
    };
    if (answer) return { ...answer, ...current, createdAt: new Date(answer.createdAt) };
    const file = record.file;
    const variant = (key: string) => {
      const format = file?.formats?.[key];
      return {
        name: format?.hash ?? '',
        extension: (format?.ext ?? '').replace(/^\./, ''),
        mime: format?.mime ?? '',
        width: format?.width ?? 0,
        height: format?.height ?? 0,
        size: format?.sizeInBytes ?? Math.round(Number(format?.size ?? 0) * 1000),
        bits: 8,
        channels: null,
        url: publicUrl.fileUrl(format?.url ?? ''),
      };
    };
    return {
      ...current,
      name: record.name,
      extension: (file?.ext ?? '').replace(/^\./, ''),
      mime: file?.mime ?? '',
      width: file?.width ?? 0,
      height: file?.height ?? 0,
      size: Math.round(Number(file?.size ?? 0) * 1000),
      bits: 8,
      channels: null,
      url: publicUrl.fileUrl(file?.url ?? ''),
      idEncoded: record.id_encoded,
      md5: '',
      originalFilename: record.original_filename ?? '',
      originalExif: parsed(record.original_exifdata),
      createdAt: new Date(record.createdAt),
      storage: file?.provider ?? '',
      viewerUrl: publicUrl.viewer(record.id_encoded),
      thumb: variant('thumbnail'),
      medium: variant('medium'),
      placeholder: record.placeholder ?? '',
      dominantColor: record.dominant_color ?? '',
    };
  }

  async function snapshot(imageIds: number[]): Promise<RemovalSnapshot[]> {
    if (imageIds.length === 0) return [];
    const records: ImageRecord[] = await strapi.db.query(IMAGE_UID).findMany({
      where: { id: { $in: imageIds } },
      populate: { file: true, api_key: { select: ['name'] } },
    });
    return records.map((record) => ({
      file: record.file ?? null,
      image: eventImageJson(storedImageOf(record), timeZone()),
      keyName: record.api_key?.name ?? null,
    }));
  }

  return {
    /** Lets admins pick the plugin's events in Settings > Webhooks (an unregistered event is refused there). */
    registerWebhookEvents(): void {
      const store = strapi.get('webhookStore');
      for (const [key, name] of Object.entries(IMAGE_EVENTS)) store.addAllowedEvent(key, name);
    },

    /** An upload committed: `media.create` with its file entry, then `image-api.image.upload`. */
    uploaded(fileId: number, image: StoredImage, keyName: string | null): void {
      emitLater(async () => {
        const file = await strapi.db.query(FILE_UID).findOne({ where: { id: fileId } });
        return [
          ...(file ? [[MEDIA_CREATE, { media: await sanitizedFile(file) }] as [string, Record<string, unknown>]] : []),
          [IMAGE_EVENTS.IMAGE_API_IMAGE_UPLOAD, { image: eventImageJson(image, timeZone()), key_name: keyName }],
        ];
      });
    },

    /** What the events of removing these image records will carry, read before their rows go. */
    snapshot,

    /**
     * A viewer's report was stored: `image-api.image.report` with the image as it is now, its key's
     * name, and the report (reason, text, when): never who sent it.
     */
    reported(imageId: number, report: ReportEvent): void {
      emitLater(async () => {
        const [found] = await snapshot([imageId]);
        return found ? [[IMAGE_EVENTS.IMAGE_API_IMAGE_REPORT, { image: found.image, key_name: found.keyName, report }]] : [];
      });
    },

    /**
     * Their removal committed: `media.delete` for each file entry (unless the Media Library deleted it:
     * Strapi emitted that one), then `image-api.image.expire`, `.takedown` (with the reviewer's
     * `reason`) or `.delete`.
     */
    removed(snapshots: RemovalSnapshot[], cause: RemovalCause, reason: string | null = null): void {
      if (snapshots.length === 0) return;
      emitLater(async () => {
        const events: Array<[string, Record<string, unknown>]> = [];
        for (const { file, image, keyName } of snapshots) {
          if (file && cause !== 'media-library') events.push([MEDIA_DELETE, { media: await sanitizedFile(file) }]);
          if (cause === 'expiry') events.push([IMAGE_EVENTS.IMAGE_API_IMAGE_EXPIRE, { image, key_name: keyName }]);
          else if (cause === 'takedown') events.push([IMAGE_EVENTS.IMAGE_API_IMAGE_TAKEDOWN, { image, key_name: keyName, reason }]);
          else events.push([IMAGE_EVENTS.IMAGE_API_IMAGE_DELETE, { image, key_name: keyName, deleted_by: cause }]);
        }
        return events;
      });
    },
  };
};
