import http from 'http';
import net from 'net';
import type { AddressInfo } from 'net';
import { endAfterBody } from '../../server/src/http/end-after-body';

/** A server that refuses every request at once, before reading its body, as the upload routes do. */
async function refusingServer(useEndAfterBody: boolean, maxWaitMs = 5000) {
  const server = http.createServer((req, res) => {
    if (useEndAfterBody) endAfterBody(req, res, maxWaitMs);
    else req.resume();
    res.writeHead(503, { 'Content-Type': 'text/plain', 'Content-Length': 4 });
    res.end('busy');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * A raw client, as curl is: sends the headers (Connection: close) and `chunks` chunks of 64 KB, 20 ms
 * apart (all of them, whatever the server answers, unless `stopAfter` of them); what it saw, and
 * when the server closed its side.
 */
function rawUpload(port: number, chunks: number, stopAfter = chunks) {
  return new Promise<{ answer: string; answeredAfterMs: number; closedAfterMs: number; error: string | null }>((resolve) => {
    const started = Date.now();
    const chunk = Buffer.alloc(64 * 1024, 1);
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let answeredAfterMs = -1;
    let error: string | null = null;
    socket.on('data', (data) => {
      answer += data;
      if (answeredAfterMs < 0) answeredAfterMs = Date.now() - started;
    });
    socket.on('error', (e) => (error = e.message));
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve({ answer, answeredAfterMs, closedAfterMs: Date.now() - started, error }));
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${chunk.length * chunks}\r\n\r\n`);
    let sent = 0;
    const pump = () => {
      if (sent === stopAfter || socket.destroyed) return;
      sent++;
      socket.write(chunk);
      setTimeout(pump, 20);
    };
    pump();
  });
}

test('the answer arrives at once and whole, and the connection closes once the body has been read, without a reset', async () => {
  const { server, port } = await refusingServer(true);
  const seen = await rawUpload(port, 15);
  server.close();
  expect(seen.error).toBeNull();
  expect(seen.answer).toMatch(/^HTTP\/1\.1 503 [^]*\r\n\r\nbusy$/);
  expect(seen.answeredAfterMs).toBeLessThan(200);
  expect(seen.closedAfterMs).toBeGreaterThanOrEqual(14 * 20);
});

test('a body that never ends holds the connection maxWaitMs at most', async () => {
  const { server, port } = await refusingServer(true, 300);
  const seen = await rawUpload(port, 15, 2);
  server.close();
  expect(seen.answer).toMatch(/busy$/);
  expect(seen.closedAfterMs).toBeGreaterThanOrEqual(290);
  expect(seen.closedAfterMs).toBeLessThan(3000);
});

test('a request already read whole is not held', async () => {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      endAfterBody(req, res, 5000);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const seen = await rawUpload(port, 1);
  server.close();
  expect(seen.answer).toMatch(/ok$/);
  expect(seen.closedAfterMs).toBeLessThan(2000);
});
