'use strict';
/**
 * nginx in front of the instances, as an operator would run it: round robin, keep-alive to the
 * instances, and the client's address in X-Forwarded-For (set, not appended: a client's own
 * X-Forwarded-For never reaches the instances, which trust only this proxy).
 */
const fs = require('fs');
const path = require('path');
const { ensurePackages } = require('../support/servers/debian-packages');
const { waitForPort } = require('../support/servers/ports');
const { startProcess } = require('../support/servers/processes');

function nginxConf(dir, port, instancePorts) {
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 1024; }
http {
  # Which instance served each request, and whether the cache answered (the cluster test reads both).
  log_format upstream '$remote_addr "$request" $status $upstream_cache_status $upstream_addr $request_time';
  access_log ${dir}/access.log upstream;
  client_body_temp_path ${dir}/temp/body;
  proxy_temp_path ${dir}/temp/proxy;
  fastcgi_temp_path ${dir}/temp/fastcgi;
  uwsgi_temp_path ${dir}/temp/uwsgi;
  scgi_temp_path ${dir}/temp/scgi;
  # Above the API's own limit, so an oversized upload gets the API's 413 in its error shape.
  client_max_body_size 64m;
  # Image answers, kept as their Cache-Control says (immutable: a month), at most 1 GB on disk.
  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=images:10m max_size=1g inactive=30d use_temp_path=off;
  # A negotiated format varies with Accept: the key holds what matters of it (nginx honours Vary too).
  map $http_accept $image_accept {
    ~image/avif avif;
    ~image/webp webp;
    default other;
  }
  upstream image_api {
${instancePorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    # Every location: keep-alive to the instances, the client's address set (not appended).
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_connect_timeout 5s;
    proxy_send_timeout 60s;
    proxy_read_timeout 60s;
    # A GET goes to the other instance when one is down or draining; a POST is never replayed
    # (nginx does not retry non-idempotent requests): clients retry uploads with Idempotency-Key.
    proxy_next_upstream error timeout http_502 http_503;
    location ~ ^/(img|uploads)/ {
      proxy_pass http://image_api;
      proxy_cache images;
      proxy_cache_key $scheme$http_host$request_uri$image_accept;
      # One request per new result reaches an instance; the others wait for its answer.
      proxy_cache_lock on;
      proxy_cache_lock_timeout 30s;
      # Revalidations (If-None-Match) are answered here too.
      proxy_cache_revalidate on;
      add_header X-Cache-Status $upstream_cache_status always;
    }
    location / {
      proxy_pass http://image_api;
    }
  }
}
`;
}

async function startNginx(dir, log, instancePorts, port) {
  ensurePackages(['nginx'], ['nginx'], log);
  fs.mkdirSync(path.join(dir, 'temp'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'cache'), { recursive: true });
  // Its workers run as nobody and write request bodies under temp/, cached answers under cache/.
  fs.chmodSync(dir, 0o777);
  fs.chmodSync(path.join(dir, 'temp'), 0o777);
  fs.chmodSync(path.join(dir, 'cache'), 0o777);
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, nginxConf(dir, port, instancePorts));
  const child = startProcess('nginx', ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { log: path.join(dir, 'nginx.out') });
  await waitForPort(port, 30000, 'nginx');
  return { pid: child.pid, port, url: `http://127.0.0.1:${port}` };
}

module.exports = { startNginx };
