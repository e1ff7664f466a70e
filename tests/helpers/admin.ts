/** Admin users and their JWTs, to call the admin API as the panel does. */
import type { TestApp } from './app';

/** Strapi's default roles, by code. */
export type AdminRole = 'strapi-super-admin' | 'strapi-editor' | 'strapi-author';

/** A JWT of the admin user `email`, made with `role` (a default role, or the code of one made in a test) if new. */
export async function adminToken(
  app: TestApp,
  email = 'admin@img.test',
  password = 'Admin-pass-1234',
  role: AdminRole | string = 'strapi-super-admin'
): Promise<string> {
  const roleRow = await app.strapi.db.query('admin::role').findOne({ where: { code: role } });
  const existing = await app.strapi.db.query('admin::user').findOne({ where: { email } });
  if (!existing) {
    await app.strapi.service('admin::user').create({
      email,
      firstname: role === 'strapi-super-admin' ? 'Ada' : 'Eddie',
      lastname: role.replace('strapi-', ''),
      password,
      isActive: true,
      roles: [roleRow.id],
    });
  }
  const res = await app.http.post('/admin/login').send({ email, password });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${res.text}`);
  return res.body.data.token;
}
