/**
 * Admin entry of strapi-plugin-image-api. Keys and images are managed in the Content Manager; this
 * adds the panel that shows a key entry's key (copy, regenerate) on its edit view.
 */
import { ApiKeyPanel } from './components/ApiKeyPanel';

const PLUGIN_ID = 'image-api';

interface AdminApp {
  registerPlugin(plugin: { id: string; name: string }): void;
  getPlugin(id: string): { apis: { addEditViewSidePanel(panels: unknown[]): void } };
}

export default {
  register(app: AdminApp) {
    app.registerPlugin({ id: PLUGIN_ID, name: 'Image API' });
  },
  bootstrap(app: AdminApp) {
    app.getPlugin('content-manager').apis.addEditViewSidePanel([ApiKeyPanel]);
  },
};
