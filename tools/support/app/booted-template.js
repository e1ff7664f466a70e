'use strict';
/**
 * The booted database a test run's files copy (scratch-db.js, `from`): a scratch database the
 * compiled app has booted on once, in a process of its own (load-once.js), made by the run's global
 * setup and dropped by its teardown. Its description goes to a file named by `TEST_DB_TEMPLATE`,
 * which the run's workers inherit (MariaDB's is the template's tables, too long for a variable).
 * The app's first boot on a database is the same whatever a test file's environment: a copy is
 * what that file's boot would have made, minus the time (tests that boot on a fresh database on
 * purpose call createScratchDb() without it).
 */
const { execFile } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { promisify } = require('util');
const { createScratchDb, templateOf, testDb } = require('./scratch-db');

const ENV = 'TEST_DB_TEMPLATE';

/**
 * Boots the app once on a fresh database of `client` and describes it for copies; `env`: the
 * variables the boot adds to this process's. Sets `TEST_DB_TEMPLATE`; `drop()` undoes it all.
 * @param {import('./scratch-db').TestDb} [client]
 * @param {Record<string, string>} [env]
 */
async function makeBootedTemplate(client = testDb(), env = {}) {
  const db = await createScratchDb(client);
  const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-template-'));
  const file = path.join(os.tmpdir(), `imgapi-template-${crypto.randomBytes(6).toString('hex')}.json`);
  const drop = async () => {
    if (process.env[ENV] === file) delete process.env[ENV];
    fs.rmSync(file, { force: true });
    fs.rmSync(publicDir, { recursive: true, force: true });
    fs.rmSync(`${publicDir}-tmp`, { recursive: true, force: true });
    await db.drop();
  };
  try {
    fs.mkdirSync(path.join(publicDir, 'uploads'));
    await promisify(execFile)(process.execPath, [path.join(__dirname, 'load-once.js')], {
      env: { ...process.env, PUBLIC_DIR: publicDir, IMAGE_API_TMP_DIR: `${publicDir}-tmp`, ...env, ...db.env },
      timeout: 120_000,
    });
    fs.writeFileSync(file, JSON.stringify(await templateOf(db)));
  } catch (error) {
    await drop();
    throw error;
  }
  process.env[ENV] = file;
  return { drop };
}

/** The run's booted database, if its global setup made one (`TEST_DB_TEMPLATE`). @returns {import('./scratch-db').Template | null} */
function bootedTemplate() {
  const file = process.env[ENV];
  return file ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
}

module.exports = { makeBootedTemplate, bootedTemplate };
