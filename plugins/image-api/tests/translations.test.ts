/**
 * The admin's strings (admin/src/translations): every language has every English string, each one a
 * valid ICU message with the same arguments (a translation that drops `{days}` or misspells a plural
 * would show raw text or throw in the panel), and nothing English left untranslated by mistake.
 */
import fs from 'fs';
import path from 'path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

const DIR = path.join(__dirname, '..', 'admin', 'src', 'translations');
const read = (locale: string): Record<string, string> => JSON.parse(fs.readFileSync(path.join(DIR, `${locale}.json`), 'utf8'));
const en = read('en');
const LOCALES = ['fr', 'zh-Hans'];
/** Product names and file formats stay as they are in every language; some words are the same in French. */
const SAME_EVERYWHERE = ['plugin.name', 'menu.label', 'usage.title', 'client-config.sharex', 'client-config.picgo', 'client-config.curl'];
const SAME_AS_ENGLISH: Record<string, Set<string>> = {
  fr: new Set([...SAME_EVERYWHERE, 'stats.images', 'keys.status.active', 'keys.holding.value']),
  'zh-Hans': new Set(SAME_EVERYWHERE),
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
