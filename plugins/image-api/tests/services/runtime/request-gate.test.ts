import { createRequestGate, type Ticket } from '../../../server/src/services/runtime/request-gate';

const gate = (maxRequests: number, maxBytes: number) => createRequestGate(() => ({ maxRequests, maxBytes }));

test('lets in up to maxRequests requests; one more is refused as full until one leaves', () => {
  const g = gate(2, 1000);
  const a = g.enter(10) as Ticket;
  const b = g.enter(10) as Ticket;
  expect(typeof a).toBe('object');
  expect(typeof b).toBe('object');
  expect(g.enter(10)).toBe('full');
  expect(g.inFlight()).toEqual({ requests: 2, bytes: 20 });
  a.leave();
  a.leave(); // leaving twice counts once
  expect(g.inFlight()).toEqual({ requests: 1, bytes: 10 });
  expect(typeof g.enter(10)).toBe('object');
});

test('refuses a request whose body would take the bytes in flight past maxBytes, but never a lone one', () => {
  const g = gate(10, 100);
  const big = g.enter(5000) as Ticket; // alone: let in, the body limits judge it
  expect(typeof big).toBe('object');
  expect(g.enter(1)).toBe('full');
  big.leave();
  const a = g.enter(60) as Ticket;
  expect(g.enter(41)).toBe('full');
  expect(typeof g.enter(40)).toBe('object');
  a.leave();
});

test('drain(): refuses new requests at once, resolves true when the last one leaves', async () => {
  const g = gate(5, 1000);
  const a = g.enter(1) as Ticket;
  const drained = g.drain(5000);
  expect(g.draining()).toBe(true);
  expect(g.enter(1)).toBe('draining');
  let settled = false;
  void drained.then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(settled).toBe(false);
  a.leave();
  await expect(drained).resolves.toBe(true);
});

test('drain(): resolves false after its timeout when requests are still in flight', async () => {
  const g = gate(5, 1000);
  g.enter(1);
  const started = Date.now();
  await expect(g.drain(50)).resolves.toBe(false);
  expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  await expect(gate(1, 1).drain(10)).resolves.toBe(true);
});
