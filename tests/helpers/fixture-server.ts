/**
 * A loopback HTTP server for URL sources (tests never reach beyond 127.0.0.1):
 *   /img/<name>           a registered file
 *   /redirect/<n>/<name>  n redirects, then /img/<name>
 *   /status/<code>        an empty answer with that status
 *   /slow                 headers, then never a body
 *   /goto?to=<url>        one redirect to any location
 *   /stream/<bytes>       that many bytes, chunked, with no Content-Length
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface FixtureServer {
  url(path: string): string;
  add(name: string, body: Buffer, type?: string): void;
  /** Requests seen, as "METHOD path" plus headers. */
  requests: Array<{ line: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const files = new Map<string, { body: Buffer; type: string }>();
  const requests: FixtureServer['requests'] = [];
  const open = new Set<import('net').Socket>();

  const server = http.createServer((req, res) => {
    requests.push({ line: `${req.method} ${req.url}`, headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://fixture');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'img' && files.has(parts[1])) {
      const file = files.get(parts[1])!;
      res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length });
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
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    add: (name, body, type = 'application/octet-stream') => files.set(name, { body, type }),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
