#!/usr/bin/env node
/**
 * What work on every frame of an animation costs (docs/performance.md, "Animations"), with the app's
 * own encoder settings (the built plugin's images/animation-encoding.ts): libvips decodes every frame,
 * resizes it and encodes the animation again, on one libvips thread as the app runs two images on two
 * cores, each case in a process of its own so that its peak RSS is its own. The work:
 *
 * - `width`: the original resized by one pixel, as an upload's `width` does (quality 92);
 * - `.th`: the square thumbnail of every frame (160×160) an upload of an animation makes;
 * - `to GIF` / `to WebP`: the frames at their size written as the other format, as a transformation
 *   `f:gif` / `f:webp` of the source does (`to GIF` of a GIF source: the unsigned URL's answer to a
 *   client that takes no WebP);
 * - `header`: what libvips' header read of a GIF of many frames costs, which the API's frame count
 *   avoids.
 *
 *   npm run bench:animations [-- --json]     (builds nothing: run `npm run build:plugin` first)
 *
 * The synthetic files are made by tools/support/images (gif.js, webp.js): squares of 8 pixels in 256
 * colours, 8 (GIF) or 4 (WebP) pictures in turn. The photographic ones: 16 frames of smooth gradients
 * with grain (as tools/bench/fixtures.js makes photos), repeated in turn; their GIF has one palette for
 * all frames (as most GIF encoders write them), and is 13 MB: past the default `maxBytes`, so that it
 * stands for the worst an upload could bring. Nothing but this machine.
 */
'use strict';

const { execFileSync } = require('child_process');
const { parseArgs } = require('util');

const { values: opts } = parseArgs({ options: { json: { type: 'boolean', default: false }, case: { type: 'string' } } });

/** Each case: the animation (`photo`: photographic frames), and what is done to it. */
const CASES = [
  { name: 'GIF 10,000 × 100×100 (the review\'s)', type: 'gif', width: 100, height: 100, frames: 10_000, block: 32, work: 'width' },
  { name: 'GIF 500 × 200×200 (the bounds)', type: 'gif', width: 200, height: 200, frames: 500, block: 8, work: 'width' },
  { name: 'GIF 500 × 200×200 (the bounds)', type: 'gif', width: 200, height: 200, frames: 500, block: 8, work: 'thumb' },
  { name: 'GIF 1,000 × 10×10 (frames)', type: 'gif', width: 10, height: 10, frames: 1000, block: 2, work: 'width' },
  { name: 'GIF 100 × 500×500 (pixels)', type: 'gif', width: 500, height: 500, frames: 100, block: 8, work: 'width' },
  { name: 'WebP 500 × 200×200 (the bounds)', type: 'webp', width: 200, height: 200, frames: 500, block: 8, work: 'width' },
  { name: 'WebP 500 × 200×200 (the bounds)', type: 'webp', width: 200, height: 200, frames: 500, block: 8, work: 'thumb' },
  { name: 'WebP 100 × 500×500 (pixels)', type: 'webp', width: 500, height: 500, frames: 100, block: 8, work: 'width' },
  { name: 'WebP 1,000 × 10×10 (frames)', type: 'webp', width: 10, height: 10, frames: 1000, block: 2, work: 'width' },
  { name: 'GIF 500 × 200×200 photographic', type: 'gif', width: 200, height: 200, frames: 500, photo: true, work: 'width' },
  { name: 'GIF 500 × 200×200 photographic', type: 'gif', width: 200, height: 200, frames: 500, photo: true, work: 'thumb' },
  { name: 'GIF 500 × 200×200 photographic', type: 'gif', width: 200, height: 200, frames: 500, photo: true, work: 'gif' },
  { name: 'GIF 500 × 200×200 photographic', type: 'gif', width: 200, height: 200, frames: 500, photo: true, work: 'webp' },
  { name: 'WebP 500 × 200×200 photographic', type: 'webp', width: 200, height: 200, frames: 500, photo: true, work: 'width' },
  { name: 'WebP 500 × 200×200 photographic', type: 'webp', width: 200, height: 200, frames: 500, photo: true, work: 'thumb' },
  { name: 'WebP 500 × 200×200 photographic', type: 'webp', width: 200, height: 200, frames: 500, photo: true, work: 'gif' },
  { name: 'GIF 500,000 × 1×1: header read', type: 'gif', width: 1, height: 1, frames: 500_000, block: 1, colorBits: 1, work: 'metadata' },
];

const WORK_LABEL = { width: (spec) => `width ${spec.width - 1}`, thumb: () => '.th', gif: () => 'to GIF', webp: () => 'to WebP', metadata: () => 'header' };

/** A frame of smooth gradients with grain, moved along by `shift`. */
function photoFrame(width, height, seed, shift) {
  const data = Buffer.alloc(width * height * 3);
  let s = seed >>> 0 || 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const noise = ((s & 0xff) - 128) * 0.1;
      const i = (y * width + x) * 3;
      const u = x / width + shift;
      const v = y / height;
      data[i] = Math.max(0, Math.min(255, 120 + 90 * Math.sin(6 * u + 2 * v) + noise));
      data[i + 1] = Math.max(0, Math.min(255, 110 + 80 * Math.cos(5 * v - 3 * u) + noise));
      data[i + 2] = Math.max(0, Math.min(255, 100 + 70 * Math.sin(9 * u * v + 1) + noise));
    }
  }
  return data;
}

/** The photographic animation: 16 frames in turn; a GIF of one palette (libvips' global mode). */
async function photoAnimation(sharp, spec) {
  const { width, height, frames } = spec;
  const stills = [];
  for (let f = 0; f < 16; f++) stills.push(await sharp(photoFrame(width, height, f + 1, f * 0.03), { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer());
  const joined = sharp(Array.from({ length: frames }, (_, f) => stills[f % 16]), { join: { animated: true } });
  return spec.type === 'gif'
    ? joined.gif({ delay: 40, loop: 0, effort: 1, interPaletteMaxError: 256 }).toBuffer()
    : joined.webp({ delay: 40, loop: 0, quality: 80 }).toBuffer();
}

/** One case, in this process: its figures as JSON on stdout. */
async function runCase(spec) {
  const sharp = require('sharp');
  const { animatedGif } = require('../support/images/gif');
  const { animatedWebp } = require('../support/images/webp');
  const { encodeAnimation } = require('../../plugins/image-api/dist/server/src/images/animation-encoding');
  sharp.cache(false);
  sharp.concurrency(1);
  const file = spec.photo ? await photoAnimation(sharp, spec) : spec.type === 'gif' ? animatedGif(spec) : await animatedWebp(spec);
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  let output = 0;
  if (spec.work === 'metadata') {
    await sharp(file).metadata();
  } else {
    const frames = sharp(file, { animated: true, limitInputPixels: false });
    const pipeline = {
      width: () => frames.keepIccProfile().resize({ width: spec.width - 1 }),
      thumb: () => frames.resize(160, 160, { fit: 'cover', position: 'centre' }),
      gif: () => frames,
      webp: () => frames,
    }[spec.work]();
    const format = spec.work === 'gif' || spec.work === 'webp' ? spec.work : spec.type;
    output = (await encodeAnimation(pipeline, format, spec.work === 'width' ? 92 : 85).toBuffer()).length;
  }
  const cpu = process.cpuUsage(before);
  const pixels = spec.width * spec.height * spec.frames;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    name: spec.name,
    work: WORK_LABEL[spec.work](spec),
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
  const results = CASES.map((_, i) => JSON.parse(execFileSync(process.execPath, [__filename, '--case', String(i)], { encoding: 'utf8', maxBuffer: 1 << 20 })));
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    console.log('| animation | MB | MP | work | output MB | CPU ms | µs a pixel | ms a frame | peak RSS MB |');
    console.log('| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results) {
      console.log(
        `| ${r.name} | ${mb(r.bytes)} | ${r.megapixels.toFixed(1)} | ${r.work} | ${r.output ? mb(r.output) : '-'} | ${r.cpuMs.toFixed(0)} | ${r.usPerPixel.toFixed(2)} | ${r.msPerFrame.toFixed(2)} | ${r.peakRssMb.toFixed(0)} |`
      );
    }
  }
}
