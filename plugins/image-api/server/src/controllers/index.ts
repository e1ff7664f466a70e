import apiKeyAdmin from './api-key-admin';
import api from './api';
import docs from './docs';
import viewer from './viewer';

export default { 'api-key-admin': apiKeyAdmin, api, docs, viewer };
