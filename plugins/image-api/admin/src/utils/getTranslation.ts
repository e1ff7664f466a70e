import { PLUGIN_ID } from '../../../shared/identity';

/** The id of one of the plugin's strings (translations/en.json) as Strapi's admin knows it: `image-api.<id>`. */
export const getTranslation = (id: string) => `${PLUGIN_ID}.${id}`;
