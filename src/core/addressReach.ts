/**
 * Where an address is: on this machine, on its link, on a private network, or on the public internet.
 * A redirect from a public service inward (to a cloud's metadata service at 169.254.169.254, a router,
 * a local server) is refused by every client that follows redirects from outside: the model hub's
 * downloads and the bibliographic sources.
 */
import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';

type Reach = 'public' | 'loopback' | 'link-local' | 'private';

const RANGES: Record<Exclude<Reach, 'public'>, readonly (readonly [string, number, 'ipv4' | 'ipv6'])[]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['0.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
    ['::', 128, 'ipv6'],
  ],
  'link-local': [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  private: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['100.64.0.0', 10, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

// BlockList also matches an IPv4-mapped IPv6 address (::ffff:169.254.169.254) against the IPv4 ranges.
const LISTS = Object.entries(RANGES).map(([reach, ranges]) => {
  const list = new BlockList();
  for (const [address, prefix, family] of ranges) list.addSubnet(address, prefix, family);
  return [reach as Reach, list] as const;
});

/**
 * Why a redirect from a service at `origin` to `to` is not followed: `to` is nearer this machine than
 * the service is (a link-local, loopback or private address the service is not on). `refused` begins
 * the sentence; `service` names the service in it.
 */
export async function inwardRedirect(origin: URL, to: URL, refused: string, service: string): Promise<string | undefined> {
  const target = await reachOf(to.hostname);
  if (target === 'public' || target === (await reachOf(origin.hostname))) return undefined;
  return `${refused}: a ${target} address, which ${service} is not.`;
}

/**
 * Whether the address `url` names is this machine: every address its host resolves to is a loopback
 * one. A name is judged by where it leads, never by how it looks (`127.0.0.1.example.com` is a name
 * like any other); one that does not resolve is not this machine.
 */
export async function isThisMachine(url: string): Promise<boolean> {
  let hostname: string;
  try {
    hostname = new URL(url.trim()).hostname;
  } catch {
    return false;
  }
  const addresses = await addressesOf(bare(hostname));
  return addresses.length > 0 && addresses.every((address) => reachOfAddress(address) === 'loopback');
}

/** Where a host is: by its address, or by every address its name has (the most private counts). */
async function reachOf(hostname: string): Promise<Reach> {
  const host = bare(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  // A name that does not resolve is not followed anywhere: the fetch fails and says so.
  return (await addressesOf(host)).map(reachOfAddress).find((reach) => reach !== 'public') ?? 'public';
}

/** A URL's hostname without the brackets of an IPv6 address, in lower case. */
function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The host's addresses: itself when it is one, else what its name resolves to (none when it does not). */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  return (await dns.lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
}

function reachOfAddress(address: string): Reach {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return LISTS.find(([, list]) => list.check(address, family))?.[0] ?? 'public';
}
