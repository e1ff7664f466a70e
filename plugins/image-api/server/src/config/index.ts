/**
 * The plugin's configuration as Strapi loads it: `config/plugins.ts` → `'image-api': { config }`.
 * Options, defaults and checks are the schema's (schema.ts); the validator runs at boot, takes what
 * the app left unset from the options' environment variables (environment.ts), refuses a bad value
 * with a message naming the option, and fills in every default.
 */
import { applyEnvironment } from './environment';
import { validateConfig } from './schema';

export { IMAGE_TYPES, type ImageApiConfig, type ImageType } from './schema';

export default {
  // Empty on purpose: Strapi merges the app's config into these with defaultsDeep, which merges arrays
  // index by index (`allowedTypes: ['png']` would come out as all five types). The validator fills
  // in the defaults instead, on the object Strapi keeps.
  default: {},
  validator(config: Record<string, unknown>): void {
    applyEnvironment(config);
    const valid = validateConfig(config) as unknown as Record<string, unknown>;
    for (const option of Object.keys(config)) delete config[option];
    Object.assign(config, valid);
  },
};
