// Summarises a V8 .cpuprofile: self time by function and by package, largest first.
//   node bench/profile-summary.js bench/out/profile/<file>.cpuprofile
'use strict';

const fs = require('fs');

const profile = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
// SKIP_S=n leaves out the first n seconds (the boot).
const skipUs = Number(process.env.SKIP_S ?? 0) * 1e6;
let clock = 0;
profile.samples.forEach((id, i) => {
  clock += dt[i] ?? 0;
  if (clock >= skipUs) self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map();
const byPackage = new Map();
for (const [id, us] of self) {
  const { callFrame } = byId.get(id);
  const url = callFrame.url || '(native)';
  const pkg = (/node_modules\/((@[^/]+\/)?[^/]+)/.exec(url) ?? [])[1] ?? (url.includes('plugins/image-api') ? 'image-api' : url.startsWith('node:') ? 'node' : url);
  const fn = `${callFrame.functionName || '(anonymous)'} ${pkg}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}
const top = (map, n) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
console.log(`total sampled: ${(total / 1e6).toFixed(1)} s\n\nby package:\n${top(byPackage, 15)}\n\nby function:\n${top(byFunction, 25)}`);

// Inclusive time of the plugin's own functions (a function's samples plus its callees').
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map();
for (const [id, us] of self) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const { callFrame } = byId.get(cur);
    if (!callFrame.url.includes('plugins/image-api/dist')) continue;
    const name = `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/dist/server/src/')[1]}:${callFrame.lineNumber}`;
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
}
console.log(`\nimage-api, inclusive:\n${top(inclusive, 30)}`);
