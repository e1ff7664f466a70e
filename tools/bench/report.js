// The bench's tables, from a report (a run's, or one saved with --json).
'use strict';

function printReport({ machine, results, sources, moderation = [], fiftyMp, rss12mp, seconds, rounds, variant = null }) {
  const f = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  const out = [];
  out.push(`machine: ${machine.cpus} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, sharp ${machine.sharp} / libvips ${machine.libvips}`);
  out.push(`${rounds} rounds × ${seconds} s per cell, alternating floor / ours / stock${variant ? ' / variant' : ''}`);
  out.push('');
  out.push('| fixture | conc | floor req/s | ours req/s | ours p50 / p99 ms | ours peak RSS MB | stock req/s | stock p50 / p99 ms | stock peak RSS MB | b/a | b/c | CPU ms/upload: floor / ours (main thread) |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    out.push(
      `| ${r.fixture} | ${r.concurrency} | ${f(r.floor.rps)} | ${f(r.ours.rps)} | ${f(r.ours.p50, 0)} / ${f(r.ours.p99, 0)} | ${f(r.ours.peakRssMb, 0)} | ${f(r.stock.rps, 2)} | ${f(r.stock.p50, 0)} / ${f(r.stock.p99, 0)} | ${f(r.stock.peakRssMb, 0)} | ${f(r.oursOverFloor, 2)} | ${f(r.oursOverStock, 1)} | ${f(r.floor.cpuMsPerUpload)} / ${f(r.ours.cpuMsPerUpload)} (${f(r.ours.mainThreadCpuMsPerUpload)}) |` +
        (r.ours.errors || r.stock.errors ? ` errors: ours ${r.ours.errors}, stock ${r.stock.errors}` : '')
    );
  }
  if (variant && results.some((row) => row.variant)) {
    out.push('');
    out.push(`d, the variant: ours with ${Object.entries(variant).map(([name, value]) => `${name}=${value}`).join(' ')}, in the same alternation`);
    out.push('');
    out.push('| fixture | conc | ours req/s | variant req/s | variant p50 / p99 ms | variant peak RSS MB | d/b | CPU ms/upload: ours / variant (main thread) |');
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results.filter((row) => row.variant)) {
      out.push(
        `| ${r.fixture} | ${r.concurrency} | ${f(r.ours.rps)} | ${f(r.variant.rps)} | ${f(r.variant.p50, 0)} / ${f(r.variant.p99, 0)} | ${f(r.variant.peakRssMb, 0)} | ${f(r.variantOverOurs, 2)} | ` +
          `${f(r.ours.cpuMsPerUpload)} (${f(r.ours.mainThreadCpuMsPerUpload)}) / ${f(r.variant.cpuMsPerUpload)} (${f(r.variant.mainThreadCpuMsPerUpload)}) |` +
          (r.variant.errors ? ` errors: ${r.variant.errors}` : '')
      );
    }
  }
  for (const r of results) if (r.perf) out.push('', ...r.perf);
  out.push('');
  out.push('| fixture (concurrency 2) | multipart req/s | base64 req/s | URL req/s | base64 / multipart | URL / multipart |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const s of sources) out.push(`| ${s.fixture} | ${f(s.multipart)} | ${f(s.base64)} | ${f(s.url)} | ${f(s.base64OverMultipart, 2)} | ${f(s.urlOverMultipart, 2)} |`);
  out.push('');
  if (moderation.length) {
    out.push('| fixture (concurrency 2) | floor req/s | floor + classification | ours, moderation off | ours, classified | off / floor | classified / (floor + classification) | classified / off | classified peak RSS MB |');
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const m of moderation) {
      out.push(
        `| ${m.fixture} | ${f(m.floor)} | ${f(m.floorClassified)} | ${f(m.ours)} | ${f(m.moderated)} | ${f(m.oursOverFloor, 2)} | ${f(m.moderatedOverClassifiedFloor, 2)} | ${f(m.moderatedOverOurs, 2)} | ${f(m.moderatedPeakRssMb, 0)} |`
      );
    }
    out.push('');
  }
  if (rss12mp) {
    out.push(`concurrency-8 run of 12 MP uploads (ours) on the fresh server: ${f(rss12mp.rps)} req/s, RSS ${f(rss12mp.beforeMb, 0)} MB before → ${f(rss12mp.peakMb, 0)} MB peak${rss12mp.errors ? `, ${rss12mp.errors} errors` : ''}`);
  }
  if (fiftyMp) {
    out.push(`one 50 MP JPEG upload (HTTP ${fiftyMp.status}) on the fresh server: RSS ${f(fiftyMp.idleRssMb, 0)} MB before → ${f(fiftyMp.peakRssMb, 0)} MB peak (+${f(fiftyMp.addedMb, 0)} MB)`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

module.exports = { printReport };
