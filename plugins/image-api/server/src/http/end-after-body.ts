/**
 * An answer sent before its request's body was read (a refusal: 503 for load, 413, a malformed
 * body) goes out at once, but the response is ended only once the rest of the body has arrived
 * (and been discarded), or after `maxWaitMs`. Node closes a `Connection: close` socket as soon as
 * its response ends; closing it on unread data makes the kernel send a reset, and the client then
 * loses the answer it had not read yet (EPIPE or ECONNRESET instead of the 503). The client gets
 * every byte of the answer at once (it has a Content-Length); only the close waits.
 */
import type { IncomingMessage, ServerResponse } from 'http';

/** Responses already set to end after their body: a second call (an outer middleware's) is a no-op. */
const waiting = new WeakSet<ServerResponse>();

export function endAfterBody(req: IncomingMessage, res: ServerResponse, maxWaitMs: number): void {
  if (req.complete || waiting.has(res)) return;
  waiting.add(res);
  req.resume(); // the rest is discarded as it arrives, never held
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const [chunk, encoding] = args;
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') res.write(chunk as Buffer, encoding as BufferEncoding);
    let ended = false;
    const finish = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      end();
    };
    const timer = setTimeout(finish, maxWaitMs);
    if (req.complete) finish();
    else {
      req.once('end', finish);
      req.once('close', finish);
      req.once('error', finish);
    }
    return res;
  }) as typeof res.end;
}
