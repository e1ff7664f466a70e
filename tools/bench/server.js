// The benchmarked server (started by servers.js): the production app on the environment it was given (a scratch
// database, rate limits off). Creates what the bench needs to call it (an image-API key, one whose
// uploads are classified, and a
// full-access Strapi API token for the stock upload), then prints them as one JSON line. Started with
// an IPC channel (library.js), it also fills the library and runs the expiry sweep when asked.
'use strict';

const path = require('path');

(async () => {
  const { createStrapi } = require('@strapi/strapi');
  const { APP_DIR: appDir } = require('../support/app/paths');
  const strapi = await createStrapi({ appDir, distDir: path.join(appDir, 'dist'), serveAdminPanel: false }).load();
  await strapi.listen();
  const keys = strapi.plugin('image-api').service('api-keys');
  const { key, entry } = await keys.create({ name: `bench ${Date.now()}`, rateLimit: 'off' });
  // Every upload of this one is classified (moderation `flag`; at threshold 1 nothing is flagged).
  const { key: moderatedKey } = await keys.create({ name: `bench moderated ${Date.now()}`, rateLimit: 'off', moderation: 'flag', moderationThreshold: 1 });
  const token = await strapi.service('admin::api-token').create({ name: 'bench', type: 'full-access', lifespan: null });
  process.stdout.write(`${JSON.stringify({ ready: true, key, moderatedKey, token: token.accessKey, pid: process.pid })}\n`);
  // SIGTERM and SIGINT: createStrapi() destroys Strapi and exits on them already.
  if (process.send) process.on('message', (message) => answer(strapi, entry, message));
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});

/** IPC requests of library.js: fill the library, time the usage page's reports, run the expiry sweep; answers with what was done and how long it took. */
async function answer(strapi, key, message) {
  const started = performance.now();
  try {
    if (message.type === 'fill') {
      const folder = await strapi.plugin('image-api').service('media-folder').current();
      await require('./library-fill').fillLibrary(strapi, { count: message.count, keyId: key.id, folder });
      process.send({ type: 'filled', ms: performance.now() - started });
    } else if (message.type === 'expire') {
      // Makes these images expired a second ago, as time would.
      const table = strapi.db.metadata.get('plugin::image-api.image').tableName;
      await strapi.db.connection(table).whereIn('id_encoded', message.ids).update({ expires_at: new Date(Date.now() - 1000) });
      process.send({ type: 'expired', ms: performance.now() - started });
    } else if (message.type === 'settle') {
      // After a bulk load: what the database still does in the background (a checkpoint writing it
      // out, autovacuum going through it) is done before anything is measured.
      const knex = strapi.db.connection;
      if (strapi.db.dialect.client === 'postgres') {
        await knex.raw('checkpoint');
        for (let waited = 0; waited < 300_000; waited += 1000) {
          const { rows } = await knex.raw("select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker'");
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 1000));
        }
      } else if (strapi.db.dialect.client === 'sqlite') {
        await knex.raw('pragma wal_checkpoint(TRUNCATE)');
      }
      process.send({ type: 'settled', ms: performance.now() - started });
    } else if (message.type === 'usage') {
      // The admin's Image API page: its two reports, as an admin who may see keys loads them.
      const report = strapi.plugin('image-api').service('usage-report');
      const samples = [];
      let images = 0;
      for (let i = 0; i < message.times; i++) {
        const t = performance.now();
        images = (await report.overview({ days: 30, withKeys: true })).totals.images;
        await report.keys({ days: 30 });
        samples.push(performance.now() - t);
      }
      samples.sort((a, b) => a - b);
      process.send({ type: 'usage', p50: samples[Math.floor(samples.length / 2)], images, ms: performance.now() - started });
    } else if (message.type === 'blocklist') {
      // The blocklist's checks (moderation/blocklist.ts), timed in this process: `times` checks each of
      // a PDQ that matches nothing, a PDQ within 10 bits of a listed one, and a SHA-256 not listed;
      // the PDQ ones both as uploads look them up (the copy in memory) and as the table answers them.
      const blocklist = strapi.plugin('image-api').service('blocklist');
      if (message.add) await addToBlocklist(blocklist, message.add);
      const loadStarted = performance.now();
      const loadMs = await mirrorLoaded(blocklist, message.miss);
      const time = async (lookup) => {
        const samples = [];
        let matched = null;
        for (let i = 0; i < message.times; i++) {
          const t = performance.now();
          matched = await lookup();
          samples.push(performance.now() - t);
        }
        samples.sort((a, b) => a - b);
        return { p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.floor(samples.length * 0.99)], matched: matched !== null };
      };
      const distance = strapi.config.get('plugin::image-api').moderation.blockDistance;
      const counts = await blocklist.count();
      const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
      process.send({
        type: 'blocklist',
        counts,
        mirror: { ...blocklist.mirrorState(), loadMs: loadMs ?? performance.now() - loadStarted },
        memory: { rss, heapUsed, external, arrayBuffers },
        miss: await time(() => blocklist.check({ sha256: [], md5: [], pdq: message.miss })),
        hit: await time(() => blocklist.check({ sha256: [], md5: [], pdq: message.hit })),
        missTable: await time(() => blocklist.perceptualMatchInTable(message.miss, distance)),
        hitTable: await time(() => blocklist.perceptualMatchInTable(message.hit, distance)),
        exact: await time(() => blocklist.check({ sha256: [message.sha256], md5: [], pdq: null })),
        ms: performance.now() - started,
      });
    } else if (message.type === 'blocklist-fill') {
      // The large library's blocklist (library.js): these hashes imported, the copy in memory loaded.
      const blocklist = strapi.plugin('image-api').service('blocklist');
      await addToBlocklist(blocklist, message.pdq, message.sha256, message.md5);
      const loadMs = await mirrorLoaded(blocklist, message.pdq[0]);
      process.send({ type: 'blocklist-filled', counts: await blocklist.count(), mirror: { ...blocklist.mirrorState(), loadMs }, ms: performance.now() - started });
    } else if (message.type === 'sweep') {
      const removed = await strapi.plugin('image-api').service('expiry-sweep').run();
      process.send({ type: 'swept', removed, ms: performance.now() - started });
    }
  } catch (error) {
    // The first lines only: a failed bulk insert quotes all of its statement.
    process.send({ type: 'error', message: String(error.stack).slice(0, 2000) });
  }
}

/** Imports hashes as an admin's list would be (20,000 a transaction). */
async function addToBlocklist(blocklist, pdq, sha256 = [], md5 = []) {
  for (const [kind, hashes] of [['pdq', pdq], ['sha256', sha256], ['md5', md5]]) {
    for (let start = 0; start < hashes.length; start += 20_000) await blocklist.importText(kind, hashes.slice(start, start + 20_000).join('\n'));
  }
}

/** Looks `probe` up until the copy in memory is loaded (it loads lazily, in the background); returns how long that took, ms. */
async function mirrorLoaded(blocklist, probe) {
  const started = performance.now();
  for (let waited = 0; waited < 120_000; waited += 20) {
    await blocklist.check({ sha256: [], md5: [], pdq: probe });
    if (blocklist.mirrorState().loaded) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the blocklist copy did not load within 2 minutes');
}
