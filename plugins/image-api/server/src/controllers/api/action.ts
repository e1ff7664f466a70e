/** What the dialect's actions (upload.ts, delete.ts, albums.ts) are, for index.ts that runs them. */
import type { Context } from 'koa';
import type { Format, SentParams } from '../../http/request-params';
import type { UploadRequestState } from '../../middlewares/upload-body';

/** The answer shapes of a success: the API's own, or imgbb's (contract §10). */
export type Dialect = 'api' | 'imgbb';

/** An action of the dialect: answers `ctx` in `format` (checked by the action's own parameters). */
export type ActionHandler = (ctx: Context, sent: SentParams, state: UploadRequestState, format: Format, dialect: Dialect) => Promise<void>;
