import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Which targets an application's outbound calls may reach: development applications may also use loopback. */
export type EgressEnvironment = 'development' | 'production';

/** Why an address is refused as an outbound target; `metadata` is the cloud instance-metadata address. */
export type RefusedRange =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'unique_local'
  | 'multicast'
  | 'broadcast'
  | 'carrier_grade_nat'
  | 'reserved'
  | 'not_an_address';

const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

const IPV4_RANGE_NAMES: Readonly<Record<string, RefusedRange>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link_local',
  multicast: 'multicast',
  broadcast: 'broadcast',
  carrierGradeNat: 'carrier_grade_nat',
};

const IPV6_RANGE_NAMES: Readonly<Record<string, RefusedRange>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link_local',
  uniqueLocal: 'unique_local',
  multicast: 'multicast',
};

/**
 * The range that makes `address` unfit as an outbound target, or undefined when it is a public
 * unicast address. Deny by default: every special-purpose range (documentation, benchmarking,
 * 6to4, Teredo, ...) is refused, not only the well-known private ones. IPv4-mapped and NAT64
 * (64:ff9b::/96) IPv6 addresses are judged by the IPv4 address they carry.
 */
export function refusedRangeOf(address: string): RefusedRange | undefined {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // isIP accepts only canonical dotted-quad and IPv6 text, never octal/hex/short forms.
  if (isIP(literal) === 0) return 'not_an_address';
  const parsed = ipaddr.parse(literal);
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(literal)) return 'metadata';
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? undefined : (IPV4_RANGE_NAMES[range] ?? 'reserved');
  }
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return refusedRangeOf(v6.toIPv4Address().toString());
  const range = v6.range();
  if (range === 'rfc6052') {
    const bytes = v6.toByteArray().slice(12);
    return refusedRangeOf(new ipaddr.IPv4(bytes).toString());
  }
  return range === 'unicast' ? undefined : (IPV6_RANGE_NAMES[range] ?? 'reserved');
}

/**
 * Why `address` may not be called for this environment, or undefined when it may. Development
 * applications may reach loopback (a receiver or stand-in on the developer's own machine); nothing
 * else non-public is ever allowed.
 */
export function refusalOf(address: string, environment: EgressEnvironment): RefusedRange | undefined {
  const range = refusedRangeOf(address);
  if (range === 'loopback' && environment === 'development') return undefined;
  return range;
}
