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

/** Starts sampling `pid` (every thread); stop() ends it and resolves with the data file. */
function recordPerf(pid, frequency = 999) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'perf-')), 'perf.data');
  const perf = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(frequency), '-p', String(pid), '-o', file], { stdio: 'ignore' });
  const ended = new Promise((resolve) => perf.on('exit', resolve));
  return {
    async stop() {
      perf.kill('SIGINT');
      await ended;
      return file;
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

module.exports = { perfAvailable, recordPerf, summarizePerf, comparePerf };
