/**
 * Admin entry of strapi-plugin-image-api: the "Image API" page in the menu (usage, images, keys;
 * behind the plugin's `usage.read` permission), the "Image review" page (moderation's queue and
 * blocklist; behind `images.review`), the panel that shows a key entry's key (copy,
 * regenerate, client configurations), the panel of an image record's preset URLs and `<img srcset>`, and no "Set up preview" box on the plugin's entries. Keys and
 * images themselves are edited in the Content Manager, with the views the server sets up.
 */
import { CloudUpload, Shield } from '@strapi/icons';
import { ApiKeyPanel } from './components/ApiKeyPanel';
import { ServingPanel } from './components/ServingPanel';
import { withoutPreviewOnOwnTypes } from './components/hidePreviewPanel';
import { ACTIONS, PLUGIN_ID } from '../../shared/identity';
import en from './translations/en.json';
import fr from './translations/fr.json';
import zhHans from './translations/zh-Hans.json';
import { getTranslation } from './utils/getTranslation';
import { contentManagerMessages, translateHints } from './utils/contentManagerTexts';

/** The plugin's strings by admin locale; a locale without a file falls back to English (hooks/useMessage.ts). */
const TRANSLATIONS: Record<string, Record<string, string>> = { en, fr, 'zh-Hans': zhHans };

interface AdminApp {
  registerPlugin(plugin: { id: string; name: string }): void;
  addMenuLink(link: unknown): void;
  registerHook(name: string, hook: (args: any) => unknown): void;
  getPlugin(id: string): { apis: { addEditViewSidePanel(panels: unknown): void } };
}

export default {
  register(app: AdminApp) {
    app.addMenuLink({
      to: `plugins/${PLUGIN_ID}`,
      icon: CloudUpload,
      intlLabel: { id: getTranslation('menu.label'), defaultMessage: en['menu.label'] },
      permissions: [{ action: ACTIONS.usageRead, subject: null }],
      Component: () => import('./pages/UsagePage'),
    });
    // Moderation's review: a page of its own, as reviewers need not see usage (nor its readers review).
    app.addMenuLink({
      to: `plugins/${PLUGIN_ID}-review`,
      icon: Shield,
      intlLabel: { id: getTranslation('review.menu'), defaultMessage: en['review.menu'] },
      permissions: [{ action: ACTIONS.imagesReview, subject: null }],
      Component: () => import('./pages/ReviewPage'),
    });
    app.registerPlugin({ id: PLUGIN_ID, name: en['plugin.name'] });
  },
  async registerTrads({ locales }: { locales: string[] }) {
    return locales.map((locale) => {
      const strings = TRANSLATIONS[locale] ?? {};
      return {
        locale,
        data: {
          ...Object.fromEntries(Object.entries(strings).map(([id, text]) => [getTranslation(id), text])),
          // The Content Manager's labels and type names (utils/contentManagerTexts.ts); English is the layout's own.
          ...(locale === 'en' ? {} : contentManagerMessages(strings)),
        },
      };
    });
  },
  bootstrap(app: AdminApp) {
    const contentManager = app.getPlugin('content-manager').apis;
    contentManager.addEditViewSidePanel([ApiKeyPanel, ServingPanel]);
    contentManager.addEditViewSidePanel(withoutPreviewOnOwnTypes);
    // The edit view's hints in the admin's language (Strapi shows hints untranslated). The language
    // is the one the admin keeps in localStorage (Strapi's key), as the admin itself reads it at start.
    app.registerHook('Admin/CM/pages/EditView/mutate-edit-view-layout', (args) => {
      const locale = window.localStorage.getItem('strapi-admin-language') ?? 'en';
      return locale === 'en' ? args : translateHints(args, TRANSLATIONS[locale] ?? {});
    });
  },
};
