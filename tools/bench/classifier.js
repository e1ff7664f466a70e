#!/usr/bin/env node
/**
 * The classifier's choices, measured (docs/moderation.md, docs/performance.md):
 *
 *   node tools/bench/classifier.js [--runs 20]
 *
 * For each TensorFlow.js backend (wasm, cpu) and each model nsfwjs ships (MobileNetV2,
 * MobileNetV2Mid, InceptionV3), in a process of its own: the model's load, the time of one 224×224
 * classification (median of --runs, after one warm-up), the process's RSS once loaded and after the
 * runs, and the top class of two photographs and a graphic (Strapi's example app's pictures). Nothing is downloaded; only files on disk.
 */
'use strict';

const { execFileSync } = require('child_process');
const path = require('path');
const { parseArgs } = require('util');

const PLUGIN = path.join(__dirname, '../../plugins/image-api');
const { values: opts } = parseArgs({ options: { runs: { type: 'string', default: '20' }, child: { type: 'string' } } });

async function child(backendName, modelName, runs) {
  const fromPlugin = (id) => require(require.resolve(id, { paths: [PLUGIN] }));
  const tf = fromPlugin('@tensorflow/tfjs');
  const wasm = fromPlugin('@tensorflow/tfjs-backend-wasm');
  const nsfwjs = fromPlugin('nsfwjs');
  const sharp = fromPlugin('sharp');
  const uploads = path.join(path.dirname(require.resolve('create-strapi-app/package.json')), 'templates/example/data/uploads');
  const pictures = { landscape: path.join(uploads, 'beautiful-picture.jpg'), coffee: path.join(uploads, 'coffee-beans.jpg'), drawing: path.join(uploads, 'default-image.png') };
  const info = console.info;
  console.info = () => undefined;
  if (backendName === 'wasm') wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm', { paths: [PLUGIN] }))}/`);
  await tf.setBackend(backendName);
  await tf.ready();
  const started = process.hrtime.bigint();
  const model = await nsfwjs.load(modelName, { size: modelName === 'InceptionV3' ? 299 : 224 });
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  console.info = info;
  const loadedRssMb = process.memoryUsage().rss / 1e6;
  const classes = {};
  let pixelsOfLandscape;
  for (const [name, source] of Object.entries(pictures)) {
    const pixels = await sharp(source).resize(224, 224, { fit: 'fill' }).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer();
    if (name === 'landscape') pixelsOfLandscape = pixels;
    const input = tf.tensor3d(new Uint8Array(pixels), [224, 224, 3], 'int32');
    const [first] = await model.classify(input, 1);
    input.dispose();
    classes[name] = `${first.className} ${first.probability.toFixed(2)}`;
  }
  const times = [];
  for (let i = 0; i < runs; i++) {
    const input = tf.tensor3d(new Uint8Array(pixelsOfLandscape), [224, 224, 3], 'int32');
    const t = process.hrtime.bigint();
    await model.classify(input);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    input.dispose();
  }
  times.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ backend: backendName, model: modelName, loadMs, medianMs: times[Math.floor(times.length / 2)], loadedRssMb, afterRssMb: process.memoryUsage().rss / 1e6, classes }));
}

function main() {
  const rows = [];
  for (const backend of ['wasm', 'cpu']) {
    for (const model of ['MobileNetV2', 'MobileNetV2Mid', 'InceptionV3']) {
      // The plain JavaScript backend is too slow for InceptionV3 to be worth the wait.
      if (backend === 'cpu' && model === 'InceptionV3') continue;
      process.stderr.write(`classifier bench: ${backend} ${model}…\n`);
      const runs = backend === 'cpu' ? '3' : opts.runs;
      const out = execFileSync(process.execPath, [__filename, '--child', `${backend},${model}`, '--runs', runs], { encoding: 'utf8', maxBuffer: 1e6 });
      rows.push(JSON.parse(out));
    }
  }
  const base = rows[0].medianMs;
  console.log('| backend | model | load | classification (median) | vs wasm MobileNetV2 | RSS loaded | RSS after | landscape | coffee | drawing |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.backend} | ${r.model} | ${(r.loadMs / 1000).toFixed(1)} s | ${r.medianMs.toFixed(0)} ms | ${(r.medianMs / base).toFixed(2)} | ${r.loadedRssMb.toFixed(0)} MB | ${r.afterRssMb.toFixed(0)} MB | ${r.classes.landscape} | ${r.classes.coffee} | ${r.classes.drawing} |`
    );
  }
}

if (opts.child) {
  const [backend, model] = opts.child.split(',');
  child(backend, model, Number(opts.runs)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main();
}
