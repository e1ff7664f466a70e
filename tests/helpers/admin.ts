/** A super admin and its JWT, to call the admin API as the panel does. */
import type { TestApp } from './app';

export async function adminToken(app: TestApp, email = 'admin@img.test', password = 'Admin-pass-1234'): Promise<string> {
  const superAdmin = await app.strapi.service('admin::role').getSuperAdmin();
  const existing = await app.strapi.db.query('admin::user').findOne({ where: { email } });
  if (!existing) {
    await app.strapi.service('admin::user').create({
      email,
      firstname: 'Ada',
      lastname: 'Admin',
      password,
      isActive: true,
      roles: [superAdmin.id],
    });
  }
  const res = await app.http.post('/admin/login').send({ email, password });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${res.text}`);
  return res.body.data.token;
}
