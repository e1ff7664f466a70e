'use strict';
/** Where the host app is, for every tool that starts it, builds it or reads its files. */
const path = require('path');

const APP_DIR = path.join(__dirname, '..', '..', '..');

/**
 * The app compiled for test runs (tests/helpers/global-setup.js), apart from `dist/`, which a
 * running `npm run develop` or `npm start` (and the key CLI) boots from: a test run never rewrites
 * the files a running server reads. Under `tests/.artifacts` (ignored by git, and by Strapi's
 * develop watcher, which skips dot folders).
 */
const TEST_DIST_DIR = path.join(APP_DIR, 'tests', '.artifacts', 'app-dist');

/**
 * The compiled app a process boots from: the test build when a test run set `TEST_APP_DIST`
 * (global-setup.js; child processes inherit it), else `dist/`.
 */
const appDistDir = () => process.env.TEST_APP_DIST || path.join(APP_DIR, 'dist');

module.exports = { APP_DIR, TEST_DIST_DIR, appDistDir };
