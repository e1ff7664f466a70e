/**
 * A loopback stand-in for a cache that takes purges (a Varnish server with xkey, as the varnish
 * purger speaks to it: `PURGE /` with `xkey-purge`, or `PURGE <path>` with `Host`): it records
 * every request and answers as told, so tests see what reaches the caches, and when.
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface PurgeRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

/** How the next requests are answered: a status, or never (the connection is held open). */
export type PurgeAnswer = number | 'never';

export interface PurgeStandIn {
  url: string;
  port: number;
  received: PurgeRequest[];
  /** Called as each request arrives, before it is answered. */
  onRequest: ((request: PurgeRequest) => void) | null;
  /** Answers the next requests in turn with these, then 200. */
  answerNext(...answers: PurgeAnswer[]): void;
  /** The tags purged so far (`xkey-purge` headers, split). */
  purgedTags(): string[];
  /** Waits until a purge naming `tag` arrives `count` times, and returns those requests. */
  waitForTag(tag: string, count?: number, timeoutMs?: number): Promise<PurgeRequest[]>;
  /** Stops listening (connections refused) until listen() again, on the same port. */
  close(): Promise<void>;
  listen(): Promise<void>;
}

export async function startPurgeStandIn(): Promise<PurgeStandIn> {
  const received: PurgeRequest[] = [];
  const queue: PurgeAnswer[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: Date.now() };
      received.push(request);
      standIn.onRequest?.(request);
      const answer = queue.shift() ?? 200;
      if (answer === 'never') {
        held.add(res);
        return;
      }
      res.writeHead(answer, { 'Content-Type': 'text/plain' }).end(answer === 200 ? 'Purged' : 'Refused');
    });
  });
  let port = 0;
  const listen = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen();
  port = (server.address() as AddressInfo).port;
  const purgedTags = () => received.flatMap((request) => String(request.headers['xkey-purge'] ?? '').split(' ').filter(Boolean));
  const standIn: PurgeStandIn = {
    onRequest: null,
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    answerNext: (...answers) => queue.push(...answers),
    purgedTags,
    async waitForTag(tag, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.filter((request) => String(request.headers['xkey-purge'] ?? '').split(' ').includes(tag));
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`${found.length} of ${count} purges of ${tag} arrived in ${timeoutMs} ms; received: ${JSON.stringify(received.map((r) => [r.method, r.url, r.headers['xkey-purge']]))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      for (const res of held) res.destroy();
      held.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    listen,
  };
  return standIn;
}
