/**
 * newDocumentId: ids shaped as Strapi's own default makes them (cuid2: 24 characters, a letter then
 * letters and digits; tests/api/operations/strapi-rows.test.ts holds one beside Strapi's), none twice.
 */
import { newDocumentId } from '../../server/src/database/sql-rows';

test("24 characters, a letter then letters and digits, as Strapi's default", () => {
  for (let i = 0; i < 1000; i++) expect(newDocumentId()).toMatch(/^[a-z][a-z0-9]{23}$/);
});

test('100,000 ids: all distinct, every character used in every place after the first', () => {
  const ids = Array.from({ length: 100_000 }, newDocumentId);
  expect(new Set(ids).size).toBe(ids.length);
  for (let place = 1; place < 24; place++) expect(new Set(ids.map((id) => id[place])).size).toBe(36);
  expect(new Set(ids.map((id) => id[0])).size).toBe(26);
});
