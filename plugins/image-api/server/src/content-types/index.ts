import image from './image/schema';
import apiKey from './api-key/schema';

export default {
  image: { schema: image },
  'api-key': { schema: apiKey },
};
