/**
 * The admin's strings (admin/src/translations): every language has every English string, each one a
 * valid ICU message with the same arguments (a translation that drops `{days}` or misspells a plural
 * would show raw text or throw in the panel), and nothing English left untranslated by mistake; the
 * Content Manager's labels, hints and type names (`cm.*`) are the server's layout's, word for word.
 */
import fs from 'fs';
import path from 'path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { VIEWS } from '../server/src/admin/content-manager-layout';
import contentTypes from '../server/src/content-types';
import { contentManagerMessages, translateHints } from '../admin/src/utils/contentManagerTexts';

const DIR = path.join(__dirname, '..', 'admin', 'src', 'translations');
const read = (locale: string): Record<string, string> => JSON.parse(fs.readFileSync(path.join(DIR, `${locale}.json`), 'utf8'));
const en = read('en');
const LOCALES = ['fr', 'zh-Hans'];
/** Product names and file formats stay as they are in every language; some words are the same in French. */
const SAME_EVERYWHERE = [
  'plugin.name', 'menu.label', 'usage.title', 'client-config.sharex', 'client-config.picgo', 'client-config.curl',
  // The hash algorithms' names, and the label the web gives such images.
  'review.nsfw', 'review.kind.sha256', 'review.kind.md5', 'review.kind.pdq',
];
const SAME_AS_ENGLISH: Record<string, Set<string>> = {
  fr: new Set([
    ...SAME_EVERYWHERE,
    'stats.images',
    'keys.status.active',
    'review.class.hentai',
    'review.reason.violence',
    'review.reason.spam',
    'keys.holding.value',
    'cm.api-key.description',
    'cm.api-key.contact',
    'cm.api-key.active',
    'cm.api-key.quota_images',
    'cm.api-key.images',
    'cm.image.file',
    'cm.image.description',
    'cm.image.md5',
    'cm.image.album',
  ]),
  'zh-Hans': new Set([...SAME_EVERYWHERE, 'cm.image.md5', 'size.units']),
};

/** The arguments a message uses, sorted. */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date) names.add(element.value);
      if (element.type === TYPE.plural || element.type === TYPE.select) {
        names.add(element.value);
        for (const option of Object.values(element.options)) walk(option.value);
      }
    }
  };
  // `<img srcset>` is text here, not a rich-text tag (hooks/useMessage.ts formats with ignoreTag).
  walk(parse(message, { ignoreTag: true }));
  return [...names].sort();
}

test('the files are the ones the admin registers', () => {
  expect(fs.readdirSync(DIR).sort()).toEqual(['en.json', 'fr.json', 'zh-Hans.json']);
  const index = fs.readFileSync(path.join(DIR, '..', 'index.ts'), 'utf8');
  expect(index).toContain("const TRANSLATIONS: Record<string, Record<string, string>> = { en, fr, 'zh-Hans': zhHans };");
});

describe.each(LOCALES)('%s', (locale) => {
  const strings = read(locale);

  test('has every English string, in the same order, and no other', () => {
    expect(Object.keys(strings)).toEqual(Object.keys(en));
  });

  test('each string parses and uses the same arguments as the English one', () => {
    for (const [id, text] of Object.entries(strings)) {
      expect([id, argumentsOf(text)]).toEqual([id, argumentsOf(en[id])]);
    }
  });

  test('each string is translated (product names and formats aside)', () => {
    const same = Object.keys(en).filter((id) => strings[id] === en[id] && !SAME_AS_ENGLISH[locale].has(id));
    expect(same).toEqual([]);
  });
});

describe("the Content Manager's words for the plugin's types (cm.*)", () => {
  // The server lays the types out in English; the translations hold the same words (one truth).
  const views = Object.entries(VIEWS).map(([uid, view]) => ({ type: uid.split('.').pop()!, view }));

  test('every label and hint the server lays out is an English string, word for word, and no other', () => {
    const expected: Record<string, string> = {};
    for (const { type, view } of views) {
      expected[`cm.${type}`] = (contentTypes as Record<string, { schema: { info: { displayName: string } } }>)[type].schema.info.displayName;
      for (const [field, { label, description }] of Object.entries(view.fields)) {
        expected[`cm.${type}.${field}`] = label;
        if (description) expected[`cm.${type}.${field}.hint`] = description;
      }
    }
    expect(Object.fromEntries(Object.entries(en).filter(([id]) => id.startsWith('cm.')))).toEqual(expected);
  });

  test("every value of the enumerations the Content Manager shows (a key's `duplicates` and `moderation`, an image's `moderation`) is a string (enum.<value>), and no other", () => {
    const enumOf = (type: 'api-key' | 'image', field: string) => (contentTypes[type].schema.attributes as unknown as Record<string, { enum: string[] }>)[field].enum;
    const values = [...new Set([...enumOf('api-key', 'duplicates'), ...enumOf('api-key', 'moderation'), ...enumOf('image', 'moderation')])];
    expect(Object.keys(en).filter((id) => id.startsWith('enum.'))).toEqual(values.map((value) => `enum.${value}`));
    expect(values.map((value) => en[`enum.${value}`])).toEqual(values);
    expect(contentManagerMessages(read('fr'))).toMatchObject({ store: 'stocker à nouveau', reuse: 'réutiliser', refuse: 'refuser' });
  });

  test("the key's description is called Description, as the API, the CLI and docs/api-keys.md call it", () => {
    expect(en['cm.api-key.description']).toBe('Description');
    expect(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'api-keys.md'), 'utf8')).toContain('name, description (the stated use)');
  });

  test("French labels and type names under Strapi's ids; hints swapped where the stored one is the plugin's", () => {
    const fr = read('fr');
    const messages = contentManagerMessages(fr);
    expect(messages['content-manager.content-types.plugin::image-api.api-key.name']).toBe('Nom');
    expect(messages['content-manager.content-types.plugin::image-api.api-key.description']).toBe('Description');
    expect(messages['API key']).toBe("Clé d'API");
    expect(messages['API image']).toBe("Image de l'API");
    expect(Object.keys(messages).some((id) => id.endsWith('.hint'))).toBe(false);
    const layout = {
      layout: [[[{ name: 'name', hint: en['cm.api-key.name.hint'] }, { name: 'contact', hint: 'Our own words' }]]],
      settings: { displayName: 'API key' },
    };
    const translated = translateHints({ layout, query: {} }, fr);
    expect(translated.layout.layout[0][0].map((field) => field.hint)).toEqual([fr['cm.api-key.name.hint'], 'Our own words']);
    // Another type's layout is left as it is.
    const other = { layout: { ...layout, settings: { displayName: 'Article' } }, query: {} };
    expect(translateHints(other, fr)).toBe(other);
  });
});
