/**
 * Which redirects a model download follows. The hub sends its large files to a CDN on another host,
 * over https; a redirect anywhere else, above all to this machine or its network (a cloud's metadata
 * service at 169.254.169.254, a router, a local server), is refused, unless the hub configured is
 * itself there (a mirror on the local network, a test hub on 127.0.0.1).
 *
 *   await refusedHubRedirect(new URL('https://huggingface.co'), new URL('http://169.254.169.254/'))  // 'refused a redirect to …'
 */
import { inwardRedirect } from '../addressReach';
import { refusedRedirect } from '../webLink';

/** Why the download does not follow `hub`'s redirect from `from` to `to`, or undefined when it may. */
export async function refusedHubRedirect(hub: URL, from: string, to: URL): Promise<string | undefined> {
  const notWeb = refusedRedirect(from, to);
  if (notWeb) return notWeb;
  const refused = `${from} redirected elsewhere, and Attest refused a redirect to ${to.origin}${to.pathname}`;
  if (to.protocol !== 'https:' && !(hub.protocol === 'http:' && to.hostname === hub.hostname)) {
    return `${refused}: it follows redirects to https only, or to the hub's own host.`;
  }
  return inwardRedirect(hub, to, refused, `the hub (${hub.host})`);
}
