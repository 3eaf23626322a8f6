/**
 * Which addresses a client-named image URL may not reach (issue 19 item 3): loopback, private networks,
 * link-local and cloud metadata, carrier-grade NAT, unspecified, multicast, broadcast and the other
 * special-purpose ranges of the IANA registries — none of them is where a public image lives, and each
 * is where the router, its nodes or its host's credentials answer. IPv6 forms that carry an IPv4 address
 * (`::ffff:127.0.0.1`, NAT64 `64:ff9b::7f00:1`, 6to4 `2002:7f00:1::`) are judged by that address. Pure.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Each range with the name an operator reads in the log. */
const IPV4_RANGES: readonly (readonly [string, string, number])[] = [
  ['this network', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['carrier-grade NAT', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['IETF protocol assignments', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['6to4 relay', '192.88.99.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
];

const IPV6_RANGES: readonly (readonly [string, string, number])[] = [
  // ::/128 unspecified, ::1/128 loopback and the deprecated IPv4-compatible ::a.b.c.d.
  ['unspecified, loopback or IPv4-compatible', '::', 96],
  ['NAT64 local use', '64:ff9b:1::', 48],
  ['discard only', '100::', 64],
  ['IETF protocol assignments', '2001::', 23],
  ['documentation', '2001:db8::', 32],
  ['documentation', '3fff::', 20],
  ['unique local', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  ['site-local', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
];

let lists: readonly (readonly [string, BlockList])[] | undefined;

function rangeLists(): readonly (readonly [string, BlockList])[] {
  lists ??= [
    ...IPV4_RANGES.map(([name, network, prefix]) => [name, subnet(network, prefix, 'ipv4')] as const),
    ...IPV6_RANGES.map(([name, network, prefix]) => [name, subnet(network, prefix, 'ipv6')] as const),
  ];
  return lists;
}

function subnet(network: string, prefix: number, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return list;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad and a zone id allowed). */
export function ipv6Groups(address: string): number[] {
  const bare = address.replace(/%.*$/, '');
  const lastColon = bare.lastIndexOf(':');
  const tail = bare.slice(lastColon + 1);
  let text = bare;
  if (isIPv4(tail)) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${bare.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  if (rest === undefined) return parse(head);
  const front = parse(head);
  const back = parse(rest);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** The IPv4 address an IPv6 address stands for: IPv4-mapped, NAT64 well-known prefix, 6to4. */
export function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const at = (index: number) => g[index] ?? 0;
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && at(5) === 0xffff) return ipv4Of(at(6), at(7));
  if (at(0) === 0x64 && at(1) === 0xff9b && zeros(2, 6)) return ipv4Of(at(6), at(7));
  if (at(0) === 0x2002) return ipv4Of(at(1), at(2));
  return undefined;
}

/**
 * The special-purpose range `address` (an IP literal, as `dns.lookup` returns it or the URL parser
 * normalised it, brackets allowed) falls in, or `undefined` for a public address. Anything that is not
 * an IP address is refused too: it cannot be judged.
 */
export function forbiddenRange(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return rangeLists().find(([, list]) => list.check(bare, 'ipv4'))?.[0];
  if (!isIPv6(bare)) return 'not an IP address';
  const inner = embeddedIPv4(bare);
  if (inner !== undefined) return forbiddenRange(inner);
  const unzoned = bare.replace(/%.*$/, '');
  return rangeLists().find(([, list]) => list.check(unzoned, 'ipv6'))?.[0];
}
