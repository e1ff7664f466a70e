/**
 * Viewers' reports of images (docs/moderation.md, "Reports"): anyone may report a live image from
 * its viewer page, without a key, so every report is bounded and cheap. Per client address
 * (`moderation.reportsPerAddress`, the plugin's rate limiter: memory or Redis), one report per
 * address and image (a unique index: a repeat is refused by the database), at most
 * `moderation.reportsPerImage` kept per image. A report that is not kept is answered as one that is:
 * the reporter learns nothing of the others. What is kept: the reason, the text, when, and a keyed
 * hash of the address (never the address). A kept report counts on its image and puts it in the
 * review queue (`report_count`, `review_since`), and is told to webhooks (`image-api.image.report`).
 *
 * Cost of one report: the rate limiter's point, one indexed SELECT of the image, then one
 * transaction of one UPDATE of the image's row and one INSERT.
 */
import ipaddr from 'ipaddr.js';
import type { Core } from '@strapi/strapi';
import { IMAGE_UID, REPORT_UID } from '../config/constants';
import { errors } from '../http/api-error';
import { createRowWriter } from '../database/sql-rows';
import { transaction } from '../database/transaction';
import { retryTransient } from '../database/transient-errors';
import { isUniqueViolation } from '../database/unique-violation';
import { getConfig, getService } from '../get-service';
import type { ReportInput } from './report-input';

/** What became of a report: kept, or answered alike without being kept (a repeat, an image past its bound). */
export type ReportOutcome = 'stored' | 'repeat' | 'full';

/** The transaction's way out when the image's row took no more reports (past the bound, or gone meanwhile). */
class NotCounted extends Error {}

/** An IPv6 address's /64 (IPv4 and IPv4-mapped addresses as they are). */
export function reporterOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

/** Keeps the keyed hash of an address apart from any other digest made with the same secret. */
const ADDRESS_DOMAIN = 'image-api report address:';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);
  const images = () => rows.model(IMAGE_UID);
  const column = (attribute: string) => images().attributes[attribute].columnName ?? attribute;

  /** The image a report may name: live, not held (its page is 404 then); its row id and reports so far. */
  async function reportable(idEncoded: string, now: Date): Promise<{ id: number; reports: number } | null> {
    const expiresAt = column('expires_at');
    const found = await strapi.db
      .connection(images().tableName)
      .select('id', `${column('report_count')} as reports`)
      .where(column('id_encoded'), idEncoded)
      .andWhere((query) => query.whereNull(expiresAt).orWhere(expiresAt, '>', now))
      // Rows written before moderation have no state (null), and count no reports yet.
      .andWhere((query) => query.whereNull(column('moderation')).orWhereNot(column('moderation'), 'held'))
      .first();
    return found ? { id: Number(found.id), reports: Number(found.reports ?? 0) } : null;
  }

  /**
   * The keyed hash a reporter is kept and counted as: HMAC-SHA256 (hex) with the server's key hash
   * secret, of the address, or of its /64 for IPv6 (one subscriber's block: addresses within it cost
   * nothing to change).
   */
  const addressHash = (address: string): string => getService(strapi, 'api-keys').keyedDigest(`${ADDRESS_DOMAIN}${reporterOf(address)}`);

  return {
    addressHash,

    /**
     * Takes a viewer's report of `idEncoded` from `address`. Throws the error table's 429 (the
     * address is past its bound; Retry-After) or 404 (unknown, expired or held image); otherwise
     * resolves with what became of it, and the rate limit's headers.
     */
    async submit(idEncoded: string, input: ReportInput, address: string): Promise<{ outcome: ReportOutcome; headers: Record<string, string> }> {
      // Counted by the hash: no reporter's address is kept anywhere, Redis included.
      const headers = await getService(strapi, 'rate-limits').chargeReport(addressHash(address));
      const now = new Date();
      const image = await reportable(idEncoded, now);
      if (!image) throw errors.imageNotFound();
      const cap = getConfig(strapi).moderation.reportsPerImage;
      if (image.reports >= cap) return { outcome: 'full', headers };

      const [count, since] = [column('report_count'), column('review_since')];
      const row = rows.toRow(REPORT_UID, {
        image_id_encoded: idEncoded,
        reason: input.reason,
        text: input.text,
        address_hash: addressHash(address),
        createdAt: now,
        updatedAt: now,
        publishedAt: now,
      });
      try {
        // The image's row first (a deletion takes it first too: storage/image-removal.ts), under the
        // bound again, so concurrent reports never count past it; then the report, which the unique
        // index refuses when this address reported the image already, undoing the count.
        await retryTransient(() =>
          transaction(strapi, async (trx) => {
            const counted = await trx(images().tableName)
              .where('id', image.id)
              .andWhere((query) => query.whereNull(count).orWhere(count, '<', cap))
              .update({ [count]: trx.raw('coalesce(??, 0) + 1', [count]), [since]: trx.raw('coalesce(??, ?)', [since, now]) });
            if (Number(counted) === 0) throw new NotCounted();
            await rows.insert(trx, rows.model(REPORT_UID).tableName, row);
          })
        );
      } catch (error) {
        if (error instanceof NotCounted) return { outcome: 'full', headers };
        if (isUniqueViolation(error)) return { outcome: 'repeat', headers };
        throw error;
      }
      getService(strapi, 'metrics').moderated('reported');
      getService(strapi, 'media-events').reported(image.id, { reason: input.reason, text: input.text, created_at: now.toISOString() });
      return { outcome: 'stored', headers };
    },
  };
};
