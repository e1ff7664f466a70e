import type { IncomingMessage } from 'http';
import { clientAddress } from '../../server/src/http/client-address';

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }) as unknown as IncomingMessage;

test('no trusted proxy: the peer, whatever X-Forwarded-For says', () => {
  expect(clientAddress(request('203.0.113.9', '198.51.100.1'), [])).toBe('203.0.113.9');
});

test('a trusted proxy: the address it appended, never what the client wrote before it', () => {
  // nginx appends the address it saw: "<what the client sent>, <the client>"
  expect(clientAddress(request('127.0.0.1', '6.6.6.6, 198.51.100.7'), ['loopback'])).toBe('198.51.100.7');
  expect(clientAddress(request('::ffff:127.0.0.1', '198.51.100.7'), ['127.0.0.1'])).toBe('198.51.100.7');
});

test('a chain of trusted proxies is walked from the right, to the first address that is not one', () => {
  expect(clientAddress(request('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.1'), ['10.0.0.0/8'])).toBe('198.51.100.7');
});

test('a peer that is not a trusted proxy sends X-Forwarded-For for nothing', () => {
  expect(clientAddress(request('203.0.113.9', '127.0.0.1'), ['loopback'])).toBe('203.0.113.9');
});
