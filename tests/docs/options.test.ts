/**
 * The plugin's options are documented from the joi schema (tools/docs/options.js): the table of
 * docs/configuration.md and the variables of .env.example say what the code does.
 */
import { OPTION_VARIABLES } from '../../plugins/image-api/server/src/config/environment';
import { options, stale } from '../../tools/docs/options';

test('docs/configuration.md and .env.example are what the schema says (npm run docs:options)', () => {
  expect(stale()).toEqual([]);
});

test('every option has a description, and every variable names an option', () => {
  const all = options();
  expect(all.length).toBeGreaterThan(30);
  expect(all.filter((option) => option.description.length < 10).map((option) => option.name)).toEqual([]);
  const names = new Set(all.map((option) => option.name));
  expect(Object.keys(OPTION_VARIABLES).filter((name) => !names.has(name))).toEqual([]);
});
