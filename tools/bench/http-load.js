// Requests and load: one POST on a keep-alive agent, a closed loop of `concurrency` clients, and the
// statistics of what came back. Bodies: tools/support/http/multipart.js.
'use strict';

const http = require('http');

function post(agent, port, urlPath, headers, body, retries = 0) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: urlPath, agent, headers: { ...headers, 'content-length': body.length } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
      }
    );
    req.on('error', (error) => {
      // A kept-alive socket the server closed as idle while the bench paused (loading a model, say)
      // fails its next request at once: that one is sent again (Node's documented way), on the next
      // pooled socket, stale too after a pause, or a new one.
      if (req.reusedSocket && retries < 64 && ['ECONNRESET', 'EPIPE'].includes(error.code)) resolve(post(agent, port, urlPath, headers, body, retries + 1));
      else reject(error);
    });
    req.end(body);
  });
}

/** Runs `once` in `concurrency` loops for `seconds`; counts completions and latencies. */
async function measure(once, concurrency, seconds) {
  const latencies = [];
  let errors = 0;
  const deadline = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  const client = async () => {
    while (Date.now() < deadline) {
      const t0 = process.hrtime.bigint();
      try {
        await once();
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { count: latencies.length, elapsed, latencies, errors };
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

/** One cell's figures from its samples (rounds): req/s, latencies, peak RSS, CPU per upload. */
function summarize(samples) {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const count = samples.reduce((n, s) => n + s.count, 0);
  const elapsed = samples.reduce((n, s) => n + s.elapsed, 0);
  // CPU time per completed upload, of the process doing the work (the floor: the bench process,
  // running nothing else meanwhile; ours and stock: the server), all threads and the main thread alone.
  const cpuPerUpload = (pick) => (count && samples.every((s) => s.cpu) ? samples.reduce((n, s) => n + pick(s.cpu), 0) / count : NaN);
  return {
    rps: count / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count,
    errors: samples.reduce((n, s) => n + s.errors, 0),
    peakRssMb: Math.max(0, ...samples.map((s) => s.peakRssMb ?? 0)),
    cpuMsPerUpload: cpuPerUpload((cpu) => cpu.total),
    mainThreadCpuMsPerUpload: cpuPerUpload((cpu) => cpu.main),
  };
}

const expectOk = (res) => {
  if (res.status !== 200 && res.status !== 201) throw new Error(`HTTP ${res.status}: ${res.body.toString().slice(0, 200)}`);
};

module.exports = { post, measure, summarize, expectOk };
