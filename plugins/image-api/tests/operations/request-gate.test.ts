import { createRequestGate, type Ticket } from '../../server/src/operations/request-gate';

const gate = (maxRequests: number, maxBytes: number, maxPerAddress = Infinity) => createRequestGate(() => ({ maxRequests, maxBytes, maxPerAddress }));

test('lets in up to maxRequests requests; one more is refused as full until one leaves', () => {
  const g = gate(2, 1000);
  const a = g.enter(10, '192.0.2.1') as Ticket;
  const b = g.enter(10, '192.0.2.1') as Ticket;
  expect(typeof a).toBe('object');
  expect(typeof b).toBe('object');
  expect(g.enter(10, '192.0.2.1')).toBe('full');
  expect(g.inFlight()).toEqual({ requests: 2, bytes: 20, addresses: 1 });
  a.leave();
  a.leave(); // leaving twice counts once
  expect(g.inFlight()).toEqual({ requests: 1, bytes: 10, addresses: 1 });
  expect(typeof g.enter(10, '192.0.2.1')).toBe('object');
});

test('refuses a request whose body would take the bytes in flight past maxBytes, but never a lone one', () => {
  const g = gate(10, 100);
  const big = g.enter(5000, '192.0.2.1') as Ticket; // alone: let in, the body limits judge it
  expect(typeof big).toBe('object');
  expect(g.enter(1, '192.0.2.1')).toBe('full');
  big.leave();
  const a = g.enter(60, '192.0.2.1') as Ticket;
  expect(g.enter(41, '192.0.2.1')).toBe('full');
  expect(typeof g.enter(40, '192.0.2.1')).toBe('object');
  a.leave();
});

test('drain(): refuses new requests at once, resolves true when the last one leaves', async () => {
  const g = gate(5, 1000);
  const a = g.enter(1, '192.0.2.1') as Ticket;
  const drained = g.drain(5000);
  expect(g.draining()).toBe(true);
  expect(g.enter(1, '192.0.2.1')).toBe('draining');
  let settled = false;
  void drained.then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(settled).toBe(false);
  a.leave();
  await expect(drained).resolves.toBe(true);
});

test('drain(): resolves false after its timeout when requests are still in flight', async () => {
  const g = gate(5, 1000);
  g.enter(1, '192.0.2.1');
  const started = Date.now();
  await expect(g.drain(50)).resolves.toBe(false);
  expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  await expect(gate(1, 1).drain(10)).resolves.toBe(true);
});

// 16 slow bodies from one address once held every slot (issue 23, item 1).
test('one address holds at most its share; other addresses still get in; a slot comes back when its request leaves', () => {
  const g = gate(16, 1_000_000, 4);
  const mine = Array.from({ length: 4 }, () => g.enter(10, '198.51.100.7') as Ticket);
  expect(mine.every((ticket) => typeof ticket === 'object')).toBe(true);
  expect(g.enter(10, '198.51.100.7')).toBe('address');
  expect(typeof g.enter(10, '203.0.113.9')).toBe('object');
  expect(g.inFlight()).toEqual({ requests: 5, bytes: 50, addresses: 2 });
  mine[0].leave();
  expect(typeof g.enter(10, '198.51.100.7')).toBe('object');
});

test('a full process is full for every address; short of that, an address past its share is told so', () => {
  const g = gate(2, 1_000_000, 1);
  const a = g.enter(10, 'a') as Ticket;
  expect(g.enter(10, 'a')).toBe('address');
  g.enter(10, 'b');
  expect(g.enter(10, 'a')).toBe('full');
  expect(g.enter(10, 'c')).toBe('full');
  a.leave();
  expect(typeof g.enter(10, 'c')).toBe('object');
});

// Keyless slow bodies from four addresses once held every slot (issue 34, attack review).
test('requests not vouched for hold at most their share of requests and bytes; vouched ones get the rest', () => {
  const g = createRequestGate(() => ({ maxRequests: 4, maxBytes: 1000, maxPerAddress: Infinity, maxUnvouched: { requests: 2, bytes: 500 } }));
  const strangers = [g.enter(10, '192.0.2.1', false), g.enter(10, '192.0.2.2', false)] as Ticket[];
  expect(g.enter(10, '192.0.2.3', false)).toBe('full');
  const keyed = [g.enter(10, '192.0.2.4'), g.enter(10, '192.0.2.4', true)];
  expect(keyed.every((ticket) => typeof ticket === 'object')).toBe(true);
  expect(g.enter(10, '192.0.2.4')).toBe('full');
  strangers[0].leave();
  // Their bytes are capped too: 10 + 491 would pass the share's 500.
  expect(g.enter(491, '192.0.2.3', false)).toBe('full');
  expect(typeof g.enter(490, '192.0.2.3', false)).toBe('object');
});
