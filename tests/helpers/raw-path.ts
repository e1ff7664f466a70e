/**
 * A request whose path goes out byte for byte as written: supertest and `http.request(url)` parse
 * the URL first, which resolves `./`, `../` and `%2e` before anything is sent, so the spellings a
 * hostile client sends would never reach the server.
 */
import http from 'http';
import type { AddressInfo } from 'net';
import type { Server } from 'http';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Starts `server` on a loopback port unless it listens already. */
export async function listening(server: Server): Promise<number> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** `method` `rawPath` on 127.0.0.1:`port`, with a 10 s limit. */
export function requestPath(port: number, method: string, rawPath: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: rawPath, headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${rawPath}: no answer within 10 s`)));
    req.on('error', reject);
    req.end();
  });
}
