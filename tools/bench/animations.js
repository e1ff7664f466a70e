#!/usr/bin/env node
/**
 * What work on every frame of an animation costs (docs/performance.md, "Animations"): the pipeline
 * an upload with `width` runs (libvips decodes every frame, resizes it, encodes the animation again:
 * a GIF's colours quantized anew, a WebP at quality 92), on one libvips thread as the app runs two
 * images on two cores, each case in a process of its own so that its peak RSS is its own. Also what
 * libvips' header read of a GIF of many frames costs, which the API's frame count avoids.
 *
 *   npm run bench:animations [-- --json]
 *
 * The files are made by tools/support/images (gif.js, webp.js): squares of 8 pixels in 256 colours,
 * 8 (GIF) or 4 (WebP) pictures in turn. Nothing but this machine.
 */
'use strict';

const { execFileSync } = require('child_process');
const { parseArgs } = require('util');

const { values: opts } = parseArgs({ options: { json: { type: 'boolean', default: false }, case: { type: 'string' } } });

/** Each case: the animation, and what is done to it. */
const CASES = [
  { name: 'GIF 10,000 × 100×100 (the review\'s)', type: 'gif', width: 100, height: 100, frames: 10_000, block: 32, work: 'resize' },
  { name: 'GIF 500 × 200×200 (the bounds)', type: 'gif', width: 200, height: 200, frames: 500, block: 8, work: 'resize' },
  { name: 'GIF 1,000 × 10×10 (frames)', type: 'gif', width: 10, height: 10, frames: 1000, block: 2, work: 'resize' },
  { name: 'GIF 100 × 500×500 (pixels)', type: 'gif', width: 500, height: 500, frames: 100, block: 8, work: 'resize' },
  { name: 'WebP 500 × 200×200 (the bounds)', type: 'webp', width: 200, height: 200, frames: 500, block: 8, work: 'resize' },
  { name: 'WebP 100 × 500×500 (pixels)', type: 'webp', width: 500, height: 500, frames: 100, block: 8, work: 'resize' },
  { name: 'WebP 1,000 × 10×10 (frames)', type: 'webp', width: 10, height: 10, frames: 1000, block: 2, work: 'resize' },
  { name: 'GIF 500,000 × 1×1: header read', type: 'gif', width: 1, height: 1, frames: 500_000, block: 1, colorBits: 1, work: 'metadata' },
];

/** One case, in this process: its figures as JSON on stdout. */
async function runCase(spec) {
  const sharp = require('sharp');
  const { animatedGif } = require('../support/images/gif');
  const { animatedWebp } = require('../support/images/webp');
  sharp.cache(false);
  sharp.concurrency(1);
  const file = spec.type === 'gif' ? animatedGif(spec) : await animatedWebp(spec);
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  let output = 0;
  if (spec.work === 'metadata') {
    await sharp(file).metadata();
  } else {
    const pipeline = sharp(file, { animated: true, limitInputPixels: false }).keepIccProfile().resize({ width: spec.width - 1 });
    output = (await (spec.type === 'gif' ? pipeline.gif() : pipeline.webp({ quality: 92 })).toBuffer()).length;
  }
  const cpu = process.cpuUsage(before);
  const pixels = spec.width * spec.height * spec.frames;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    name: spec.name,
    bytes: file.length,
    megapixels: pixels / 1e6,
    output,
    wallMs: Number(process.hrtime.bigint() - started) / 1e6,
    cpuMs,
    usPerPixel: (cpuMs * 1000) / pixels,
    msPerFrame: cpuMs / spec.frames,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

if (opts.case !== undefined) {
  runCase(CASES[Number(opts.case)]).then((result) => process.stdout.write(JSON.stringify(result)));
} else {
  const results = CASES.map((_, i) => JSON.parse(execFileSync(process.execPath, [__filename, '--case', String(i)], { encoding: 'utf8' })));
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    console.log('| animation | MB | MP | work | output MB | CPU ms | µs a pixel | ms a frame | peak RSS MB |');
    console.log('| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const [i, r] of results.entries()) {
      const work = CASES[i].work === 'metadata' ? 'header' : `width ${CASES[i].width - 1}`;
      console.log(
        `| ${r.name} | ${mb(r.bytes)} | ${r.megapixels.toFixed(1)} | ${work} | ${r.output ? mb(r.output) : '-'} | ${r.cpuMs.toFixed(0)} | ${r.usPerPixel.toFixed(2)} | ${r.msPerFrame.toFixed(2)} | ${r.peakRssMb.toFixed(0)} |`
      );
    }
  }
}
