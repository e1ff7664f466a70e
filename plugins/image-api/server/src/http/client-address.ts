/**
 * The client's address, for the failed-authentication limit: the connection's peer, unless the peer
 * is a trusted proxy (`trustedProxies`: addresses, CIDR ranges, or proxy-addr's names `loopback`,
 * `linklocal`, `uniquelocal`); then X-Forwarded-For is read from the right, past every trusted
 * proxy, to the first address that is not one. A client-supplied X-Forwarded-For is never believed:
 * entries left of the first untrusted address are ignored, and so is the header itself when the
 * peer is not a trusted proxy. (proxy-addr is Express's implementation of exactly this.)
 */
import type { IncomingMessage } from 'http';
import proxyaddr from 'proxy-addr';
import { compileTrustedProxies } from '../config/trusted-proxies';

let compiled: { list: string; trust: ReturnType<typeof proxyaddr.compile> } | null = null;

export function clientAddress(req: IncomingMessage, trusted: string[]): string {
  const list = trusted.join(',');
  if (compiled?.list !== list) compiled = { list, trust: compileTrustedProxies(trusted) };
  return proxyaddr(req, compiled.trust);
}
