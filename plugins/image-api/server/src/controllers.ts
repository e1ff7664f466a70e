import apiKeyAdmin from './keys/key-admin-controller';
import api from './api/api-controller';
import docs from './openapi/docs-controller';
import usageAdmin from './admin/usage-admin-controller';
import viewer from './pages/viewer-controller';
import reviewAdmin from './moderation/review-admin-controller';

export default { 'api-key-admin': apiKeyAdmin, api, docs, 'usage-admin': usageAdmin, 'review-admin': reviewAdmin, viewer };
