import image from './image/schema';
import apiKey from './api-key/schema';
import apiKeyLifecycles from '../keys/key-lifecycles';
import pendingUpload from './pending-upload/schema';
import idempotentUpload from './idempotent-upload/schema';
import usageDay from './usage-day/schema';
import rendition from './rendition/schema';
import purge from './purge/schema';
import report from './report/schema';
import block from './block/schema';

export default {
  image: { schema: image },
  'api-key': { schema: apiKey, lifecycles: apiKeyLifecycles },
  'pending-upload': { schema: pendingUpload },
  'idempotent-upload': { schema: idempotentUpload },
  'usage-day': { schema: usageDay },
  rendition: { schema: rendition },
  purge: { schema: purge },
  report: { schema: report },
  block: { schema: block },
};
