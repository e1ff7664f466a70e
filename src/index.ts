import type { Core } from '@strapi/strapi';

/** Marks that the app closed public sign-ups once, so an admin who opens them again is not overruled. */
const SIGNUPS_CLOSED = { type: 'core', name: 'image-api-host', key: 'signups-closed-once' } as const;

// The host app adds little of its own: the image API is the plugin in plugins/image-api.
export default {
  register(/* { strapi }: { strapi: Core.Strapi } */) {},

  async bootstrap({ strapi }: { strapi: Core.Strapi }) {
    // users-permissions lets anyone register a site user by default, and its rate limit is per
    // e-mail address: a stranger could make users without end, each a password hash of about 100 ms
    // on the one JavaScript thread. This app's site users are made by admins (to own keys), so
    // sign-ups start closed; Settings > Users & Permissions > Advanced settings opens them.
    const done = strapi.store(SIGNUPS_CLOSED);
    if (await done.get({})) return;
    const advanced = strapi.store({ type: 'plugin', name: 'users-permissions', key: 'advanced' });
    const settings = ((await advanced.get({})) ?? {}) as Record<string, unknown>;
    await advanced.set({ value: { ...settings, allow_register: false } });
    await done.set({ value: true });
  },
} satisfies Record<string, (ctx: { strapi: Core.Strapi }) => unknown>;
