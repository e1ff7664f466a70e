/**
 * `/api/<version>/<action>`: the dialect's checks every request meets (its body, the version, the
 * action, the method), then the action: upload, delete, albums. Each answers in the format asked.
 * `imgbbPath` (`/1/upload`): the imgbb dialect, always an upload, answered in imgbb's shape.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { errors, isApiError } from '../http/api-error';
import { outageAnswer } from '../http/outages';
import { answerFormat, gatherParams, type Action, type Format, type SentParams } from '../protocol/request-params';
import type { UploadRequestState } from './upload-body';
import { albumsAction } from './albums-action';
import { answerError } from '../protocol/answers';
import { deleteAction } from './delete-action';
import { uploadAction } from './upload-action';
import { routeAction, uploadDialect, type ActionHandler, type Dialect } from './action';
import { getService } from '../get-service';
import type { SourceLabel } from '../operations/metrics';

/** The kind of image an upload request sent, for its count. */
const sourceLabel = (sent: SentParams): SourceLabel => {
  const kind = sent.source?.kind;
  return kind === 'file' || kind === 'url' ? kind : kind === 'base64' || kind === 'decoded' ? 'base64' : 'none';
};

const OUTAGE_LOG_MS = 10_000;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // An outage fails every request at once: it is logged once per OUTAGE_LOG_MS, not once per request.
  let outageLoggedAt = 0;

  /** The answer to a failure: its own if it is one of the table's, 503/507 for an outage, else 500 (logged). */
  function asApiError(error: unknown, what: string) {
    if (isApiError(error)) return error;
    const outage = outageAnswer(error);
    if (outage) {
      if (Date.now() - outageLoggedAt > OUTAGE_LOG_MS) {
        outageLoggedAt = Date.now();
        strapi.log.warn(`image-api: ${what}: ${outage.message} (${(error as Error)?.message ?? error})`);
      }
      return outage;
    }
    strapi.log.error(`image-api: ${what} failed: ${(error as Error)?.stack ?? error}`);
    return errors.internal();
  }

  const actions: Record<Action, ActionHandler> = {
    upload: uploadAction(strapi),
    delete: deleteAction(strapi),
    albums: albumsAction(strapi),
  };

  /**
   * Runs the action `route` picks (after its own checks: version, action) once the body is read,
   * answering any failure in the error shape and the format asked.
   */
  async function run(ctx: Context, dialect: Dialect, route: () => Action) {
    const state = ctx.state.imageApi as UploadRequestState | undefined;
    // Until the body is read, errors answer as the query asks (JSON unless it asks for a valid format).
    let format: Format = answerFormat(ctx.query.format);
    // An upload's answer is counted by dialect, source kind and status (operations/metrics.ts).
    // A refusal before the body is read (413, a malformed body) counts as source `none`.
    let counted: { dialect: Dialect; source: SourceLabel } | null =
      dialect === 'imgbb' || routeAction(ctx.params.action) === 'upload' ? { dialect, source: 'none' } : null;
    try {
      if (!state) throw new Error('the upload body middleware did not run (keep strapi::body in config/middlewares.ts)');
      if (state.bodyError) throw state.bodyError;
      const action = route();
      if (ctx.method !== 'GET' && ctx.method !== 'POST') {
        ctx.set('Allow', 'GET, POST, OPTIONS');
        throw errors.methodNotAllowed();
      }
      const sent = gatherParams(ctx, state.body);
      format = answerFormat(sent.format);
      if (counted) counted = { dialect: uploadDialect(dialect, sent), source: sourceLabel(sent) };
      await actions[action](ctx, sent, state, format, dialect);
    } catch (error) {
      answerError(ctx, asApiError(error, `${ctx.method} ${ctx.path}`), format);
    } finally {
      if (counted) getService(strapi, 'metrics').uploadAnswered(counted.dialect, counted.source, ctx.status);
    }
  }

  return {
    handle(ctx: Context) {
      return run(ctx, 'api', () => {
        if (ctx.params.version !== '1') throw errors.badVersion();
        const action = routeAction(ctx.params.action);
        if (!action) throw errors.badAction();
        return action;
      });
    },

    handleImgbb(ctx: Context) {
      return run(ctx, 'imgbb', () => 'upload');
    },
  };
};
