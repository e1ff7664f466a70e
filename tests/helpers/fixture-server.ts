/**
 * A loopback HTTP server for URL sources (tests never reach beyond 127.0.0.1):
 *   /img/<name>           a registered file
 *   /redirect/<n>/<name>  n redirects, then /img/<name>
 *   /status/<code>        an empty answer with that status
 *   /slow                 headers, then never a body
 *   /goto?to=<url>        one redirect to any location
 *   /stream/<bytes>       that many bytes, chunked, with no Content-Length
 * On 127.0.0.1 unless told another loopback address (any of 127.0.0.0/8 is this machine on Linux).
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface FixtureServer {
  url(path: string): string;
  /** Serves `body` at /img/`name`, with `type` and any other `headers`. */
  add(name: string, body: Buffer, type?: string, headers?: Record<string, string>): void;
  /** Requests seen, as "METHOD path" plus headers. */
  requests: Array<{ line: string; headers: http.IncomingHttpHeaders }>;
  /** Resolves once no connection to the server is open (at once if none is). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function startFixtureServer(host = '127.0.0.1'): Promise<FixtureServer> {
  const files = new Map<string, { body: Buffer; type: string; headers: Record<string, string> }>();
  const requests: FixtureServer['requests'] = [];
  const open = new Set<import('net').Socket>();
  let waiting: Array<() => void> = [];

  const server = http.createServer((req, res) => {
    requests.push({ line: `${req.method} ${req.url}`, headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://fixture');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'img' && files.has(parts[1])) {
      const file = files.get(parts[1])!;
      res.writeHead(200, { ...file.headers, 'content-type': file.type, 'content-length': file.body.length });
      res.end(file.body);
    } else if (parts[0] === 'redirect') {
      const left = Number(parts[1]);
      res.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}/${parts[2]}` : `/img/${parts[2]}` });
      res.end();
    } else if (parts[0] === 'goto') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      res.end();
    } else if (parts[0] === 'stream') {
      res.writeHead(200, { 'content-type': 'image/png' });
      let left = Number(parts[1]);
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const pump = () => {
        while (left > 0) {
          const piece = chunk.subarray(0, Math.min(left, chunk.length));
          left -= piece.length;
          if (!res.write(piece)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
    } else if (parts[0] === 'status') {
      res.writeHead(Number(parts[1]));
      res.end();
    } else if (parts[0] === 'slow') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.from([0x89, 0x50]));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => {
      open.delete(socket);
      if (open.size > 0) return;
      for (const resolve of waiting) resolve();
      waiting = [];
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: (path) => `http://${host}:${port}${path}`,
    add: (name, body, type = 'application/octet-stream', headers = {}) => files.set(name, { body, type, headers }),
    requests,
    idle: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
