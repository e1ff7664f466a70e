'use strict';
/**
 * Prometheus scraping every instance's /_metrics (docs/operations.md, "Metrics"), as an operator
 * would run it: each instance a target of its own (labelled by its address), the bearer token from the
 * instances' IMAGE_API_METRICS_TOKEN, a scrape every 2 s so a test sees a count soon. Its web UI and
 * query API are on a loopback port; Debian's `prometheus` package is installed when missing.
 */
const fs = require('fs');
const path = require('path');
const { ensurePackages } = require('../support/servers/debian-packages');
const { freePort, waitForHttp } = require('../support/servers/ports');
const { startProcess } = require('../support/servers/processes');

const SCRAPE_SECONDS = 2;

function prometheusConf(instancePorts, tokenFile) {
  return `global:
  scrape_interval: ${SCRAPE_SECONDS}s
  evaluation_interval: ${SCRAPE_SECONDS}s
scrape_configs:
  - job_name: image-api
    metrics_path: /_metrics
    authorization:
      type: Bearer
      credentials_file: ${tokenFile}
    static_configs:
      - targets: [${instancePorts.map((port) => `'127.0.0.1:${port}'`).join(', ')}]
`;
}

/** Waits until every instance has been scraped once (`up` has a series each), so queries find them. */
async function firstScrapes(url, targets, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await fetch(`${url}/api/v1/query?query=up`, { signal: AbortSignal.timeout(5000) })
      .then((res) => res.json())
      .catch(() => null);
    if ((answer?.data?.result ?? []).length >= targets) return;
    if (Date.now() > deadline) throw new Error(`Prometheus did not scrape the ${targets} instance(s) within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function startPrometheus(dir, log, instancePorts, token) {
  ensurePackages(['prometheus'], ['prometheus'], log);
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  const tokenFile = path.join(dir, 'metrics-token');
  fs.writeFileSync(tokenFile, token, { mode: 0o600 });
  const conf = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(conf, prometheusConf(instancePorts, tokenFile));
  const port = await freePort();
  const child = startProcess(
    'prometheus',
    [`--config.file=${conf}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=1d'],
    { log: path.join(dir, 'prometheus.log') }
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/-/ready`, 60000, `Prometheus (log: ${path.join(dir, 'prometheus.log')})`, (status) => status === 200);
  await firstScrapes(url, instancePorts.length);
  return { pid: child.pid, port, url };
}

module.exports = { startPrometheus };
