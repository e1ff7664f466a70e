/**
 * The plugin's own admin permissions (Settings → Roles → Plugins → Image API). The usage page needs
 * `usage.read`; the key section of it, and revealing a key or its client configurations,
 * `keys.manage` and `keys.reveal`; deleting an image from the page, `images.delete`; the moderation
 * queue (docs/moderation.md), `images.review`, which no role but Super Admin has until an admin gives
 * it. Super Admins get every action (Strapi resets their permissions at boot); the Editor role gets `usage.read` once, at
 * the first boot that knows the action, and keeps whatever an admin sets afterwards.
 *
 * API key entries are credentials, not content: Strapi gives its Editor and Author roles every
 * Content Manager action on every content type, and they are taken away from those two roles on key
 * entries, once (as Strapi itself does for Users & Permissions users). An admin may give them back.
 */
import type { Core } from '@strapi/strapi';
import { ACTIONS, API_KEY_UID, IMAGE_UID, PLUGIN_ID } from '../config/constants';

const DEFINITIONS = [
  { uid: 'usage.read', displayName: 'See usage and recent images' },
  { uid: 'keys.manage', displayName: 'See API keys and their usage' },
  { uid: 'keys.reveal', displayName: 'Reveal API keys and their client configurations' },
  { uid: 'images.delete', displayName: 'Delete images' },
  { uid: 'images.review', displayName: 'Review flagged, held and reported images; take down, block, import hash lists' },
].map((action) => ({ ...action, section: 'plugins', subCategory: 'Image API', pluginName: PLUGIN_ID }));

const EDITOR_ROLE = 'strapi-editor';
const AUTHOR_ROLE = 'strapi-author';

/**
 * On a new database Strapi creates its default roles after the plugins' bootstrap, picking their
 * Content Manager permissions with `getPermissionsWithNestedFields(actions, { restrictedSubjects })`
 * (restrictedSubjects is given only there). Key entries join the subjects it leaves out. Both
 * functions are pinned (tests/config/strapi-pins.test.ts).
 */
function restrictKeysInDefaultRoles(strapi: Core.Strapi): void {
  const contentTypes = strapi.service('admin::content-type') as {
    getPermissionsWithNestedFields?: (actions: unknown, options?: { restrictedSubjects?: string[] }) => unknown;
  };
  const original = contentTypes?.getPermissionsWithNestedFields;
  if (typeof original !== 'function') return;
  contentTypes.getPermissionsWithNestedFields = (actions, options = {}) =>
    original.call(
      contentTypes,
      actions,
      options.restrictedSubjects ? { ...options, restrictedSubjects: [...options.restrictedSubjects, API_KEY_UID] } : options
    );
}

/** Roles made before: their Content Manager permissions on key entries go, once. */
export async function withdrawKeyEntriesFromDefaultRoles(strapi: Core.Strapi): Promise<void> {
  const store = strapi.store({ type: 'plugin', name: PLUGIN_ID, key: 'key-entries-withdrawn' });
  if (await store.get({})) return;
  const roles = await strapi.db.query('admin::role').findMany({ where: { code: { $in: [EDITOR_ROLE, AUTHOR_ROLE] } }, select: ['id'] });
  // No roles yet: Strapi makes them after this bootstrap, without key entries (above).
  if (roles.length > 0) {
    const held = await strapi.db.query('admin::permission').findMany({
      select: ['id'],
      where: { subject: API_KEY_UID, role: { id: { $in: roles.map((role: { id: number }) => role.id) } } },
    });
    // Through Strapi's own service: it removes each permission's link to its role too.
    await strapi.service('admin::permission').deleteByIds(held.map((permission: { id: number }) => permission.id));
  }
  await store.set({ value: { done: true } });
}

/**
 * API images are made by uploads only: an entry made in the Content Manager has no file and could
 * never be saved. The Content Manager's "Create" action is registered without them (its bootstrap
 * comes after this plugin's register), so no role, Super Admin included, holds it, and the Content
 * Manager offers neither "Create new entry" nor "Duplicate" for them.
 */
export function withholdCreateOnImages(strapi: Core.Strapi): void {
  const provider = strapi.service('admin::permission').actionProvider as {
    hooks: { willRegister: { register(handler: (event: { key: string; value: { subjects?: string[] | null } }) => void): void } };
  };
  provider.hooks.willRegister.register(({ key, value }) => {
    if (key === 'plugin::content-manager.explorer.create' && Array.isArray(value.subjects)) {
      value.subjects = value.subjects.filter((subject) => subject !== IMAGE_UID);
    }
  });
}

export async function registerPermissions(strapi: Core.Strapi): Promise<void> {
  await strapi.service('admin::permission').actionProvider.registerMany(DEFINITIONS);
  restrictKeysInDefaultRoles(strapi);
  await withdrawKeyEntriesFromDefaultRoles(strapi);
  // On a new database Strapi creates its default roles after the plugins' bootstrap.
  strapi.db.lifecycles.subscribe({
    models: ['admin::role'],
    async afterCreate(event) {
      if ((event.result as { code?: string } | undefined)?.code === EDITOR_ROLE) await grantEditorDefaults(strapi);
    },
  });
  await grantEditorDefaults(strapi);
}

/** Gives the Editor role `usage.read`, once: an admin who takes it away later is not overruled. */
export async function grantEditorDefaults(strapi: Core.Strapi): Promise<void> {
  const store = strapi.store({ type: 'plugin', name: PLUGIN_ID, key: 'editor-defaults' });
  if (await store.get({})) return;
  const role = await strapi.db.query('admin::role').findOne({ where: { code: EDITOR_ROLE } });
  // No Editor role yet: granted when Strapi creates it (registerPermissions).
  if (!role) return;
  const held = await strapi.db.query('admin::permission').count({ where: { action: ACTIONS.usageRead, role: role.id } });
  if (held === 0) {
    await strapi.service('admin::permission').createMany([
      { action: ACTIONS.usageRead, actionParameters: {}, subject: null, properties: {}, conditions: [], role: role.id },
    ]);
  }
  await store.set({ value: { granted: [ACTIONS.usageRead] } });
}
