/**
 * How the Content Manager shows API keys and API images: human labels and hints, the list columns
 * that matter, server-kept fields read-only, no empty JSON editor. Strapi generates a layout from the
 * schema (snake_case labels, the first few attributes as columns, everything editable); this replaces
 * it once per LAYOUT_VERSION, so a fresh app gets it and an admin's later changes in "Configure the
 * view" stay until the plugin ships a new version of it.
 *
 * The server refuses writes to server-kept fields whatever the view shows
 * (admin/field-protection.ts); read-only here is what the editor sees. The labels and hints are
 * English; the admin shows them in the admin's language from admin/src/translations (`cm.*`; the
 * translations test holds them to these).
 */
import type { Core } from '@strapi/strapi';
import { API_KEY_UID, IMAGE_UID, PLUGIN_ID } from '../config/constants';

/** Bump when the tables below change: apps that have the previous version get the new one at boot. */
export const LAYOUT_VERSION = 5;

interface FieldView {
  label: string;
  description?: string;
  placeholder?: string;
  /** Read-only in the edit view. */
  readOnly?: boolean;
  /** Left out of the edit view. */
  hidden?: boolean;
  /** The column's heading when it differs from the label. */
  column?: string;
  /** For relations: the related entry's field shown. */
  mainField?: string;
}

interface TypeView {
  settings: Record<string, unknown>;
  fields: Record<string, FieldView>;
  /** The list view's columns, in order. */
  list: string[];
  /** The edit view's rows: [field, width in twelfths]. */
  edit: Array<Array<[string, number]>>;
}

const OWNER_USER: FieldView = {
  label: 'Owner (site user)',
  description: "A Users & Permissions user the images belong to, for your own front end. Unrelated to the admin owner.",
};

export const VIEWS: Record<string, TypeView> = {
  [API_KEY_UID]: {
    settings: { mainField: 'name', defaultSortBy: 'createdAt', defaultSortOrder: 'DESC', pageSize: 20 },
    fields: {
      name: { label: 'Name', description: 'Who or what the key is for. Unique.' },
      description: { label: 'Description', description: "The requester's stated use of the API." },
      contact: { label: 'Contact', description: 'How to reach the requester (email, handle).' },
      active: { label: 'Active', description: 'Off: every request with the key is refused (403, "API key revoked") at once.' },
      expires_at: { label: 'Key expires', column: 'Expires', description: 'From then on the key is refused. Empty: never.' },
      rate_limit: {
        label: 'Rate limit',
        description: 'Uploads per window, comma-separated: "100/minute,2000/day"; or "off". Empty: the plugin\'s default.',
        placeholder: '100/minute,2000/day',
      },
      default_expiration: {
        label: 'Default image expiry',
        description: 'How long the key\'s uploads live when they ask none: seconds (86400) or ISO 8601 (P30D). Empty: forever.',
        placeholder: 'P30D',
      },
      folder: {
        label: 'Media Library folder',
        description: 'Where the key\'s uploads go; its subfolders are the key\'s albums. Empty: "API uploads".',
        mainField: 'name',
      },
      owner: {
        label: 'Owner (admin)',
        description: 'Shown as "created by" of the key\'s uploads in the Media Library. Empty: the admin who issued the key.',
        mainField: 'email',
      },
      owner_user: OWNER_USER,
      key_prefix: { label: 'Key starts with', column: 'Key starts', readOnly: true, description: 'Set by the server. The key itself is in the panel on the right.' },
      key_last4: { label: 'Key ends with', column: 'Key ends', readOnly: true, description: 'Set by the server.' },
      last_used_at: { label: 'Last used', readOnly: true, description: 'Set by the server at each accepted upload.' },
      upload_count: { label: 'Uploads', readOnly: true, description: 'Accepted uploads; set by the server.' },
      duplicates: {
        label: 'Duplicates',
        description: 'An upload of bytes the key stored before (still live): store it again, reuse the earlier image, or refuse it (409).',
      },
      quota_images: { label: 'Quota (images)', description: 'Most live images the key may hold; past it uploads get 403 (code 105). Empty: no cap.' },
      quota_bytes: {
        label: 'Quota (bytes)',
        description: 'Most bytes its live images may take, every stored file counted (5 GB: 5000000000). Empty: no cap.',
        placeholder: '5000000000',
      },
      moderation: {
        label: 'Moderation',
        description: 'An upload scored NSFW past the threshold (or sent with nsfw=1): off (not classified), flag (its page asks before showing it), hold (404 until an admin approves it), refuse (422). Empty: the plugin\'s default.',
      },
      moderation_threshold: {
        label: 'Moderation threshold',
        description: 'The NSFW score, from 0 to 1, the moderation acts at (0.8: the classifier is 80 % sure). Empty: the plugin\'s default.',
        placeholder: '0.8',
      },
      live_images: { label: 'Live images', column: 'Images', readOnly: true, description: 'What the key holds now; set by the server.' },
      live_bytes: { label: 'Live bytes', readOnly: true, description: 'Bytes of every stored file of its live images; set by the server.' },
      images: { label: 'Images', readOnly: true, description: 'Uploaded with this key.', mainField: 'id_encoded' },
    },
    list: ['name', 'active', 'key_prefix', 'key_last4', 'expires_at', 'last_used_at', 'upload_count', 'live_images'],
    edit: [
      [['name', 6], ['active', 4]],
      [['description', 6], ['contact', 6]],
      [['expires_at', 6], ['rate_limit', 6]],
      [['default_expiration', 6], ['folder', 6]],
      [['owner', 6], ['owner_user', 6]],
      [['key_prefix', 6], ['key_last4', 6]],
      [['duplicates', 6]],
      [['moderation', 6], ['moderation_threshold', 6]],
      [['quota_images', 6], ['quota_bytes', 6]],
      [['live_images', 6], ['live_bytes', 6]],
      [['last_used_at', 6], ['upload_count', 4]],
      [['images', 6]],
    ],
  },
  [IMAGE_UID]: {
    settings: { mainField: 'label', defaultSortBy: 'createdAt', defaultSortOrder: 'DESC', pageSize: 20 },
    fields: {
      file: { label: 'Image', readOnly: true, description: 'The stored original, in the Media Library.' },
      title: { label: 'Title' },
      label: { label: 'Name', column: 'Title or file name', readOnly: true, description: 'The title, else the client\'s file name; set by the server.' },
      description: { label: 'Description' },
      nsfw: { label: 'Not safe for work' },
      expires_at: { label: 'Expires', description: 'From then on the image is no longer served, and it is deleted. Empty: never.' },
      views: { label: 'Views', readOnly: true, description: 'Viewer page views; set by the server.' },
      id_encoded: { label: 'Id', readOnly: true, description: 'In the image\'s URLs (/image/<id>).' },
      name: { label: 'Stored name', readOnly: true, description: 'The base name of the stored files.' },
      md5: { label: 'MD5', readOnly: true },
      original_filename: { label: "Client's file name", readOnly: true },
      original_exifdata: { label: 'EXIF data', hidden: true },
      api_key: { label: 'API key', column: 'Key', readOnly: true, description: 'The key it was uploaded with.', mainField: 'name' },
      owner: { label: 'Owner (admin)', readOnly: true, description: "The key's owner at upload time.", mainField: 'email' },
      owner_user: { ...OWNER_USER, readOnly: true },
      album: { label: 'Album', readOnly: true, description: 'The Media Library folder it was uploaded to.', mainField: 'name' },
      createdAt: { label: 'Uploaded' },
      placeholder: { label: 'Placeholder', readOnly: true, description: 'ThumbHash of the image (base64): what a page paints before it arrives.' },
      dominant_color: { label: 'Dominant colour', readOnly: true, description: '#rrggbb; set by the server.' },
      moderation: { label: 'Moderation', readOnly: true, description: 'none, flagged (its page asks before showing it), held (404 until approved) or approved; set by moderation (Image API → Review).' },
      nsfw_score: { label: 'NSFW score', readOnly: true, description: 'The classifier\'s probability (0 to 1) that it is porn, hentai or sexy; empty: not classified.' },
      nsfw_scores: { label: 'Classifier scores', readOnly: true, hidden: true },
      review_since: { label: 'In review since', readOnly: true, description: 'When it was flagged, held or first reported; empty: not in the review queue.' },
      report_count: { label: 'Reports', readOnly: true, description: 'Reports from its viewer page.' },
    },
    list: ['file', 'label', 'id_encoded', 'api_key', 'views', 'expires_at', 'createdAt'],
    edit: [
      [['file', 6], ['title', 6]],
      [['description', 6], ['nsfw', 4]],
      [['expires_at', 6], ['views', 4]],
      [['id_encoded', 6], ['name', 6]],
      [['md5', 6], ['original_filename', 6]],
      [['api_key', 6], ['owner', 6]],
      [['album', 6], ['owner_user', 6]],
      [['placeholder', 6], ['dominant_color', 4]],
      [['moderation', 6], ['nsfw_score', 4]],
      [['review_since', 6], ['report_count', 4]],
    ],
  },
};

interface Metadata {
  edit: Record<string, unknown>;
  list: Record<string, unknown>;
}

interface Configuration {
  settings?: Record<string, unknown>;
  metadatas?: Record<string, Metadata>;
  layouts?: { list?: string[]; edit?: Array<Array<{ name: string; size: number }>> };
}

/** The configuration `view` gives, on top of the one Strapi generated (`current`). */
export function composeConfiguration(view: TypeView, current: Configuration): Configuration {
  const metadatas: Record<string, Metadata> = {};
  for (const [field, metadata] of Object.entries(current.metadatas ?? {})) {
    const ours = view.fields[field];
    metadatas[field] = ours
      ? {
          edit: {
            ...metadata.edit,
            label: ours.label,
            description: ours.description ?? '',
            placeholder: ours.placeholder ?? '',
            editable: !ours.readOnly,
            visible: !ours.hidden,
            ...(ours.mainField ? { mainField: ours.mainField } : {}),
          },
          list: { ...metadata.list, label: ours.column ?? ours.label },
        }
      : metadata;
  }
  // Only fields this app's model has: owner_user exists only with Users & Permissions.
  const present = (field: string) => field in metadatas;
  const edit = view.edit
    .map((row) => row.filter(([field]) => present(field)).map(([name, size]) => ({ name, size })))
    .filter((row) => row.length > 0);
  return {
    settings: { ...current.settings, ...view.settings },
    metadatas,
    layouts: { ...current.layouts, list: view.list.filter(present), edit },
  };
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const store = () => strapi.store({ type: 'plugin', name: PLUGIN_ID, key: 'content-manager-layout' });

  return {
    /** Writes the plugin's views unless this version of them was written before. */
    async apply(): Promise<void> {
      const contentManager = strapi.plugin('content-manager');
      if (!contentManager) return;
      const applied = (await store().get({})) as { version?: number } | null;
      if (applied?.version === LAYOUT_VERSION) return;
      const contentTypes = contentManager.service('content-types');
      for (const [uid, view] of Object.entries(VIEWS)) {
        const contentType = contentTypes.findContentType(uid);
        // Generated by the Content Manager's own bootstrap; generate it now if that has not run yet.
        let current: Configuration = await contentTypes.findConfiguration(contentType);
        if (!current.metadatas) {
          await contentTypes.syncConfigurations();
          current = await contentTypes.findConfiguration(contentType);
        }
        await contentTypes.updateConfiguration(contentType, composeConfiguration(view, current));
      }
      await store().set({ value: { version: LAYOUT_VERSION } });
    },
  };
};
