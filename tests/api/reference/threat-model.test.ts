/**
 * docs/security.md's threat model against the app as it runs: every route the app registers (the
 * plugin's and Strapi's own) falls under a row of the table; a request without credentials to a route
 * whose row does not name strangers is answered 401 or 403; no request without credentials is
 * answered 5xx; and every test file the table names exists.
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';

const ROOT = path.join(__dirname, '..', '..', '..');
const SECURITY = fs.readFileSync(path.join(ROOT, 'docs', 'security.md'), 'utf8');

interface Row {
  /** `METHODS /path` patterns: methods comma-separated or `*`; a path ending in `*` matches by prefix. */
  patterns: Array<{ methods: string[] | '*'; path: string }>;
  who: string;
  provedBy: string;
}

/** The table under "## Threat model". */
function threatModel(): Row[] {
  const section = SECURITY.split(/^## Threat model$/m)[1]?.split(/^## /m)[0] ?? '';
  const lines = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| ---') && !line.startsWith('| routes and files'));
  return lines.map((line) => {
    const cells = line.split(' | ');
    const spans = [...cells[0].matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    const patterns = spans
      .map((span) => /^(\*|[A-Z]+(?:,[A-Z]+)*) (\/\S*)$/.exec(span))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ methods: match[1] === '*' ? ('*' as const) : match[1].split(','), path: match[2] }));
    return { patterns, who: cells[1], provedBy: cells[3] ?? '' };
  });
}

interface Route {
  method: string;
  path: string;
}

/** The row covering a route: an exact path first, else the longest prefix. */
function rowFor(rows: Row[], route: Route): Row | undefined {
  let best: { row: Row; score: number } | undefined;
  for (const row of rows) {
    for (const pattern of row.patterns) {
      if (pattern.methods !== '*' && !pattern.methods.includes(route.method)) continue;
      const score = pattern.path === route.path ? Infinity : pattern.path.endsWith('*') && route.path.startsWith(pattern.path.slice(0, -1)) ? pattern.path.length : -1;
      if (score >= 0 && (!best || score > best.score)) best = { row, score };
    }
  }
  return best?.row;
}

/** A path the route answers, its parameters filled with harmless values. */
const concrete = (routePath: string) =>
  routePath
    .replace(/:(model|uid|contentType)\b/g, 'plugin::image-api.api-key')
    .replace(/\(\(\?!uploads\/\)\.\+\)/g, 'nothing-here.txt')
    .replace(/\(\.\*\)|\(\[\^\/\]\*\)/g, 'x')
    .replace(/:(\w+)(\([^)]*\))?\*?/g, (_whole, name: string) => (name === 'version' ? '1' : name === 'action' ? 'nothing' : '1'));

const app = useApp();

function registeredRoutes(): Route[] {
  const listed = app.strapi.server.listRoutes() as Array<{ methods: string[]; path: string }>;
  const routes = listed.flatMap(({ methods, path: routePath }) => methods.filter((method) => method !== 'HEAD').map((method) => ({ method, path: routePath })));
  // Strapi's own /_health answers any method of the WebDAV family too: one is enough here.
  return routes.filter((route) => route.path !== '/_health' || route.method === 'GET');
}

test('every route the app registers falls under a row of the threat model', () => {
  const rows = threatModel();
  expect(rows.length).toBeGreaterThan(10);
  const routes = registeredRoutes();
  expect(routes.length).toBeGreaterThan(100);
  expect(routes.filter((route) => !rowFor(rows, route)).map((route) => `${route.method} ${route.path}`)).toEqual([]);
});

test('without credentials: 401 or 403 where the row names no stranger, and never a 5xx', async () => {
  const rows = threatModel();
  const wrong: string[] = [];
  for (const route of registeredRoutes()) {
    const row = rowFor(rows, route);
    const url = concrete(route.path);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const sent = app.http[method](url);
    const res = await (method === 'get' || method === 'delete' ? sent : sent.send({}));
    const strangers = /\bstranger\b/i.test(row?.who ?? '');
    const refused = res.status === 401 || res.status === 403;
    if (res.status >= 500 || (!strangers && !refused)) wrong.push(`${route.method} ${url} (${route.path}) -> ${res.status}`);
  }
  expect(wrong).toEqual([]);
}, 120_000);

test('every test file the table names exists', () => {
  const named = threatModel().flatMap((row) => [...row.provedBy.matchAll(/`(tests\/[^`]+)`/g)].map((match) => match[1]));
  expect(named.length).toBeGreaterThan(10);
  expect(named.filter((file) => !fs.existsSync(path.join(ROOT, file)))).toEqual([]);
});
