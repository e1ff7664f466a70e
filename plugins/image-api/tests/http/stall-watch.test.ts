import type { IncomingMessage } from 'http';
import { watchBody } from '../../server/src/http/stall-watch';

/** A request whose socket has read `bytesRead` bytes so far. */
const fakeRequest = () => {
  const socket = { bytesRead: 0 };
  return { socket, req: { socket } as unknown as IncomingMessage };
};
const stalledError = () => new Error('stalled');
const outcome = (promise: Promise<never>) => promise.then(() => 'resolved', (error: Error) => error.message);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a body with no byte for a window stalls', async () => {
  const { req } = fakeRequest();
  const watch = watchBody(req, { windowMs: 40, minBytesPerSecond: 0 }, stalledError);
  await expect(outcome(watch.stalled)).resolves.toBe('stalled');
});

test('a body slower than the floor over a window stalls, though bytes keep coming', async () => {
  const { req, socket } = fakeRequest();
  const trickle = setInterval(() => (socket.bytesRead += 1), 5);
  const watch = watchBody(req, { windowMs: 50, minBytesPerSecond: 1024 }, stalledError);
  try {
    await expect(outcome(watch.stalled)).resolves.toBe('stalled');
    // Within the first few windows (about 10 bytes each), counted in the trickle's own ticks: a
    // loaded machine that pauses this process pauses both alike (a wall-clock bound once read 2.4 s).
    expect(socket.bytesRead).toBeLessThan(40);
  } finally {
    clearInterval(trickle);
  }
});

test('a body at or above the floor never stalls; stop() ends the watch', async () => {
  const { req, socket } = fakeRequest();
  const flow = setInterval(() => (socket.bytesRead += 100), 5); // about 20 KB/s
  const watch = watchBody(req, { windowMs: 30, minBytesPerSecond: 1024 }, stalledError);
  let stalled = false;
  watch.stalled.catch(() => (stalled = true));
  await sleep(200);
  clearInterval(flow);
  watch.stop();
  await sleep(100); // silent now, but stopped: no stall
  expect(stalled).toBe(false);
});

test('a body that keeps above the floor but has not all arrived by the deadline is cut with the late error', async () => {
  const { req, socket } = fakeRequest();
  const flow = setInterval(() => (socket.bytesRead += 100), 5);
  const started = Date.now();
  const watch = watchBody(req, { windowMs: 30, minBytesPerSecond: 1024, deadlineMs: 120 }, stalledError, () => new Error('late'));
  try {
    await expect(outcome(watch.stalled)).resolves.toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  } finally {
    clearInterval(flow);
  }
});
