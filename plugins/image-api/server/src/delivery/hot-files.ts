/**
 * The process's hot image bytes (delivery/hot-file-cache.ts), shared by direct files and kept
 * transformations. An image that changes (storage/image-changes.ts) loses its entries at once.
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../get-service';
import { createHotFiles } from './hot-file-cache';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let hot: ReturnType<typeof createHotFiles> | null = null;
  // Made on first use: the config is validated by then.
  const instance = () => (hot ??= createHotFiles(getConfig(strapi).hotFileCacheBytes));
  // Not made yet: nothing to drop.
  getService(strapi, 'image-changes').subscribe(({ names }) => hot?.forgetImages(names));
  return {
    get: (key: string) => instance().get(key),
    fits: (size: number) => instance().fits(size),
    keep: (...args: Parameters<ReturnType<typeof createHotFiles>['keep']>) => instance().keep(...args),
  };
};
