/**
 * A test run boots the app from a build of its own (tests/helpers/global-setup.js), not from the
 * dist/ a running `npm run develop`, `npm start` or the key CLI reads (docs/development.md).
 */
import fs from 'fs';
import path from 'path';
import { APP_DIR, useApp } from '../../helpers/app';
import { TEST_DIST_DIR } from '../../../tools/support/app/paths';

const app = useApp();

test("the app boots from the run's own build, which holds the app's config and code", () => {
  expect(TEST_DIST_DIR).not.toBe(path.join(APP_DIR, 'dist'));
  expect(process.env.TEST_APP_DIST).toBe(TEST_DIST_DIR);
  expect(app.strapi.dirs.dist.root).toBe(TEST_DIST_DIR);
  expect(app.strapi.dirs.dist.config).toBe(path.join(TEST_DIST_DIR, 'config'));
  for (const file of ['config/admin.js', 'config/plugins.js', 'config/server.js']) {
    expect(fs.statSync(path.join(TEST_DIST_DIR, file)).size).toBeGreaterThan(0);
  }
  // The admin's secret came from that build's config/admin.js (what the key CLI missed when a
  // test run rewrote dist/ under it).
  expect(app.strapi.config.get('admin.auth.secret')).toEqual(expect.any(String));
});
