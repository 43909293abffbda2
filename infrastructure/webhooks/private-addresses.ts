/**
 * Addresses outbound webhooks must not reach (SSRF): loopback, private and shared networks, link-local
 * (cloud metadata at 169.254.169.254), documentation, benchmarking, multicast and reserved ranges.
 * An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is judged by its IPv4 part (BlockList matches it
 * against the IPv4 rules). Anything that is not an IP address counts as private: refusing is the safe side.
 */
import { BlockList, isIP } from 'node:net';

const IPV4: [string, number][] = [
  ['0.0.0.0', 8], // "this" network (0.0.0.0 reaches the local host)
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

const IPV6: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['64:ff9b::', 96], // NAT64: reaches IPv4 addresses through a translator
  ['2002::', 16], // 6to4: embeds an IPv4 address (deprecated)
  ['::', 96], // IPv4-compatible ::a.b.c.d (deprecated), which embeds one too
];

const refused = new BlockList();
for (const [network, prefix] of IPV4) refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6) refused.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return true;
  try {
    return refused.check(address, version === 6 ? 'ipv6' : 'ipv4');
  } catch {
    return true; // e.g. a zone id BlockList cannot read
  }
}

/** The IP address a URL's hostname names literally (IPv6 without its brackets), or null for a name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}
