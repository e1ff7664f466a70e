import apiKeyAdmin from './api-key-admin';
import api from './api';
import docs from './docs';
import usageAdmin from './usage-admin';
import viewer from './viewer';

export default { 'api-key-admin': apiKeyAdmin, api, docs, 'usage-admin': usageAdmin, viewer };
