// Native profiles with Linux perf (Debian's linux-perf): where a process's CPU goes, JavaScript
// and libvips threads alike, sampled by the kernel's cpu-clock (this box's virtual machine has no
// hardware counters). libvips-cpp (sharp's prebuilt library) exports only its API: samples in its
// hidden functions are named by the nearest exported symbol before them, and the code past its last
// one (libjpeg-turbo, libpng, zlib and the other libraries linked in) is one bucket.
'use strict';

const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** Whether `perf` is here and may sample other processes. */
function perfAvailable() {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** perf's sampling rate: every sample stands for 1/PERF_HZ s of CPU. */
const PERF_HZ = 999;

/**
 * Starts sampling `pid` (every thread) at PERF_HZ. stop(read) ends it, resolves with what `read`
 * makes of the data file, and removes the file. `callGraph` records each sample's stack too (frame
 * pointers: V8's JavaScript frames keep them), for javaScriptByConcern.
 */
function recordPerf(pid, { callGraph = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perf-'));
  const file = path.join(dir, 'perf.data');
  const args = ['record', '-q', ...(callGraph ? ['-g'] : []), '-e', 'cpu-clock', '-F', String(PERF_HZ), '-p', String(pid), '-o', file];
  const perf = spawn('perf', args, { stdio: 'ignore' });
  const ended = new Promise((resolve) => perf.on('exit', resolve));
  return {
    async stop(read) {
      perf.kill('SIGINT');
      await ended;
      try {
        return read(file);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Sorted exported symbols of a shared library: [{ address, name }]. */
const exportsCache = new Map();
function exportsOf(library) {
  if (!exportsCache.has(library)) {
    let symbols = [];
    try {
      symbols = execFileSync('nm', ['-D', '--defined-only', library], { encoding: 'utf8', maxBuffer: 64 << 20 })
        .split('\n')
        .map((line) => line.split(' '))
        .filter((parts) => parts.length === 3 && /^[tTwW]$/.test(parts[1]))
        .map(([address, , name]) => ({ address: parseInt(address, 16), name }))
        .sort((a, b) => a.address - b.address);
    } catch {
      // no nm: addresses stay unnamed
    }
    exportsCache.set(library, symbols);
  }
  return exportsCache.get(library);
}

/** The exported symbol at or before `address`, or the 64 KB region of code linked in without exports. */
function nearestExport(library, address) {
  const symbols = exportsOf(library);
  let lo = 0;
  let hi = symbols.length - 1;
  let found = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (symbols[mid].address <= address) {
      found = symbols[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  // An export more than 64 KB back is not the function this is in: named by its 64 KB region.
  if (!found || address - found.address > 0x10000) return `(linked-in code at 0x${(address >> 16).toString(16)}0000)`;
  return `${found.name}+`;
}

/**
 * What the samples of a perf.data file show, in ms of CPU per unit of work (`units`: the renders or
 * uploads done while it recorded): by thread group, by library, and the top functions.
 */
function summarizePerf(file, units, { top = 15 } = {}) {
  const text = execFileSync('perf', ['report', '-i', file, '--stdio', '--no-children', '--sort', 'comm,dso,sym', '-F', 'period,comm,dso,sym', '-g', 'none'], {
    encoding: 'utf8',
    maxBuffer: 512 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const byThread = new Map();
  const byLibrary = new Map();
  const bySymbol = new Map();
  let totalNs = 0;
  const add = (map, key, ns) => map.set(key, (map.get(key) ?? 0) + ns);
  // The library perf names, found where sharp's platform package keeps it.
  const libvips = (name) => {
    try {
      return path.join(path.dirname(require.resolve('@img/sharp-libvips-linux-x64/lib')), name);
    } catch {
      return null;
    }
  };
  // A row: period (ns of cpu-clock), thread name, library, [k] or [.], symbol or its address in the library.
  for (const line of text.split('\n')) {
    const row = /^\s*(\d+)\s{2,}(.+?)\s{2,}(\S+)\s+\[(.)\]\s+(.*?)\s*$/.exec(line);
    if (!row) continue;
    const ns = Number(row[1]);
    const comm = row[2].trim().replace(/\d+$/, '');
    const library = row[3];
    let symbol = row[5];
    if (/^0x[0-9a-f]+$/.test(symbol) && library.startsWith('libvips-cpp') && libvips(library)) symbol = nearestExport(libvips(library), parseInt(symbol, 16));
    else if (row[4] === 'k') symbol = '(kernel)';
    totalNs += ns;
    add(byThread, comm, ns);
    add(byLibrary, library, ns);
    add(bySymbol, `${symbol} (${library})`, ns);
  }
  const perUnit = (ns) => ns / 1e6 / units;
  const rows = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([key, ns]) => ({ key, ms: perUnit(ns) }));
  return { ms: perUnit(totalNs), byThread: rows(byThread, 8), byLibrary: rows(byLibrary, 8), bySymbol: rows(bySymbol, top) };
}

/** Markdown lines comparing two summaries (a: the floor, b: ours), ms of CPU per unit. */
function comparePerf(label, a, b) {
  const fmt = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');
  const lines = [`| ${label} | floor ms | ours ms |`, '| --- | ---: | ---: |'];
  const merge = (rowsA, rowsB) => {
    const keys = [...new Set([...rowsA.map((r) => r.key), ...rowsB.map((r) => r.key)])];
    const find = (rows, key) => rows.find((r) => r.key === key)?.ms ?? 0;
    return keys.map((key) => [key, find(rowsA, key), find(rowsB, key)]).sort((x, y) => Math.max(y[1], y[2]) - Math.max(x[1], x[2]));
  };
  lines.push(`| **all sampled** | ${fmt(a.ms)} | ${fmt(b.ms)} |`);
  for (const [key, x, y] of merge(a.byThread, b.byThread)) lines.push(`| thread: ${key} | ${fmt(x)} | ${fmt(y)} |`);
  for (const [key, x, y] of merge(a.byLibrary, b.byLibrary)) lines.push(`| library: ${key} | ${fmt(x)} | ${fmt(y)} |`);
  for (const [key, x, y] of merge(a.bySymbol, b.bySymbol)) lines.push(`| ${key.replace(/\|/g, '\\|')} | ${fmt(x)} | ${fmt(y)} |`);
  return lines;
}

/**
 * The concerns of an upload's JavaScript thread, first match wins, tried from a sample's innermost
 * frame outwards: a sample in knex called from the placeholder's code would be the database's.
 */
const JS_CONCERNS = [
  ['garbage collection', /Scavenger|Sweeper|MarkCompact|IncrementalMarking|MinorMarkSweep|Heap::CollectGarbage|Heap::PerformGarbageCollection/],
  ['placeholder (shrink, ThumbHash, dominant colour)', /placeholderOf|shrinkToRgba|thumbhash|dominantColour/],
  ['events (media.create, image-api.image.upload)', /media-events|event-hub|webhook/],
  ['database (knex, Strapi, SQLite)', /knex|@strapi\/database|better.sqlite|sqlite3|upload-records|sql-rows|journal\.js|usage-tally|quotas|transaction\.js/],
  ['sharp calls (probe, decode, encodes)', /sharp|libvips|image-probe/],
  ['hashing (MD5, SHA-256)', /md5|sha256|sha512|Hash::|createHash|digest/],
  ['request body (multipart, base64)', /busboy|upload-body|multipart|buffer-pool|Dicer|sbmh|form-base64/],
  ['answer (JSON, headers)', /protocol\/answers|image-json|imgbb-json|JsonStringifier|respond koa/],
  ['parameters (joi)', /request-params|joi/],
  ['the store (provider writes, the stored description)', /provider-upload-local|media-store\.js|node:fs|uv_fs/],
  ['Koa, Strapi and plugin middlewares', /koa|@strapi\/core|helmet|cors|session|log-redaction|field-protection|health-endpoint|metrics-endpoint|image-delivery|image-fast-path|http-entries|favicon|powered-by/],
  ['HTTP and sockets (node)', /node:_http|node:net|stream_base|internal\/streams|tcp_wrap|StreamBase|LibuvStream/],
];

/**
 * V8's perf map (`--perf-basic-prof`: /tmp/perf-<pid>.map) lists every piece of code it made, and
 * code space is reused: an address may be listed for a function collected long ago and again for
 * the one there now. perf names a sample by the first listing, so the map is rewritten with only
 * the latest listing of each address range.
 */
function latestPerfMap(pid) {
  const file = `/tmp/perf-${pid}.map`;
  if (!fs.existsSync(file)) return false;
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line, order) => {
      const [start, size, ...name] = line.split(' ');
      return { start: parseInt(start, 16), size: parseInt(size, 16), name: name.join(' '), order, line };
    });
  const PAGE = 65536;
  const byPage = new Map();
  const kept = [];
  for (const entry of entries.reverse()) {
    const pages = [];
    for (let page = Math.floor(entry.start / PAGE); page <= Math.floor((entry.start + entry.size - 1) / PAGE); page++) pages.push(page);
    const overlaps = pages.some((page) => (byPage.get(page) ?? []).some((k) => entry.start < k.start + k.size && k.start < entry.start + entry.size));
    if (overlaps) continue;
    kept.push(entry);
    for (const page of pages) {
      if (!byPage.has(page)) byPage.set(page, []);
      byPage.get(page).push(entry);
    }
  }
  kept.sort((a, b) => a.order - b.order);
  const fresh = `${file}.latest`;
  fs.writeFileSync(fresh, kept.map((entry) => entry.line).join('\n') + '\n');
  // The server still appends to the file it opened; perf reads the name.
  fs.renameSync(fresh, file);
  return true;
}

/**
 * ms of CPU per unit of the JavaScript thread (the process's main thread) of a perf.data recorded
 * with `callGraph` from a server started with `--perf-basic-prof`, by concern (JS_CONCERNS). Samples
 * no concern claims are listed by their innermost frame when they come to 0.05 ms a unit or more.
 */
function javaScriptByConcern(file, pid, units) {
  if (!latestPerfMap(pid)) return null;
  const text = execFileSync('perf', ['script', '-i', file, '--tid', String(pid), '-F', 'ip,sym'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const stacks = [];
  let stack = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (stack.length) stacks.push(stack);
      stack = [];
      continue;
    }
    const frame = /^\s*[0-9a-f]+\s+(.*)$/.exec(line);
    if (frame) stack.push(frame[1].replace(/\s*\([^)]*\)$/, ''));
  }
  if (stack.length) stacks.push(stack);
  const counts = new Map();
  for (const frames of stacks) {
    let concern = null;
    for (const frame of frames) {
      concern = JS_CONCERNS.find(([, pattern]) => pattern.test(frame))?.[0] ?? null;
      if (concern) break;
    }
    const key = concern ?? `other: ${(frames[0] ?? '?').replace(/^JS:[*~^+]?/, '').slice(0, 60)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const msPerSample = 1000 / PERF_HZ;
  const rows = [];
  let rest = 0;
  for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    const ms = (n * msPerSample) / units;
    if (key.startsWith('other: ') && ms < 0.05) rest += ms;
    else rows.push({ key, ms });
  }
  rows.push({ key: 'other (each under 0.05 ms)', ms: rest });
  return { ms: (stacks.length * msPerSample) / units, rows };
}

/** Markdown lines of javaScriptByConcern's result. */
function concernLines(label, result) {
  return [`| ${label} | ms |`, '| --- | ---: |', `| **the JavaScript thread** | ${result.ms.toFixed(2)} |`, ...result.rows.map(({ key, ms }) => `| ${key.replace(/\|/g, '\\|')} | ${ms.toFixed(2)} |`)];
}

module.exports = { perfAvailable, recordPerf, summarizePerf, comparePerf, javaScriptByConcern, concernLines };
