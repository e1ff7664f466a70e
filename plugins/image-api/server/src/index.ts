/** Server entry of strapi-plugin-image-api (Strapi 5 plugin conventions). */
import bootstrap from './bootstrap';
import config from './config';
import contentTypes from './content-types';
import controllers from './controllers';
import destroy from './destroy';
import multipartBody from './http/multipart-body';
import register from './register';
import routes from './routes';
import services from './services';

export default {
  register,
  bootstrap,
  destroy,
  config,
  contentTypes,
  controllers,
  // `plugin::image-api.multipart-body`: the multipart parser of the routes that read one (http/multipart-routes.ts).
  middlewares: { 'multipart-body': multipartBody },
  routes,
  services,
};
