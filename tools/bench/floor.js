// a, the floor: the bare pipeline any image host must run at least, in the bench process: md5,
// metadata, write the original, a 160×160 cover thumb and a 500-wide medium, with sharp.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const sharp = require('sharp');

async function floorPipeline(fixture, dir) {
  const bytes = fixture.bytes;
  const id = crypto.randomBytes(6).toString('hex');
  const ext = fixture.type === 'image/png' ? 'png' : 'jpg';
  const format = ext === 'png' ? 'png' : 'jpeg';
  crypto.createHash('md5').update(bytes).digest('hex');
  await sharp(bytes).metadata();
  // The same encoder settings as the API (JPEG quality 85; PNG defaults: `quality` would quantize).
  const encode = (pipeline) => (format === 'png' ? pipeline.png() : pipeline.jpeg({ quality: 85 }));
  const [thumb, medium] = await Promise.all([
    encode(sharp(bytes).resize(160, 160, { fit: 'cover' })).toBuffer(),
    encode(sharp(bytes).resize({ width: 500, withoutEnlargement: true })).toBuffer(),
    fs.promises.writeFile(path.join(dir, `${id}.${ext}`), bytes),
  ]);
  await Promise.all([
    fs.promises.writeFile(path.join(dir, `${id}.th.${ext}`), thumb),
    fs.promises.writeFile(path.join(dir, `${id}.md.${ext}`), medium),
  ]);
}

module.exports = { floorPipeline };
