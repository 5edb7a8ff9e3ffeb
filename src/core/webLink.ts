/**
 * Whether a link from outside (a source's record, a paper, a redirect) is a web address. Only these are
 * opened or followed: `file:`, `vscode:` or `command:` links in data would act on the user's machine.
 */
export function isWebLink(url: string | URL): boolean {
  if (typeof url === 'string' && /\s/.test(url)) return false;
  try {
    const { protocol, host } = typeof url === 'string' ? new URL(url) : url;
    return (protocol === 'http:' || protocol === 'https:') && host !== '';
  } catch {
    return false;
  }
}

/** Why a redirect is not followed, or undefined when it may be. */
export function refusedRedirect(from: string, to: URL): string | undefined {
  if (isWebLink(to)) return undefined;
  return `${from} redirected to ${to.protocol}${to.protocol === 'file:' ? '//' : ''}…, which is not a web address; Attest follows redirects to http and https only.`;
}
