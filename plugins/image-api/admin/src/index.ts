/**
 * Admin entry of strapi-plugin-image-api: the "Image API" page in the menu (usage, images, keys;
 * behind the plugin's `usage.read` permission), the panel that shows a key entry's key (copy,
 * regenerate, client configurations), and no "Set up preview" box on the plugin's entries. Keys and
 * images themselves are edited in the Content Manager, with the views the server sets up.
 */
import { Images } from '@strapi/icons';
import { ApiKeyPanel } from './components/ApiKeyPanel';
import { withoutPreviewOnOwnTypes } from './components/hidePreviewPanel';
import { ACTIONS, PLUGIN_ID } from './permissions';

interface AdminApp {
  registerPlugin(plugin: { id: string; name: string }): void;
  addMenuLink(link: unknown): void;
  getPlugin(id: string): { apis: { addEditViewSidePanel(panels: unknown): void } };
}

export default {
  register(app: AdminApp) {
    app.addMenuLink({
      to: `plugins/${PLUGIN_ID}`,
      icon: Images,
      intlLabel: { id: `${PLUGIN_ID}.menu.label`, defaultMessage: 'Image API' },
      permissions: [{ action: ACTIONS.usageRead, subject: null }],
      Component: () => import('./pages/UsagePage'),
    });
    app.registerPlugin({ id: PLUGIN_ID, name: 'Image API' });
  },
  bootstrap(app: AdminApp) {
    const contentManager = app.getPlugin('content-manager').apis;
    contentManager.addEditViewSidePanel([ApiKeyPanel]);
    contentManager.addEditViewSidePanel(withoutPreviewOnOwnTypes);
  },
};
