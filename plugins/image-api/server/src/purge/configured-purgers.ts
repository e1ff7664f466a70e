/**
 * The purgers an app configured (option `purge`; docs/configuration.md), made once per process.
 */
import type { ImageApiConfig } from '../config';
import type { Purger } from './purger';
import { createVarnishPurger } from './varnish-purger';
import { createCloudflarePurger } from './cloudflare-purger';
import { createFastlyPurger } from './fastly-purger';

export function configuredPurgers({ purge }: Pick<ImageApiConfig, 'purge'>): Purger[] {
  const { timeoutMs } = purge;
  const purgers: Purger[] = [];
  if (purge.varnish.length > 0) purgers.push(createVarnishPurger({ servers: purge.varnish, timeoutMs }));
  if (purge.cloudflareZone && purge.cloudflareToken) {
    purgers.push(createCloudflarePurger({ zone: purge.cloudflareZone, token: purge.cloudflareToken, api: purge.cloudflareApi, timeoutMs }));
  }
  if (purge.fastlyService && purge.fastlyToken) {
    purgers.push(createFastlyPurger({ service: purge.fastlyService, token: purge.fastlyToken, api: purge.fastlyApi, timeoutMs }));
  }
  return purgers;
}
