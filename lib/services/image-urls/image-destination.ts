/**
 * Where a client-named image URL may connect (issue 19 item 3): the host is resolved to every address it
 * has, each is judged (./forbidden-range), and the connection goes to the address that was judged — so
 * a name that resolves elsewhere between the check and the connection (DNS rebinding) cannot reach what
 * the check refused. A host or subnet on the operator's allow list (../platform/image-url-allow) passes.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { canonicalHost, type ImageUrlAllow } from '../platform/image-url-allow';
import { embeddedIPv4, forbiddenRange } from './forbidden-range';

export interface ResolvedAddress {
  readonly address: string;
  /** 4 or 6. */
  readonly family: number;
}

/** Every address of a host name; `dns.lookup` (the system resolver, /etc/hosts included) by default. */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolve: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A destination refused; its message is for the operator's log, never for the client. */
export class RefusedDestinationError extends Error {
  override readonly name = 'RefusedDestinationError';
}

/** Every address of the host, all judged, IPv4 first (hosts with an unreachable IPv6 route are common). */
export type ImageDestination = (hostname: string) => Promise<readonly ResolvedAddress[]>;

function allowedSubnets(allow: ImageUrlAllow): BlockList {
  const list = new BlockList();
  for (const subnet of allow.subnets) {
    const [address = '', prefix = ''] = subnet.split('/');
    list.addSubnet(address, Number(prefix), isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** The addresses to connect to for `hostname`, or a `RefusedDestinationError` saying why there are none. */
export function createImageDestination(allow: ImageUrlAllow, resolve: ResolveHost = systemResolve): ImageDestination {
  const subnets = allowedSubnets(allow);
  const inSubnet = (address: string): boolean => {
    const family = isIP(address);
    if (family === 4) return subnets.check(address, 'ipv4');
    const inner = embeddedIPv4(address);
    return subnets.check(address.replace(/%.*$/, ''), 'ipv6') || (inner !== undefined && subnets.check(inner, 'ipv4'));
  };
  return async (hostname) => {
    const host = canonicalHost(hostname);
    const family = isIP(host);
    const addresses = family === 0 ? await resolve(host) : [{ address: host, family }];
    if (addresses.length === 0) throw new RefusedDestinationError(`${host} resolves to no address`);
    if (!allow.hosts.includes(host)) {
      for (const { address } of addresses) {
        const range = forbiddenRange(address);
        if (range !== undefined && !inSubnet(address)) {
          throw new RefusedDestinationError(`${host} is ${address} (${range}), not on the allow list`);
        }
      }
    }
    return [...addresses].sort((a, b) => a.family - b.family);
  };
}
