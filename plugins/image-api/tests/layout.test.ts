/**
 * The server's rooms and the direction of their imports (docs/development.md, "Where things live" and "Rules of the house"):
 * a module imports from its own room or a lower one, never a higher one, and no file circle exists
 * but the type-only one through get-service.ts (every module asks it for services by name; the
 * services' types come back from services.ts, as in Strapi's own plugins).
 */
import fs from 'fs';
import path from 'path';

const SRC = path.join(__dirname, '../server/src');

/** Each room's rank: a module may import from its own rank or below. */
const RANKS: Record<string, number> = {
  // shared/ (beside server/src): names and contracts the admin panel imports too.
  shared: 0,
  config: 0,
  http: 1,
  database: 1,
  protocol: 2,
  operations: 2,
  images: 3,
  sources: 3,
  purge: 3,
  storage: 4,
  keys: 5,
  moderation: 5,
  delivery: 6,
  api: 7,
  pages: 8,
  admin: 8,
  openapi: 8,
  'content-types': 9,
  routes: 9,
  services: 10,
  'http-entries': 10,
  controllers: 10,
  register: 10,
  bootstrap: 10,
  destroy: 10,
  index: 11,
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

  it('registers every service module (a `({ strapi })` factory that is not a controller) in services.ts, and controllers in controllers.ts', () => {
    const factories = files.filter((file) => /^export default \(\s*\{ strapi/m.test(fs.readFileSync(file, 'utf8'))).map(rel);
    const named = (registry: string) => imports(path.join(SRC, registry)).map(({ target }) => rel(target)).sort();
    expect(factories.filter((file) => !file.endsWith('-controller.ts')).sort()).toEqual(named('services.ts'));
    expect(factories.filter((file) => file.endsWith('-controller.ts')).sort()).toEqual(named('controllers.ts'));
  });

  it('gives no two modules the same name, and no module the name of a room', () => {
    const names = files.map((file) => path.basename(file, '.ts')).filter((name) => name !== 'index' && name !== 'schema');
    const rooms = new Set(files.map((file) => path.relative(SRC, path.dirname(file)).split(path.sep)).flat());
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    expect(names.filter((name) => rooms.has(name) && !['services', 'controllers'].includes(name))).toEqual([]);
  });
});
