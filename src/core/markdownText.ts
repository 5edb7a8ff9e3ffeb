import { isWebLink } from './webLink';

/**
 * Outside text (a .bib field, a citation key, a source's record, a model's sentence) placed in Markdown
 * the editor renders, as text and never as markup: a key such as ``x`![t](https://evil.example/p.png)` ``
 * would otherwise load a remote image when its citation is hovered.
 */

/** `text` with every ASCII punctuation character backslash-escaped, which CommonMark prints as itself. */
export function markdownText(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** `text` as a code span: its fence longer than any run of backticks in it, so nothing in it ends the span. */
export function markdownCode(text: string): string {
  const longest = (text.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
  const fence = '`'.repeat(longest + 1);
  // A span's content that starts or ends with a backtick or a space needs a space on each side, which is stripped.
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * A link to `url` showing `text`, or the text alone when there is no address or it is not http(s).
 * The target is the address as a URL writes it, with `(`, `)` and `'` percent-encoded too, so that it
 * never ends early on a `)` in the address.
 */
export function markdownLink(text: string, url: string | undefined): string {
  return url !== undefined && isWebLink(url) ? `[${markdownText(text)}](${linkTarget(new URL(url).href)})` : markdownText(text);
}

/** The doi.org address of a DOI, every character of it that could end or change the path percent-encoded. */
export function doiUrl(doi: string): string | undefined {
  try {
    return `https://doi.org/${doi.split('/').map(encodeURIComponent).join('/')}`;
  } catch {
    return undefined; // a lone surrogate
  }
}

/** An encoded address (`URL.href`, `Uri.toString()`) as a Markdown link target. */
export function linkTarget(href: string): string {
  return href.replace(/[()' ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
