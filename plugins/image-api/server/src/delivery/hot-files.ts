/** The process's hot image bytes (delivery/hot-file-cache.ts), shared by direct files and kept transformations. */
import type { Core } from '@strapi/strapi';
import { getConfig } from '../get-service';
import { createHotFiles } from './hot-file-cache';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let hot: ReturnType<typeof createHotFiles> | null = null;
  // Made on first use: the config is validated by then.
  const instance = () => (hot ??= createHotFiles(getConfig(strapi).hotFileCacheBytes));
  return {
    get: (key: string) => instance().get(key),
    fits: (size: number) => instance().fits(size),
    keep: (...args: Parameters<ReturnType<typeof createHotFiles>['keep']>) => instance().keep(...args),
  };
};
