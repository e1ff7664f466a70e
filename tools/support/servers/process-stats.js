// What a process costs while the bench loads it: resident memory and CPU time by thread, from /proc.
'use strict';

const fs = require('fs');

/** Resident set size of a process, in MB. */
function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every 20 ms until the returned function is called; it returns the peak. */
function sampleRss(pid) {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMb(pid));
  };
}

/**
 * CPU time (user + system) each thread of a process has used so far, in ms: `total`, the main
 * (JavaScript) thread's, and by thread name (libuv and V8 helpers are "node", libvips' own
 * "libvips worker"), and `children`: the processes it started that have ended (heif-convert).
 * Steadier than req/s on a noisy box.
 */
function threadCpuMs(pid) {
  const result = { total: 0, main: 0, byName: {} };
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let name, stat;
    try {
      name = tid === String(pid) ? 'main' : fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    // utime and stime: fields 14 and 15, in clock ticks (100 per second on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    result.total += ms;
    if (name === 'main') result.main += ms;
    result.byName[name] = (result.byName[name] ?? 0) + ms;
  }
  // Its child processes (heif-convert's HEIC decodes), once ended: cutime and cstime, fields 16 and 17.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[13]) + Number(fields[14])) * 10;
    result.total += ms;
    result.byName.children = ms;
  } catch {
    // the process ended meanwhile
  }
  return result;
}

/** The CPU time a process used between two threadCpuMs readings. */
function cpuBetween(before, after) {
  return {
    cpu: { total: after.total - before.total, main: after.main - before.main },
    cpuByThread: Object.fromEntries(Object.keys(after.byName).map((n) => [n, after.byName[n] - (before.byName[n] ?? 0)])),
  };
}

/**
 * Minor page faults a process has taken so far (field 10 of /proc/<pid>/stat): pages first touched,
 * each given and zeroed by the kernel. A process whose allocator hands memory back and maps it again
 * takes them on every piece of work.
 */
function minorFaults(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
}

module.exports = { rssMb, sampleRss, threadCpuMs, cpuBetween, minorFaults };
