// Fills a library with `count` images' rows, as uploads leave them, in bulk: the image records, their
// Media Library files, the rows that link them (key, album, folder, media field), and what uploads
// count: the usage page's tallies per day and key, the key's live images and bytes. Run inside the
// bench server (it has Strapi's metadata, so table and column names are the app's own). The files are
// not written to disk: the viewer, the uploads and the sweep measured here never read the filler's.
'use strict';

const crypto = require('crypto');

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (length) => Array.from(crypto.randomBytes(length), (b) => ALPHABET[b % 62]).join('');

/** Rows of one insert statement: knex writes SQLite's as a compound SELECT, at most 500 terms. */
const BATCH = 400;

async function fillLibrary(strapi, { count, keyId, folder }) {
  const knex = strapi.db.connection;
  const meta = (uid) => strapi.db.metadata.get(uid);
  const column = (uid, attribute) => meta(uid).attributes[attribute].columnName ?? attribute;
  const images = meta('plugin::image-api.image');
  const files = meta('plugin::upload.file');
  const morph = files.attributes.related.joinTable;
  const folderLink = files.attributes.folder.joinTable;
  const keyLink = images.attributes.api_key.joinTable;
  const albumLink = images.attributes.album.joinTable;
  const nextId = async (table) => Number((await knex(table).max({ id: 'id' }))[0].id ?? 0) + 1;
  let imageId = await nextId(images.tableName);
  let fileId = await nextId(files.tableName);
  const now = new Date();
  const started = Date.now();
  /** Uploads per day (all under `keyId`), as the usage tallies count them. */
  const uploadsByDay = new Map();
  // What the usage tallies and quotas count per image (storage/usage-tally.ts, storedBytes): the
  // original's and its two variants' kilobytes below (60 + 10 + 10), in bytes.
  const BYTES_PER_IMAGE = 80_000;

  for (let done = 0; done < count; done += BATCH) {
    const n = Math.min(BATCH, count - done);
    const imageRows = [];
    const fileRows = [];
    const links = { morph: [], folder: [], key: [], album: [] };
    for (let i = 0; i < n; i++, imageId++, fileId++) {
      const idEncoded = randomId(10);
      const name = `fill-${idEncoded}`;
      // One in ten expires some day in the next months: the expiry index is not empty.
      const expiresAt = i % 10 === 0 ? new Date(now.getTime() + (1 + (imageId % 180)) * 86_400_000) : null;
      // Uploaded over the past year and viewed unevenly, as a real library: the usage page's chart,
      // most viewed and latest images read through indexes, not from a single day's rows.
      const uploadedAt = new Date(now.getTime() - (1 + (imageId % 365)) * 86_400_000);
      const day = uploadedAt.toISOString().slice(0, 10);
      uploadsByDay.set(day, (uploadsByDay.get(day) ?? 0) + 1);
      imageRows.push({
        id: imageId,
        document_id: randomId(24).toLowerCase(),
        [column('plugin::image-api.image', 'id_encoded')]: idEncoded,
        name,
        [column('plugin::image-api.image', 'md5')]: crypto.createHash('md5').update(name).digest('hex'),
        views: (imageId * 7919) % 1000,
        nsfw: false,
        original_filename: `${name}.png`,
        expires_at: expiresAt,
        delete_hash: crypto.createHash('sha256').update(name).digest('hex'),
        created_at: uploadedAt,
        updated_at: uploadedAt,
        published_at: now,
      });
      const format = (suffix, width, height) => ({ name: `${name}${suffix}.png`, hash: `${name}${suffix}`, ext: '.png', mime: 'image/png', width, height, size: 10, sizeInBytes: 10000, url: `/uploads/${name}${suffix}.png`, path: null });
      fileRows.push({
        id: fileId,
        document_id: randomId(24).toLowerCase(),
        name: `${name}.png`,
        hash: name,
        ext: '.png',
        mime: 'image/png',
        size: 60,
        width: 800,
        height: 600,
        url: `/uploads/${name}.png`,
        formats: JSON.stringify({ thumbnail: format('.th', 160, 160), medium: format('.md', 500, 375) }),
        provider: 'local',
        folder_path: folder.path,
        created_at: now,
        updated_at: now,
        published_at: now,
      });
      links.morph.push({ [morph.joinColumn.name]: fileId, [morph.morphColumn.idColumn.name]: imageId, [morph.morphColumn.typeColumn.name]: 'plugin::image-api.image', field: 'file', order: 1 });
      links.folder.push({ [folderLink.joinColumn.name]: fileId, [folderLink.inverseJoinColumn.name]: folder.id, [folderLink.inverseOrderColumnName]: fileId });
      links.key.push({ [keyLink.joinColumn.name]: imageId, [keyLink.inverseJoinColumn.name]: keyId });
      links.album.push({ [albumLink.joinColumn.name]: imageId, [albumLink.inverseJoinColumn.name]: folder.id });
    }
    await knex.transaction(async (trx) => {
      await trx(images.tableName).insert(imageRows);
      await trx(files.tableName).insert(fileRows);
      await trx(morph.name).insert(links.morph);
      await trx(folderLink.name).insert(links.folder);
      await trx(keyLink.name).insert(links.key);
      await trx(albumLink.name).insert(links.album);
    });
    if ((done / BATCH) % 250 === 0) process.stderr.write(`  library: ${done + n} of ${count} rows (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }

  const tally = strapi.plugin('image-api').service('usage-tally').table();
  await knex.transaction(async (trx) => {
    for (const [day, uploads] of uploadsByDay) {
      const bytes = uploads * BYTES_PER_IMAGE;
      await trx(tally)
        .insert({ day, key_id: keyId, uploads, removals: 0, bytes_added: bytes, bytes_removed: 0, views: 0 })
        .onConflict(['day', 'key_id'])
        .merge({ uploads: trx.raw('?? + ?', [`${tally}.uploads`, uploads]), bytes_added: trx.raw('?? + ?', [`${tally}.bytes_added`, bytes]) });
    }
    const keys = meta('plugin::image-api.api-key');
    const live = (attribute, n) => trx.raw('COALESCE(??, 0) + ?', [column('plugin::image-api.api-key', attribute), n]);
    await trx(keys.tableName).where('id', keyId).update({
      [column('plugin::image-api.api-key', 'live_images')]: live('live_images', count),
      [column('plugin::image-api.api-key', 'live_bytes')]: live('live_bytes', count * BYTES_PER_IMAGE),
    });
  });

  // Explicit ids leave PostgreSQL's sequences behind: the next upload must not reuse one.
  if (strapi.db.dialect.client === 'postgres') {
    for (const table of [images.tableName, files.tableName, morph.name, folderLink.name, keyLink.name, albumLink.name]) {
      await knex.raw(`select setval(pg_get_serial_sequence(?, 'id'), (select max(id) from ??))`, [table, table]);
    }
    // What autovacuum does after a load this size, done now rather than during the measurements: a
    // library of a million images was vacuumed and analyzed long ago.
    for (const table of [images.tableName, files.tableName, morph.name, folderLink.name, keyLink.name, albumLink.name]) {
      await knex.raw('vacuum analyze ??', [table]);
    }
  }
  return { seconds: (Date.now() - started) / 1000 };
}

module.exports = { fillLibrary };
