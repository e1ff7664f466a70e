import image from './image/schema';
import apiKey from './api-key/schema';
import pendingUpload from './pending-upload/schema';

export default {
  image: { schema: image },
  'api-key': { schema: apiKey },
  'pending-upload': { schema: pendingUpload },
};
