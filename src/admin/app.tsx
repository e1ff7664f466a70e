/**
 * The host app's admin panel: the languages an admin may pick in their profile besides English. The
 * Image API plugin ships French and Simplified Chinese (plugins/image-api/admin/src/translations);
 * Strapi translates its own screens into both.
 */
export default {
  config: {
    locales: ['fr', 'zh-Hans'],
  },
  bootstrap() {},
};
