/** What the dialect's actions (upload.ts, delete.ts, albums.ts) are, for index.ts that runs them. */
import type { Context } from 'koa';
import { ACTIONS, type Action, type Format, type SentParams } from '../protocol/request-params';
import type { UploadRequestState } from './upload-body';

/** The answer shapes of a success: the API's own, or imgbb's (docs/api.md, "The imgbb dialect"). */
export type Dialect = 'api' | 'imgbb';

/**
 * The shape an upload answers in: imgbb's on the imgbb path, or for an image sent in imgbb's field
 * (`image`) on /api/1/upload, as the reference implementation does.
 */
export const uploadDialect = (route: Dialect, sent: Pick<SentParams, 'sourceField'>): Dialect =>
  route === 'imgbb' || sent.sourceField === 'image' ? 'imgbb' : 'api';

/**
 * The action a route path names (`/api/1/<action>`, the router's parameter, decoded): one trailing
 * slash allowed, and in any case, as the router matches the path itself (`/API/1/UPLOAD`).
 */
export const routeAction = (value: unknown): Action | null => {
  const action = String(value ?? '').replace(/\/$/, '').toLowerCase();
  return (ACTIONS as readonly string[]).includes(action) ? (action as Action) : null;
};

/** An action of the dialect: answers `ctx` in `format` (checked by the action's own parameters). */
export type ActionHandler = (ctx: Context, sent: SentParams, state: UploadRequestState, format: Format, dialect: Dialect) => Promise<void>;
