/**
 * A loopback HTTP server standing in for a purge API (Cloudflare's, Fastly's) or a Varnish server:
 * it records every request whole (method, target, headers, body) and answers as `respond` says,
 * or never (`'never'`: the connection stays open and silent, as a provider that hangs).
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface SeenRequest {
  method: string;
  /** The request target as sent: path and query. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface StandInAnswer {
  status: number;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json) or text. */
  json?: unknown;
  text?: string;
}

export type Respond = (request: SeenRequest) => StandInAnswer | 'never' | Promise<StandInAnswer | 'never'>;

export interface StandIn {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: SeenRequest[];
  /** How requests are answered from now on. */
  respond: Respond;
  close(): Promise<void>;
}

export async function startStandIn(respond: Respond): Promise<StandIn> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', async () => {
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') };
      requests.push(seen);
      const answer = await standIn.respond(seen);
      if (answer === 'never') return;
      const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? '');
      const type = answer.json !== undefined ? { 'content-type': 'application/json' } : {};
      res.writeHead(answer.status, { ...type, ...answer.headers, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const standIn: StandIn = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return standIn;
}

/** How long `call` takes to settle, and its error; the clock starts before the call (its own timer may start inside it). */
export async function timed(call: () => Promise<unknown>): Promise<{ ms: number; error: Error | null }> {
  const started = performance.now();
  try {
    await call();
    return { ms: performance.now() - started, error: null };
  } catch (error) {
    return { ms: performance.now() - started, error: error as Error };
  }
}
