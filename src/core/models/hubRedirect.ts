/**
 * Which redirects a model download follows. The hub sends its large files to a CDN on another host,
 * over https; a redirect anywhere else, above all to this machine or its network (a cloud's metadata
 * service at 169.254.169.254, a router, a local server), is refused, unless the hub configured is
 * itself there (a mirror on the local network, a test hub on 127.0.0.1).
 *
 *   await refusedHubRedirect(new URL('https://huggingface.co'), new URL('http://169.254.169.254/'))  // 'refused a redirect to …'
 */
import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { refusedRedirect } from '../webLink';

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

/** Why the download does not follow `hub`'s redirect from `from` to `to`, or undefined when it may. */
export async function refusedHubRedirect(hub: URL, from: string, to: URL): Promise<string | undefined> {
  const notWeb = refusedRedirect(from, to);
  if (notWeb) return notWeb;
  const refused = `${from} redirected elsewhere, and Attest refused a redirect to ${to.origin}${to.pathname}`;
  if (to.protocol !== 'https:' && !(hub.protocol === 'http:' && to.hostname === hub.hostname)) {
    return `${refused}: it follows redirects to https only, or to the hub's own host.`;
  }
  const target = await reachOf(to.hostname);
  if (target === 'public' || target === (await reachOf(hub.hostname))) return undefined;
  return `${refused}: a ${target} address, which the hub (${hub.host}) is not.`;
}

/** Where a host is: by its address, or by every address its name has (the most private counts). */
async function reachOf(hostname: string): Promise<Reach> {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  if (isIP(host)) return reachOfAddress(host);
  // A name that does not resolve is not followed anywhere: the fetch fails and says so.
  const addresses = await dns.lookup(host, { all: true }).catch(() => []);
  return addresses.map((a) => reachOfAddress(a.address)).find((reach) => reach !== 'public') ?? 'public';
}

function reachOfAddress(address: string): Reach {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return LISTS.find(([, list]) => list.check(address, family))?.[0] ?? 'public';
}
