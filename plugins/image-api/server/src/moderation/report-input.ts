/**
 * What a viewer's report may say (docs/moderation.md, "Reports"): a reason from the short list and
 * an optional text of at most 1,000 characters (UTF-16 units, as a browser's `maxlength` counts);
 * anything else in the body is ignored. The body itself is bounded in bytes (http/small-body.ts),
 * just above what the longest text takes once encoded.
 */
import Joi from 'joi';
import { REPORT_REASONS, type ReportReason } from '../config/constants';
import { errors } from '../http/api-error';

export const REPORT_TEXT_MAX = 1000;
/**
 * The longest report's body and a little more: 1,000 units of text percent-encoded as a form sends
 * them (a character of 3 UTF-8 bytes is 9 bytes, a pair of units 12) or escaped in JSON (6 a unit).
 */
export const REPORT_BODY_BYTES = 10 * 1024;

export interface ReportInput {
  reason: ReportReason;
  /** null when none was given (or only spaces). */
  text: string | null;
}

const schema = Joi.object({
  reason: Joi.string().valid(...REPORT_REASONS).required(),
  text: Joi.string().allow('').max(REPORT_TEXT_MAX).trim(),
}).unknown(true);

/** The report a body's fields make; 400 saying what is wrong. */
export function reportInputOf(fields: Record<string, unknown>): ReportInput {
  const { value, error } = schema.validate(fields, { convert: true });
  if (error) {
    const field = String(error.details[0]?.path[0] ?? '');
    throw errors.badRequest(
      field === 'text'
        ? `Invalid report: text is ${error.details[0].type === 'string.max' ? '' : 'one string of '}at most ${REPORT_TEXT_MAX} characters`
        : `Invalid report: reason must be one of ${REPORT_REASONS.join(', ')}`
    );
  }
  const text = typeof value.text === 'string' && value.text !== '' ? value.text : null;
  return { reason: value.reason as ReportReason, text };
}
