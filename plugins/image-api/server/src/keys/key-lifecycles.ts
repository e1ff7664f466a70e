/**
 * The key entry's lifecycles (every write: the Content Manager, the CLI, the query engine):
 * - a new entry gets its key here, on the server;
 * - its own rate limit and default expiration must read as the options' grammars read them, or the
 *   entry is not saved: the error names the field as Strapi's own validation does, so the admin
 *   panel shows it on the field;
 * - any change is signalled (keys/key-changes.ts): it applies to the next request on this instance
 *   (the key lookup cache hears it); other instances see it within `keyCacheMs`.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { parseRateLimit } from '../config/rate-limit';
import { getConfig, getService } from '../get-service';
import { expirationSeconds } from '../protocol/expiration';
import { generateKey } from './api-keys';

type Data = Record<string, unknown> | undefined;
export interface Event {
  params: { data?: Record<string, unknown> };
}

const FIELD_CHECKS: Record<string, { label: string; check: (value: string, strapi: Core.Strapi) => void }> = {
  rate_limit: { label: 'Rate limit', check: (value) => parseRateLimit(value) },
  default_expiration: { label: 'Default expiration', check: (value, strapi) => value.trim() && expirationSeconds(value, getConfig(strapi)) },
};

/** Quotas: whole numbers from 1, or empty (no cap). */
const QUOTA_FIELDS: Record<string, string> = { quota_bytes: 'Quota (bytes)', quota_images: 'Quota (images)' };

interface FieldError {
  path: string[];
  message: string;
  name: 'ValidationError';
  value: unknown;
}

const fieldError = (field: string, message: string, value: unknown): FieldError => ({ path: [field], message, name: 'ValidationError', value });

/**
 * Every field the entry gets wrong, not only the first: the admin panel marks each one at once, and
 * keeps what the admin typed (a refusal is a 400 with `details.errors`, one per field).
 */
function checkFields(strapi: Core.Strapi, data: Data): void {
  const found: FieldError[] = [];
  for (const [field, label] of Object.entries(QUOTA_FIELDS)) {
    const value = data?.[field];
    if (value === undefined || value === null || value === '') continue;
    if (Number.isSafeInteger(Number(value)) && Number(value) >= 1) continue;
    found.push(fieldError(field, `${label}: a whole number from 1, or empty for none`, value));
  }
  for (const [field, { label, check }] of Object.entries(FIELD_CHECKS)) {
    const value = data?.[field];
    if (typeof value !== 'string') continue;
    try {
      check(value, strapi);
    } catch (error) {
      found.push(fieldError(field, `${label}: ${(error as Error).message}`, value));
    }
  }
  if (found.length === 0) return;
  const message = found.length === 1 ? found[0].message : `${found.length} errors: ${found.map((error) => error.message).join('; ')}`;
  throw new errors.ValidationError(message, { errors: found });
}

const changed = () => getService(strapi, 'key-changes').changed();

export default {
  beforeCreate(event: Event) {
    const data = (event.params.data ??= {});
    checkFields(strapi, data);
    if (!data.key_hash) Object.assign(data, getService(strapi, 'api-keys').keyColumns(generateKey()));
    data.upload_count ??= 0;
  },
  beforeUpdate: (event: Event) => checkFields(strapi, event.params.data),
  beforeUpdateMany: (event: Event) => checkFields(strapi, event.params.data),
  afterUpdate: changed,
  afterUpdateMany: changed,
  afterDelete: changed,
  afterDeleteMany: changed,
};
