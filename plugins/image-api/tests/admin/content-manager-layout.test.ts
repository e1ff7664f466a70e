/**
 * The plugin's Content Manager views laid over the configuration Strapi generates: labels, hints,
 * read-only and hidden fields, list columns and edit rows, and only the fields this app's model has.
 */
import { composeConfiguration, VIEWS } from '../../server/src/admin/content-manager-layout';

const KEY_UID = 'plugin::image-api.api-key';
const generated = (fields: string[]) => ({
  settings: { bulkable: true, filterable: true, searchable: true, pageSize: 10, mainField: 'name', defaultSortBy: 'name', defaultSortOrder: 'ASC' },
  metadatas: Object.fromEntries(
    fields.map((field) => [field, { edit: { label: field, description: '', placeholder: '', visible: true, editable: true }, list: { label: field, searchable: true, sortable: true } }])
  ),
  layouts: { list: ['id', 'name'], edit: [[{ name: 'name', size: 6 }]] },
});
const KEY_FIELDS = ['id', 'documentId', 'name', 'description', 'contact', 'active', 'expires_at', 'rate_limit', 'default_expiration', 'folder', 'owner', 'key_prefix', 'key_last4', 'last_used_at', 'upload_count', 'images', 'createdAt', 'updatedAt'];

test('labels, hints and read-only fields replace the generated ones; fields the plugin does not name stay as generated', () => {
  const composed = composeConfiguration(VIEWS[KEY_UID], generated(KEY_FIELDS));
  expect(composed.metadatas!.upload_count).toEqual({
    edit: { label: 'Uploads', description: 'Accepted uploads; set by the server.', placeholder: '', visible: true, editable: false },
    list: { label: 'Uploads', searchable: true, sortable: true },
  });
  expect(composed.metadatas!.rate_limit.edit).toMatchObject({ label: 'Rate limit', placeholder: '100/minute,2000/day', editable: true });
  expect(composed.metadatas!.expires_at.list.label).toBe('Expires');
  expect(composed.metadatas!.owner.edit.mainField).toBe('email');
  expect(composed.metadatas!.updatedAt).toEqual(generated(KEY_FIELDS).metadatas.updatedAt);
  expect(composed.settings).toMatchObject({ bulkable: true, pageSize: 20, mainField: 'name', defaultSortBy: 'createdAt', defaultSortOrder: 'DESC' });
});

test("without Users & Permissions there is no owner_user: its cell is left out of the row, and the row keeps the admin owner", () => {
  const composed = composeConfiguration(VIEWS[KEY_UID], generated(KEY_FIELDS));
  expect(composed.layouts!.edit).toContainEqual([{ name: 'owner', size: 6 }]);
  expect(composed.layouts!.edit!.flat().map((cell) => cell.name)).not.toContain('owner_user');
  expect(composed.metadatas).not.toHaveProperty('owner_user');
  const withSiteUsers = composeConfiguration(VIEWS[KEY_UID], generated([...KEY_FIELDS, 'owner_user']));
  expect(withSiteUsers.layouts!.edit).toContainEqual([{ name: 'owner', size: 6 }, { name: 'owner_user', size: 6 }]);
});

test('every row of both views fits the twelve columns of the edit view, and hidden fields are in no row', () => {
  for (const view of Object.values(VIEWS)) {
    for (const row of view.edit) expect(row.reduce((sum, [, size]) => sum + size, 0)).toBeLessThanOrEqual(12);
    const placed = view.edit.flat().map(([name]) => name);
    for (const [name, field] of Object.entries(view.fields)) if (field.hidden) expect(placed).not.toContain(name);
  }
});
