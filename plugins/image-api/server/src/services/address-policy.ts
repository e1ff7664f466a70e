/**
 * Decides which addresses a URL source may reach (contract.md §6): public unicast only, unless the
 * operator's allow-list names the host, the address or a range holding it.
 */
import ipaddr from 'ipaddr.js';

export type Verdict = { allowed: true } | { allowed: false; reason: string };

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an address in any spelling ipaddr.js knows; IPv4-mapped IPv6 becomes its IPv4. */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return null;
  const address = ipaddr.parse(bare);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

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

/** Builds the policy from allow-list entries: host names, addresses, or CIDR ranges. */
export function createAddressPolicy(allowlist: string[] = []): AddressPolicy {
  const hosts = new Set<string>();
  const ranges: Array<[Address, number]> = [];
  for (const raw of allowlist.map((e) => e.trim()).filter(Boolean)) {
    if (raw.includes('/')) {
      const [base, bits] = ipaddr.parseCIDR(raw.replace(/^\[(.*)\](\/\d+)$/, '$1$2'));
      ranges.push([base, bits]);
    } else {
      const address = parseAddress(raw);
      if (address) ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      else hosts.add(raw.toLowerCase());
    }
  }

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
