/** Admin entry of strapi-plugin-image-api. Keys and images are managed in the Content Manager. */
const PLUGIN_ID = 'image-api';

export default {
  register(app: { registerPlugin: (plugin: { id: string; name: string }) => void }) {
    app.registerPlugin({ id: PLUGIN_ID, name: 'Image API' });
  },
  bootstrap() {},
};
