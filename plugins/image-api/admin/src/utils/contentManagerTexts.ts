/**
 * The Content Manager's words for the plugin's types in the admin's language. The server lays the
 * types out with English labels and hints (server/src/admin/content-manager-layout.ts); the
 * translations hold them as `cm.<type>` (the type's name), `cm.<type>.<field>` (a label) and
 * `cm.<type>.<field>.hint`, and an enumeration's values as `enum.<value>`. Strapi translates a label by the id
 * `content-manager.content-types.<uid>.<field>` and a type's name by its display name, so those ids
 * are registered for every language but English (English is the layout itself, and an admin's own
 * labels from "Configure the view" stay). Hints it shows as stored: they are swapped in the edit
 * view's layout, and only where the stored hint is still the plugin's English one.
 */
import { PLUGIN_ID } from '../../../shared/identity';
import en from '../translations/en.json';

const ENGLISH: Record<string, string> = en;
const uidOf = (type: string) => `plugin::${PLUGIN_ID}.${type}`;

/** Strapi's own ids for the plugin's type names, labels and enumeration values, in `strings`' language. */
export function contentManagerMessages(strings: Record<string, string>): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const [id, text] of Object.entries(strings)) {
    // An enumeration's values (a key's `duplicates`): Strapi's select translates each by the value itself.
    if (id.startsWith('enum.')) messages[id.slice('enum.'.length)] = text;
    const [prefix, type, field, hint] = id.split('.');
    if (prefix !== 'cm' || hint !== undefined) continue;
    if (field === undefined) messages[ENGLISH[id]] = text;
    else messages[`content-manager.content-types.${uidOf(type)}.${field}`] = text;
  }
  return messages;
}

interface EditField {
  name: string;
  hint?: unknown;
}

interface EditLayout {
  layout: EditField[][][];
  settings?: { displayName?: string };
}

/** The edit view's layout with the plugin's hints in `strings`' language; other types' as they are. */
export function translateHints<T extends { layout: EditLayout }>(args: T, strings: Record<string, string>): T {
  const { layout } = args;
  const type = Object.keys(ENGLISH).find((id) => /^cm\.[^.]+$/.test(id) && ENGLISH[id] === layout?.settings?.displayName)?.slice(3);
  if (!type || !Array.isArray(layout.layout)) return args;
  const hinted = (field: EditField): EditField => {
    const id = `cm.${type}.${field.name}.hint`;
    return ENGLISH[id] !== undefined && field.hint === ENGLISH[id] && strings[id] ? { ...field, hint: strings[id] } : field;
  };
  return { ...args, layout: { ...layout, layout: layout.layout.map((panel) => panel.map((row) => row.map(hinted))) } };
}
