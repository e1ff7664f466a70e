/**
 * Who is calling: the client address (the peer, or what trusted proxies say) is checked for failed attempts, then the key looked up (401 or
 * 403 from the error table). A key that matches nothing is a guess and counts against the address.
 * Charging an upload to the key's rate limit is the upload's business (rate-limits.chargeKey): a
 * delete or an album listing is not an upload.
 */
import type { IncomingMessage } from 'http';
import type { Core } from '@strapi/strapi';
import { isApiError } from '../http/api-error';
import { clientAddress } from '../http/client-address';
import { getConfig, getService } from '../get-service';
import type { AuthenticatedKey } from './api-keys';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** The key's entry, or the error table's 401/403; `request` tells the client's address (http/client-address.ts). */
  async authenticate(key: string | null, request: IncomingMessage): Promise<AuthenticatedKey> {
    const clientIp = clientAddress(request, getConfig(strapi).trustedProxies);
    const limits = getService(strapi, 'rate-limits');
    await limits.checkAddress(clientIp);
    try {
      return await getService(strapi, 'api-keys').authenticate(key);
    } catch (error) {
      if (key && isApiError(error) && error.status === 401) await limits.recordFailedAuth(clientIp);
      throw error;
    }
  },
});
