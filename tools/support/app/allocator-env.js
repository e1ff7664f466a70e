'use strict';
/**
 * The environment every production process of this app gets (docs/deployment.md). glibc's malloc
 * gives each thread that allocates an arena of its own and keeps what is freed in it, and sharp's
 * libvips threads and the BMP and HEIC workers allocate large, short-lived buffers:
 *
 * - Two arenas, as sharp's documentation recommends on glibc, took 16 concurrent 12 MP HEIC uploads
 *   from 760 MB of RSS to 470 MB.
 * - A fixed mmap threshold (128 KB, glibc's own starting value): glibc raises its threshold to the
 *   size of each large buffer freed (up to 32 MB), and from then on carves buffers that large out of
 *   the arenas, which keep them once freed. Three 77 MP BMPs at once left the arenas holding 140 MB
 *   (a 64 MB arena and 76 MB of the main heap); fixed, buffers of 128 KB and more are mapped and
 *   given back when freed: 35 MB stayed. No cost measured in CPU per upload (`npm run bench`).
 *
 * A value the caller's environment sets wins.
 */
const ALLOCATOR_ENV = {
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
};

module.exports = { ALLOCATOR_ENV };
