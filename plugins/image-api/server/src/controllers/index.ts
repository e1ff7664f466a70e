import apiKeyAdmin from './api-key-admin';
import upload from './upload';
import viewer from './viewer';

export default { 'api-key-admin': apiKeyAdmin, upload, viewer };
