/**
 * The server's rooms and the direction of their imports (docs/development.md, "Where things live" and "Rules of the house"):
 * a module imports from its own room or a lower one, never a higher one, and no file circle exists
 * but the type-only one through get-service.ts (every module asks it for services by name; the
 * services' types come back from services/index.ts, as in Strapi's own plugins).
 */
import fs from 'fs';
import path from 'path';

const SRC = path.join(__dirname, '../server/src');

/** Each room's rank: a module may import from its own rank or below. */
const RANKS: Record<string, number> = {
  // shared/ (beside server/src): names and contracts the admin panel imports too.
  shared: 0,
  constants: 0,
  config: 0,
  http: 1,
  database: 2,
  delivery: 2,
  images: 2,
  process: 2,
  requests: 2,
  sources: 2,
  services: 3,
  'content-types': 4,
  controllers: 4,
  middlewares: 4,
  openapi: 4,
  routes: 4,
  'admin-permissions': 4,
  register: 5,
  bootstrap: 5,
  destroy: 5,
  index: 6,
};

function modules(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function resolve(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return null;
}

/** A module's relative imports: [target file, type-only]. */
function imports(file: string): Array<{ target: string; typeOnly: boolean }> {
  const source = fs.readFileSync(file, 'utf8');
  const found: Array<{ target: string; typeOnly: boolean }> = [];
  for (const match of source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']*)'/gms)) {
    const target = resolve(file, match[3]);
    if (target) found.push({ target, typeOnly: Boolean(match[2]) });
  }
  return found;
}

const room = (file: string) => {
  const relative = path.relative(SRC, file);
  return relative.startsWith('..') ? 'shared' : relative.split(path.sep)[0].replace(/\.ts$/, '');
};
const rel = (file: string) => path.relative(SRC, file);

describe('the server source tree', () => {
  const files = modules();

  it('has every module in a room of known rank', () => {
    const unknown = files.map(room).filter((name) => name !== 'get-service' && !(name in RANKS));
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('imports nothing upward (get-service.ts, the service locator, aside)', () => {
    const upward: string[] = [];
    for (const file of files) {
      if (room(file) === 'get-service') continue;
      for (const { target } of imports(file)) {
        if (room(target) === 'get-service') continue;
        if (RANKS[room(target)] > RANKS[room(file)]) upward.push(`${rel(file)} -> ${rel(target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import circle but the type-only one through get-service.ts', () => {
    const graph = new Map(files.map((file) => [file, imports(file).filter((edge) => !(edge.typeOnly && room(edge.target) === 'get-service') && !(room(file) === 'get-service')).map((edge) => edge.target)]));
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...trail.slice(trail.indexOf(file)), file].map(rel).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('registers in services/ exactly the modules services/index.ts names', () => {
    const registered = imports(path.join(SRC, 'services/index.ts')).map(({ target }) => rel(target)).sort();
    const inServices = files.map(rel).filter((file) => file.startsWith('services/') && file !== 'services/index.ts').sort();
    expect(inServices).toEqual(registered);
  });
});
