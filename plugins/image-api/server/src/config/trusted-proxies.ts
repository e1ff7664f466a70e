/** The `trustedProxies` option compiled by proxy-addr (http/client-address.ts reads addresses with it). */
import proxyaddr from 'proxy-addr';

/** Throws (TypeError) on an entry that is not an address, a range or a known name. */
export function compileTrustedProxies(trusted: string[]) {
  return proxyaddr.compile(trusted);
}
