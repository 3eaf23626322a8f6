/**
 * `FLEET_IMAGE_URL_ALLOW` (issue 19 item 3): the destinations an operator opens to client-named image
 * URLs although they are private — an internal image server, a LAN. Each entry is a CIDR (`10.0.0.0/8`,
 * `fd12::/16`), a single address, or a host name matched exactly (`images.internal`), whatever it
 * resolves to. Parsed once with the config (./config); judged by ../image-urls/image-destination. Pure.
 */
import { isIP } from 'node:net';

export interface ImageUrlAllow {
  /** `address/prefix`, each valid for its family. */
  readonly subnets: readonly string[];
  /** Lower case, without a trailing dot. */
  readonly hosts: readonly string[];
}

export const NO_IMAGE_URL_ALLOW: ImageUrlAllow = Object.freeze({ subnets: [], hosts: [] });

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A host as the allow list spells it: lower case, brackets and a trailing dot gone. */
export function canonicalHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

function subnetOf(entry: string): string | undefined {
  const [address = '', prefixText, extra] = canonicalHost(entry).split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (prefixText === undefined) return `${address}/${bits}`;
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined;
  return `${address}/${Number(prefixText)}`;
}

/** Throws naming the entry that is neither a CIDR, an address nor a host name. */
export function parseImageUrlAllow(entries: readonly string[]): ImageUrlAllow {
  const subnets: string[] = [];
  const hosts: string[] = [];
  for (const entry of entries) {
    const subnet = subnetOf(entry);
    if (subnet !== undefined) subnets.push(subnet);
    else if (!entry.includes('/') && HOST_NAME.test(canonicalHost(entry))) hosts.push(canonicalHost(entry));
    else throw new Error(`FLEET_IMAGE_URL_ALLOW: "${entry}" is not a CIDR, an IP address or a host name`);
  }
  return Object.freeze({ subnets: Object.freeze(subnets), hosts: Object.freeze(hosts) });
}
