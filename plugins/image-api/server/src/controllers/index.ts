import apiKeyAdmin from './api-key-admin';
import api from './api';
import viewer from './viewer';

export default { 'api-key-admin': apiKeyAdmin, api, viewer };
