/**
 * The grammar of the `urlAllowlist` option: host names, IP addresses (any spelling ipaddr.js reads,
 * IPv6 bracketed or not) and CIDR ranges. Parsed once at boot, by the validator; an entry that is
 * none of these stops the boot instead of failing every URL upload.
 */
import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface Allowlist {
  /** Lowercase host names, allowed whatever they resolve to. */
  hosts: Set<string>;
  /** Addresses (as /32 or /128) and ranges. */
  ranges: Array<[Address, number]>;
}

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

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

function parseRange(entry: string): [Address, number] {
  try {
    return ipaddr.parseCIDR(entry.replace(/^\[(.*)\](\/\d+)$/, '$1$2'));
  } catch {
    throw new Error(`invalid URL allow-list entry "${entry}": not a CIDR range (like 10.0.0.0/8 or fd00::/8)`);
  }
}

/** Parses the entries (blank ones ignored); throws an Error naming the first entry that is none of the three. */
export function parseAllowlist(entries: readonly string[]): Allowlist {
  const allowlist: Allowlist = { hosts: new Set(), ranges: [] };
  for (const entry of entries.map((e) => e.trim()).filter(Boolean)) {
    if (entry.includes('/')) {
      allowlist.ranges.push(parseRange(entry));
      continue;
    }
    const address = parseAddress(entry);
    if (address) allowlist.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    else if (HOST_NAME.test(entry)) allowlist.hosts.add(entry.toLowerCase());
    else throw new Error(`invalid URL allow-list entry "${entry}": expected a host name, an IP address or a CIDR range`);
  }
  return allowlist;
}
