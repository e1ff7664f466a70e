import type { Core } from '@strapi/strapi';
import { getConfig, getService } from './get-service';
import { registerPermissions } from './admin/admin-permissions';
import { isOneCommand } from './operations/one-command';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  try {
    await setUp(strapi);
  } finally {
    // Taken when the plugin registered (operations/boot-lock.ts): the schema is set up now.
    await getService(strapi, 'boot-lock').release();
  }
};

/** What a serving instance does beside its requests, each stopped by destroy.ts. */
async function startBackgroundWork(strapi: Core.Strapi): Promise<void> {
  // What a crash left, before the first request (the sweep's own schedule follows).
  await getService(strapi, 'debris-sweep').run();
  getService(strapi, 'debris-sweep').start();
  getService(strapi, 'expiry-sweep').start();
  // Purges owed since before this boot (another instance's, or this one's before a restart) go too.
  getService(strapi, 'purges').start();
  getService(strapi, 'renditions').start();
  // Images stored before placeholders existed get theirs in the background (storage/placeholders.ts).
  getService(strapi, 'placeholders').start();
  // The classifier's model (about 3.5 s of a core and 190 MB, in its worker thread) loads now rather
  // than at the first upload that needs it, when some key or the default classifies (moderation/screening.ts).
  void getService(strapi, 'screening').warmIfUsed();
}

async function setUp(strapi: Core.Strapi) {
  if (!getConfig(strapi).keyHashSecret) {
    // Silent before: keys hashed with Strapi's API_TOKEN_SALT, and setting the secret later made
    // every key issued until then invalid.
    strapi.log.warn(
      'image-api: IMAGE_API_KEY_SECRET (keyHashSecret) is not set, so API keys are hashed with API_TOKEN_SALT. ' +
        'Set it before issuing keys: setting it later invalidates every key issued until then.'
    );
  }
  await getService(strapi, 'content-manager-layout').apply();
  await registerPermissions(strapi);
  getService(strapi, 'media-events').registerWebhookEvents();
  const labelled = await getService(strapi, 'images').fillLabels();
  if (labelled > 0) strapi.log.info(`image-api: ${labelled} existing images named for the Content Manager (title, else file name)`);
  // Created at boot so the first concurrent uploads do not race to create it.
  await getService(strapi, 'media-folder').get();
  await getService(strapi, 'rate-limits').connect();
  const { bootstrapKey } = getConfig(strapi);
  if (bootstrapKey) await getService(strapi, 'api-keys').ensureBootstrapKey(bootstrapKey);
  // The key CLI (bin/keys.js) boots the app to run one command and exit: the sweeps, the backfills
  // and the classifier are the serving instances' work, not a process that lives a few seconds.
  if (!isOneCommand()) await startBackgroundWork(strapi);
  if (strapi.config.get('environment') === 'development') {
    // What a newcomer running `npm run develop` needs next: where the API and its docs are, and how to get a key.
    const base = getService(strapi, 'public-url').base();
    strapi.log.info(
      `image-api: uploads at ${base}/api/1/upload, the API's docs at ${base}/api/1/docs. Issue a key in the admin panel ` +
        '(Content Manager > API key) or with: npx strapi-image-api keys create --name "My laptop"'
    );
  }
  const { transformPath, transformKey } = getConfig(strapi);
  if (transformPath !== null && !transformKey) {
    strapi.log.warn(
      `image-api: IMAGE_API_TRANSFORM_KEY and IMAGE_API_TRANSFORM_SALT are not set, so ${transformPath} accepts unsigned ` +
        'transformation URLs: anyone may ask for any size of any image (rendered each time; only presets are kept; ' +
        'docs/security.md, "Transformations").'
    );
  }
}
