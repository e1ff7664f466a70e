import upload from './upload';
import viewer from './viewer';

export default { upload, viewer };
