/**
 * Every answer the API tests receive is checked against the OpenAPI document the app serves
 * (GET /api/1/openapi.json): the operation exists, the status is one it declares, the content type
 * is one of that status's, and a JSON body matches its schema (ajv, JSON Schema 2020-12, as OpenAPI
 * 3.1 uses). A method the document does not list on a documented path must answer 405 in the error
 * shape. Paths outside the document (the admin panel, uploaded files) are not checked.
 *
 * startApp() hooks the app's HTTP server; tests/helpers/openapi-setup.ts fails a test whose answers
 * broke the document, and tallies what was checked (tests/.artifacts/openapi-coverage/, one file per test file).
 */
import type { IncomingMessage, Server, ServerResponse } from 'http';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, unknown> };

export interface Checked {
  operation: string;
  status: number;
}

const state: { violations: string[]; checked: Checked[] } = ((globalThis as any).__openApiCheck ??= { violations: [], checked: [] });

export const takeViolations = () => state.violations.splice(0);
export const takeChecked = () => state.checked.splice(0);

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** A path with its escapes decoded (a malformed one is kept as sent), as the router decodes its parameters. */
const decoded = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

/**
 * Finds the documented path a request path falls under, as the router matches it (in any case, its
 * parameters decoded: `/API/1/%55pload` is /api/1/upload): an exact one first, then the templates
 * with fewest parameters.
 */
function matchPath(doc: Doc, path: string): string | null {
  const trim = (text: string) => (text.length > 1 ? text.replace(/\/$/, '') : text);
  const exactly = (text: string) => Object.keys(doc.paths).find((documented) => documented.toLowerCase() === trim(text).toLowerCase());
  const trimmed = trim(path);
  const template = matchTemplate(doc, trimmed);
  // Decoded only where a route's parameters take the path (`/api/{version}/{action}`): the router
  // matches its literal paths (`/1/upload`) on the path as sent.
  return exactly(path) ?? (template ? (exactly(decoded(path)) ?? template) : null);
}

function matchTemplate(doc: Doc, trimmed: string): string | null {
  const templates = Object.keys(doc.paths)
    .filter((p) => p.includes('{'))
    .sort((a, b) => a.split('{').length - b.split('{').length);
  for (const template of templates) {
    const literal = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
    // A parameter matches what its schema's pattern allows (the routes match only that), else any segment.
    const parameters = (doc.paths[template].parameters ?? []) as Array<{ name: string; schema?: { pattern?: string } }>;
    const segment = (name: string) => parameters.find((p) => p.name === name)?.schema?.pattern?.replace(/^\^|\$$/g, '') ?? '[^/]+';
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    const pieces = template.split(/\{[^}]+\}/).map(literal);
    const pattern = new RegExp(`^${pieces.map((piece, i) => (i < names.length ? `${piece}(?:${segment(names[i])})` : piece)).join('')}$`, 'i');
    if (pattern.test(trimmed)) return template;
  }
  return null;
}

export function createChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'doc' } as any);
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorAt = (ref: string) => {
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: `doc${ref}` });
      validators.set(ref, validate);
    }
    return validate;
  };

  return function check(method: string, url: string, status: number, headers: Record<string, unknown>, body: Buffer): void {
    const path = url.split('?')[0];
    const documented = matchPath(doc, path);
    if (!documented) return;
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    if (verb === 'options') return; // CORS preflights (docs/api.md, "Routes")
    const where = `${method} ${url.slice(0, 120)} -> ${status}`;
    const fail = (why: string): void => void state.violations.push(`${where}: ${why}`);
    const type = String(headers['content-type'] ?? '').split(';')[0].trim();
    const item = doc.paths[documented];
    if (!METHODS.includes(verb) || !item[verb]) {
      // Not a documented operation: the only answer allowed is 405 in the error shape.
      if (status !== 405) return fail(`${method} is not documented on ${documented}, and the answer is not 405`);
      const validate = validatorAt(pointer('components', 'schemas', 'Error'));
      if (type === 'application/json' && !validate(JSON.parse(body.toString('utf8')))) fail(ajv.errorsText(validate.errors));
      state.checked.push({ operation: `${method} ${documented} (undocumented method)`, status });
      return;
    }
    const operation = item[verb];
    const response = operation.responses[String(status)] ?? operation.responses.default;
    if (!response) return fail(`status ${status} is not documented for ${verb.toUpperCase()} ${documented}`);
    state.checked.push({ operation: `${verb.toUpperCase()} ${documented}`, status });
    if (!response.content) {
      if (status === 302 && !headers.location) fail('a redirect without Location');
      return;
    }
    // The most specific entry wins, a media type range (`image/*`, `*/*`) where no exact one is listed (OpenAPI 3.1).
    const listed = [type, `${type.split('/')[0]}/*`, '*/*'].find((entry) => response.content[entry]);
    if (!listed) return fail(`content type "${type}" is not one of ${Object.keys(response.content).join(', ')}`);
    // A HEAD answer has the GET's headers and no body.
    if (listed !== 'application/json' || verb !== method.toLowerCase()) return;
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return fail('the body is not JSON');
    }
    const validate = validatorAt(pointer('paths', documented, verb, 'responses', String(status), 'content', listed, 'schema'));
    if (!validate(json)) fail(`${ajv.errorsText(validate.errors)}\n  body: ${body.toString('utf8').slice(0, 400)}`);
  };
}

/** Records every answer `server` sends and checks it once it has been sent. */
export function checkAnswers(server: Server, doc: Doc): void {
  const check = createChecker(doc);
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function' || size > 1_000_000) return;
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += buffer.length;
      chunks.push(buffer);
    };
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk, rest[0]), write(chunk as any, ...(rest as [any]))) ) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => (keep(chunk, rest[0]), end(chunk as any, ...(rest as [any])))) as typeof res.end;
    res.once('finish', () => {
      try {
        check(req.method ?? 'GET', req.url ?? '/', res.statusCode, res.getHeaders(), Buffer.concat(chunks));
      } catch (error) {
        state.violations.push(`${req.method} ${req.url}: the check failed: ${(error as Error).message}`);
      }
    });
  });
}
