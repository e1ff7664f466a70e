'use strict';
/**
 * Varnish with the xkey module in front of the instances (docs/deployment.md, "Caching images"):
 * the balancer and the cache at once, on two listeners of one varnishd:
 *
 * - `front` (the cluster's URL): round robin over the instances with health checks on /_health,
 *   X-Forwarded-For set (not appended: the instances trust this proxy only, and a client's own
 *   header never reaches them), a GET retried on another instance when one fails or drains, a body
 *   too if none of it had left (one that had is never replayed: 502, clients retry uploads with
 *   Idempotency-Key). `/img/` and `/uploads/` are cached as their answers say (a month, immutable;
 *   a 404 is `no-store`; no grace past max-age), keyed on the Host, the URL and what of `Accept` the
 *   app reads (AVIF, WebP: four classes); everything else passes through, bodies streamed.
 * - `bucket`: a CDN in front of the bucket (S3_BASE_URL points at it): radosgw's objects, kept a day.
 *
 * Objects are tagged from the answers' `Surrogate-Key` (xkey reads its own `xkey` header); the tag
 * headers are stripped before an answer leaves, as a CDN does. The instances purge by tag
 * (`PURGE /` with `xkey-purge`) and by URL (`PURGE <path>`, `Host` naming the bucket listener):
 * only from 127.0.0.1, their address (the tests' clients bind 127.0.0.2 and up), else 403.
 *
 * varnishncsa writes access.log, a line a request: `client "METHOD path protocol" status
 * cache-status upstream microseconds`, the upstream (the backend's name: instance_N, bucket) `-`
 * when the cache answered alone. tests/cluster/varnish.test.ts proves this VCL part by part.
 */
const fs = require('fs');
const http = require('http');
const path = require('path');
const { execFileSync } = require('child_process');
const { ensurePackages } = require('../support/servers/debian-packages');
const { waitForPort } = require('../support/servers/ports');
const { startProcess } = require('../support/servers/processes');

/** Debian's varnish-modules puts vmods under /usr/lib/<the architecture's triplet>/varnish/vmods/. */
const hasXkey = () => fs.readdirSync('/usr/lib').some((triplet) => fs.existsSync(path.join('/usr/lib', triplet, 'varnish', 'vmods', 'libvmod_xkey.so')));
const LOG_FORMAT = '%h "%m %U%q %H" %s %{X-Cache-Status}o %{VCL_Log:upstream}x %D';

/**
 * What of `Accept` the app's format negotiation reads (delivery/format-negotiation.ts): whether AVIF
 * and WebP are each taken with a non-zero q, case aside; a wildcard does not count. Four classes,
 * not three: an animated source skips AVIF, so "AVIF alone" and "AVIF and WebP" answer differently.
 */
const takes = (mime) => ({
  named: `(?i)(^|,)\\s*${mime}\\s*(;|,|$)`,
  refused: `(?i)(^|,)\\s*${mime}\\s*;([^,]*;)?\\s*q=0(\\.0*)?\\s*(;|,|$)`,
});
const AVIF = takes('image/avif');
const WEBP = takes('image/webp');

function vcl({ instancePorts, bucket, bucketPort }) {
  const backends = instancePorts
    .map(
      (port, i) => `backend instance_${i + 1} {
  .host = "127.0.0.1"; .port = "${port}"; .probe = health;
  .connect_timeout = 2s; .first_byte_timeout = 120s; .between_bytes_timeout = 60s;
}`
    )
    .join('\n');
  return `vcl 4.1;
import directors;
import std;
import xkey;

# An instance is in while /_health answers 204 (503 while it drains).
probe health {
  .request = "GET /_health HTTP/1.1" "Host: 127.0.0.1" "Connection: close";
  .expected_response = 204;
  .interval = 1s; .timeout = 2s; .window = 3; .threshold = 2; .initial = 2;
}
${backends}
backend bucket {
  .host = "127.0.0.1"; .port = "${bucket.port}";
  .connect_timeout = 2s; .first_byte_timeout = 30s; .between_bytes_timeout = 30s;
}

# Purges come from the instances alone.
acl purgers { "127.0.0.1"; }

sub vcl_init {
  new instances = directors.round_robin();
${instancePorts.map((_, i) => `  instances.add_backend(instance_${i + 1});`).join('\n')}
}

sub vcl_recv {
  if (req.method == "PURGE") {
    if (client.ip !~ purgers) { return (synth(403, "Forbidden")); }
    if (req.http.xkey-purge) {
      set req.http.n-gone = xkey.purge(req.http.xkey-purge);
      return (synth(200, "Purged " + req.http.n-gone));
    }
    # By URL: the object this Host and path name, and its variants, whichever listener got it
    # (the hash is the Host and the URL, vcl_hash).
    return (purge);
  }
  unset req.http.X-Cache-Status;
  unset req.http.X-Bucket;
  unset req.http.X-Accept-Class;
  unset req.http.X-Request-Body;
  set req.http.X-Forwarded-For = client.ip;
  # Whether the request has a body, for vcl_backend_error (bereq has neither header of a chunked one).
  if (req.http.Content-Length ~ "^0*[1-9]" || req.http.Transfer-Encoding) { set req.http.X-Request-Body = "1"; }
  if (local.socket == "bucket") {
    if (req.method != "GET" && req.method != "HEAD") { return (synth(405, "Method Not Allowed")); }
    # One Host for every object of the bucket: the one the instances' URLs (S3_BASE_URL) name,
    # and so the one their purges by URL name.
    set req.http.Host = "127.0.0.1:${bucketPort}";
    # One URL too: a query string means nothing to an object, and an entry kept under one
    # (?utm=...) would outlive the purge of the object's URL.
    set req.url = regsub(req.url, "\\?.*$", "");
    set req.backend_hint = bucket;
    set req.http.X-Bucket = "1";
    unset req.http.Cookie;
    unset req.http.Authorization;
    return (hash);
  }
  set req.backend_hint = instances.backend();
  if ((req.method == "GET" || req.method == "HEAD") && req.url ~ "^/(img|uploads)/") {
    # Public answers: nothing of a session matters to them.
    unset req.http.Cookie;
    unset req.http.Authorization;
    if (req.url ~ "^/img/") {
      # A negotiated format varies with Accept (Vary: Accept): rewritten to one of four values, so
      # a result has four variants at most, not one per browser's header.
      set req.http.X-Accept-Class = "";
      if (req.http.Accept ~ "${AVIF.named}" && req.http.Accept !~ "${AVIF.refused}") { set req.http.X-Accept-Class = "image/avif,"; }
      if (req.http.Accept ~ "${WEBP.named}" && req.http.Accept !~ "${WEBP.refused}") { set req.http.X-Accept-Class = req.http.X-Accept-Class + "image/webp,"; }
      set req.http.Accept = req.http.X-Accept-Class + "*/*";
      unset req.http.X-Accept-Class;
    }
    return (hash);
  }
  return (pass);
}

sub vcl_hit { set req.http.X-Cache-Status = "HIT"; }
sub vcl_miss { set req.http.X-Cache-Status = "MISS"; }
sub vcl_pass { set req.http.X-Cache-Status = "PASS"; }

sub vcl_backend_fetch {
  unset bereq.http.X-Cache-Status;
}

sub vcl_backend_response {
  set beresp.http.X-Upstream = beresp.backend.name;
  if (bereq.http.X-Bucket) {
    # S3 says nothing of caching: a day for an object, nothing for an error. A missing object is a
    # 403 to anonymous readers (they may not list the bucket): a 404 to clients, as CDNs map it.
    if (beresp.status == 403) { set beresp.status = 404; set beresp.reason = "Not Found"; }
    if (beresp.status == 200) { set beresp.ttl = 1d; } else { set beresp.ttl = 0s; set beresp.uncacheable = true; }
    unset beresp.http.Set-Cookie;
    return (deliver);
  }
  # A draining instance answers 503 until its health check takes it out (2 to 3 s): a GET goes to
  # the next one, once (the next may be full too: its 503 and Retry-After then reach the client).
  if (beresp.status == 503 && (bereq.method == "GET" || bereq.method == "HEAD") && bereq.retries < 1) { return (retry); }
  if (beresp.http.Surrogate-Key) { set beresp.http.xkey = beresp.http.Surrogate-Key; }
  # Not served a moment past its max-age (Varnish's grace would give it 10 s more) unless the answer
  # allows it: an image that expires says so with a max-age of the seconds it has left.
  if (beresp.http.Cache-Control !~ "(?i)stale-while-revalidate") { set beresp.grace = 0s; }
  # Then Varnish's own rules: the answer's Cache-Control (a no-store 404 is not kept), Vary.
}

sub vcl_backend_error {
  # An instance gone (killed, until its health check takes it out): a GET goes to the next one, and
  # so does a request with a body, which Varnish sends again only if none of it has left (a body
  # already sent cannot be: that retry fails, a 502 from vcl_synth; an upload is never replayed).
  # A request without a body may have reached the instance: a 502, as is anything past two tries.
  if (bereq.retries < 2 && (bereq.method == "GET" || bereq.method == "HEAD" || bereq.http.X-Request-Body)) {
    return (retry);
  }
  set beresp.http.X-Upstream = beresp.backend.name;
  set beresp.status = 502;
  set beresp.reason = "Bad Gateway";
  set beresp.http.Content-Type = "text/plain";
  synthetic("Bad Gateway");
  return (deliver);
}

sub vcl_synth {
  # The one 503 made here: a fetch that failed outright (a body already sent, tried again).
  if (resp.status == 503) {
    set resp.status = 502;
    set resp.reason = "Bad Gateway";
    set resp.http.Content-Type = "text/plain";
    synthetic("Bad Gateway");
    return (deliver);
  }
}

sub vcl_deliver {
  set resp.http.X-Cache-Status = req.http.X-Cache-Status;
  # For the access log: the instance (or the bucket) that made the answer, "-" when the cache
  # answered alone; not for clients, nor are the tags.
  if (obj.hits > 0) { std.log("upstream:-"); } else { std.log("upstream:" + resp.http.X-Upstream); }
  unset resp.http.X-Upstream;
  unset resp.http.xkey;
  unset resp.http.Surrogate-Key;
  unset resp.http.Cache-Tag;
}
`;
}

function ensureVarnish(log) {
  ensurePackages(['varnishd', 'varnishncsa'], ['varnish', 'varnish-modules'], log);
  if (!hasXkey()) {
    log('installing varnish-modules (Debian package)');
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'varnish-modules'], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
}

/**
 * Starts varnishd (front listener on `port`, bucket listener on `bucketPort`) and varnishncsa.
 * `bucket`: radosgw's port. Resolves with their pids and the URLs.
 */
async function startVarnish(dir, log, instancePorts, { port, bucketPort, bucket }) {
  ensureVarnish(log);
  const work = path.join(dir, 'work');
  fs.mkdirSync(work, { recursive: true });
  // varnishd's workers run as Debian's vcache user: they read the compiled VCL under work/.
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'default.vcl');
  fs.writeFileSync(file, vcl({ instancePorts, bucket, bucketPort }));
  const varnishd = startProcess(
    'varnishd',
    [
      '-F',
      '-n', work,
      '-f', file,
      '-a', `front=127.0.0.1:${port}`,
      '-a', `bucket=127.0.0.1:${bucketPort}`,
      '-T', 'none',
      '-s', 'malloc,256m',
      // Request bodies pass through; headers of a purge with 100 tags fit.
      '-p', 'http_req_hdr_len=16k',
      // Idle connections to an instance are dropped before Node's server drops them (5 s): a POST
      // sent on one the instance had just closed would fail, and a POST is not replayed.
      '-p', 'backend_idle_timeout=3',
    ],
    { log: path.join(dir, 'varnishd.out') }
  );
  await waitForPort(port, 30000, 'varnish');
  await waitForPort(bucketPort, 30000, 'varnish (bucket)');
  const accessLog = path.join(dir, 'access.log');
  fs.writeFileSync(accessLog, '');
  const ncsa = startProcess('varnishncsa', ['-n', work, '-a', '-w', accessLog, '-F', LOG_FORMAT], { log: path.join(dir, 'varnishncsa.out') });
  await waitForLogging(port, accessLog);
  return { pid: varnishd.pid, logPid: ncsa.pid, url: `http://127.0.0.1:${port}`, bucketUrl: `http://127.0.0.1:${bucketPort}`, accessLog };
}

/**
 * Until varnishncsa writes lines (it logs only what comes after it attached): a purge of a tag no
 * object has, from 127.0.0.1, answered by Varnish alone, until its line is in the log.
 */
async function waitForLogging(port, accessLog, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  while (fs.readFileSync(accessLog, 'utf8') === '') {
    if (Date.now() > deadline) throw new Error(`varnishncsa wrote nothing to ${accessLog} in ${timeoutMs} ms`);
    await new Promise((resolve) => {
      const request = http.request({ host: '127.0.0.1', port, method: 'PURGE', path: '/', headers: { 'xkey-purge': 'varnishncsa-attached' }, timeout: 2000 });
      request.on('response', (answer) => answer.resume().on('end', resolve));
      request.on('timeout', () => request.destroy());
      request.on('error', resolve);
      request.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

module.exports = { startVarnish, vcl };
