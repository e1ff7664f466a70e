/**
 * Decides which addresses a URL source may reach (docs/api.md, "URL sources"): public unicast only, unless the
 * operator's allow-list names the host, the address or a range holding it.
 */
import type ipaddr from 'ipaddr.js';
import { parseAddress, parseAllowlist, type Address, type Allowlist } from '../config/url-allowlist';

export { parseAddress };

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/**
 * The range an address belongs to, as ipaddr.js names it ('unicast' is the public internet),
 * with IPv4-compatible IPv6 (::a.b.c.d, deprecated) named as such.
 */
export function addressRange(address: Address): string {
  if (address.kind() === 'ipv6') {
    const parts = (address as ipaddr.IPv6).parts;
    const firstSixZero = parts.slice(0, 6).every((p) => p === 0);
    if (firstSixZero && !(parts[6] === 0 && parts[7] <= 1)) return 'ipv4Compatible';
  }
  return address.range();
}

export interface AddressPolicy {
  /** Whether a connection to this address is allowed for a URL on this host name. */
  check(address: string, hostname?: string): Verdict;
}

/**
 * Builds the policy from an allow-list (host names, addresses, CIDR ranges), as entries or as parsed
 * by `parseAllowlist` (entries throw on one that is none of the three).
 */
export function createAddressPolicy(allowlist: readonly string[] | Allowlist = []): AddressPolicy {
  const { hosts, ranges } = Array.isArray(allowlist) ? parseAllowlist(allowlist) : (allowlist as Allowlist);

  const inAllowedRange = (address: Address) =>
    ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base as never, bits));

  return {
    check(text, hostname) {
      if (hostname && hosts.has(hostname.toLowerCase())) return { allowed: true };
      const address = parseAddress(text);
      if (!address) return { allowed: false, reason: `Not an IP address: ${text}` };
      if (inAllowedRange(address)) return { allowed: true };
      const range = addressRange(address);
      if (range === 'unicast') return { allowed: true };
      return { allowed: false, reason: `URL resolves to a non-public address (${range})` };
    },
  };
}

let built: { entries: string; policy: AddressPolicy } | null = null;

/**
 * The policy of the configured allow-list (`urlAllowlist`, read per use so a changed setting counts),
 * built once per list, not per URL: its entries were checked at boot.
 */
export function policyFor(entries: readonly string[]): AddressPolicy {
  const key = entries.join('\n');
  if (built?.entries !== key) built = { entries: key, policy: createAddressPolicy(entries) };
  return built.policy;
}
