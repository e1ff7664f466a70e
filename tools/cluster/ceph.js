'use strict';
/**
 * A single-node Ceph cluster with its S3 gateway, on loopback ports of its own: one monitor, one
 * BlueStore OSD on a sparse file, one radosgw; cephx off (nothing but loopback reaches it). Ports:
 * B and B+1 the monitor (v1, v2), B+2..B+9 the OSD (it binds 8), B+10 the S3 endpoint.
 * Pitfalls met on the way are written beside the code that avoids them (docs/deployment.md).
 */
const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { ensurePackages } = require('../support/servers/debian-packages');
const { freePortRange, waitForHttp } = require('../support/servers/ports');
const { startProcess } = require('../support/servers/processes');

const PORTS = 11;

function cephConf(dir, base, fsid) {
  return `[global]
fsid = ${fsid}
mon_host = [v2:127.0.0.1:${base + 1},v1:127.0.0.1:${base}]
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_objectstore = bluestore
bluestore_block_path = ${dir}/block.file
bluestore_block_create = true
bluestore_block_size = 8589934592
osd_memory_target = 1073741824
ms_bind_port_min = ${base + 2}
ms_bind_port_max = ${base + 9}
run_dir = ${dir}/run
admin_socket = ${dir}/run/$name.asok
pid_file = ${dir}/run/$name.pid
log_file = ${dir}/log/$name.log
mon_data = ${dir}/mon/$cluster-$id
osd_data = ${dir}/osd/$cluster-$id
keyring = ${dir}/keyring

[client.rgw.a]
rgw_frontends = beast endpoint=127.0.0.1:${base + 10}
rgw_data = ${dir}/rgw
# Without crc allowed (a daemon's default is secure only) auth "none" offers no mode, and radosgw
# loops on "get_initial_auth_request returned -13".
ms_mon_client_mode = crc secure
`;
}

/**
 * Starts the cluster under `dir` and makes an S3 user. Resolves with the endpoint, the credentials
 * and the pids of its three daemons; `onStart(name, pid)` hears of each as it starts.
 */
async function startCeph(dir, log, onStart = () => undefined) {
  ensurePackages(['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph', 'monmaptool', 'ceph-authtool'], ['ceph-mon', 'ceph-osd', 'radosgw', 'ceph-common'], log);
  const base = await freePortRange(PORTS);
  const fsid = crypto.randomUUID();
  for (const sub of ['run', 'log', 'mon/ceph-a', 'osd/ceph-0', 'rgw']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  const conf = path.join(dir, 'ceph.conf');
  fs.writeFileSync(conf, cephConf(dir, base, fsid));
  const run = (command, args) => execFileSync(command, ['-c', conf, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60000 }).toString().trim();
  const daemonLog = path.join(dir, 'log', 'daemons.log');

  const keyring = path.join(dir, 'keyring');
  execFileSync('ceph-authtool', ['--create-keyring', keyring, '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *'], { stdio: 'ignore' });
  execFileSync('ceph-authtool', [keyring, '--gen-key', '-n', 'client.rgw.a'], { stdio: 'ignore' });
  execFileSync('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${base + 1},v1:127.0.0.1:${base}]`, path.join(dir, 'monmap')], { stdio: 'ignore' });
  run('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', path.join(dir, 'monmap'), '--keyring', keyring]);
  const mon = startProcess('ceph-mon', ['-c', conf, '-i', 'a', '-f'], { log: daemonLog });
  onStart('ceph-mon', mon.pid);

  // `ceph osd new` waits for the monitor to form its quorum.
  const osdUuid = crypto.randomUUID();
  const osdId = run('ceph', ['--connect-timeout', '30', 'osd', 'new', osdUuid]);
  run('ceph-osd', ['-i', osdId, '--mkfs', '--osd-uuid', osdUuid]);
  const osd = startProcess('ceph-osd', ['-c', conf, '-i', osdId, '-f'], { log: daemonLog });
  onStart('ceph-osd', osd.pid);

  const rgw = startProcess('radosgw', ['-c', conf, '-n', 'client.rgw.a', '-f', '--auth-client-required', 'none', '--auth-supported', 'none'], { log: daemonLog });
  onStart('radosgw', rgw.pid);
  const endpoint = `http://127.0.0.1:${base + 10}`;
  await waitForHttp(endpoint, 120000, 'the S3 gateway (radosgw)');

  const accessKeyId = crypto.randomBytes(10).toString('hex').toUpperCase();
  const secretAccessKey = crypto.randomBytes(20).toString('base64url');
  run('radosgw-admin', ['user', 'create', '--uid=image-api', '--display-name=image-api', `--access-key=${accessKeyId}`, `--secret-key=${secretAccessKey}`]);
  return { endpoint, accessKeyId, secretAccessKey, pids: { 'ceph-mon': mon.pid, 'ceph-osd': osd.pid, radosgw: rgw.pid } };
}

module.exports = { startCeph };
