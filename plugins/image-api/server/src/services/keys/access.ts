/**
 * Who is calling: the client address is checked for failed attempts, then the key looked up (401 or
 * 403 from the error table). A key that matches nothing is a guess and counts against the address.
 * Charging an upload to the key's rate limit is the upload's business (rate-limits.chargeKey): a
 * delete or an album listing is not an upload.
 */
import type { Core } from '@strapi/strapi';
import { isApiError } from '../contract/api-error';
import { getService } from '../../get-service';
import type { AuthenticatedKey } from './api-keys';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async authenticate(key: string | null, clientIp: string): Promise<AuthenticatedKey> {
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
