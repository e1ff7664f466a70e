/**
 * A loopback webhook receiver: records every POST Strapi's webhook runner sends it (event header and
 * JSON body), so tests see webhooks as a search indexer or a site builder would.
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface ReceivedWebhook {
  /** The `X-Strapi-Event` header. */
  event: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
  /** The body as sent, to check what it does not contain. */
  raw: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Waits until `count` webhooks match (within `timeoutMs`), and returns them. */
  waitFor(match: (hook: ReceivedWebhook) => boolean, count?: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ event: String(req.headers['x-strapi-event'] ?? ''), headers: req.headers, body: JSON.parse(raw || '{}'), raw });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async waitFor(match, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.filter(match);
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`${found.length} of ${count} webhooks arrived in ${timeoutMs} ms; received: ${received.map((hook) => hook.event).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
