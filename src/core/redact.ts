/**
 * Secrets (API keys, tokens) out of text from outside: an error body, a network error, an echoed URL.
 * A server or proxy echoes a key as it was sent, which for a query parameter is percent-encoded
 * (`a%2Bb`, `a+b` for a space, either case of hex, even encoded twice as `%252B`), so each character
 * is matched in every form it can take. A body may also echo it inside a JSON string (`a\/b`,
 * `\u002F`) or an HTML page (`a&#x2F;b`, `&sol;`, `&amp;#47;`), so the text is searched again with
 * those escapes decoded.
 */
import type * as Htmlparser2 from 'htmlparser2';

/** Escapes inside escapes (`&amp;#x2F;`, `\u0026#47;`) are decoded this many times over, and no more. */
const DECODING_ROUNDS = 3;

/**
 * `text` with every occurrence of each secret, in any of its encodings, replaced by `mark`. When a
 * secret shows only once JSON or HTML escapes are decoded, the text is given decoded, with it replaced.
 */
export function redactSecrets(text: string, secrets: readonly string[], mark: string): string {
  const forms = secrets.filter((s) => s.length > 0).map(anyEncoding);
  if (forms.length === 0) return text;
  // Longest first, so a secret inside another (a token and `Bearer token`) does not leave the rest.
  forms.sort((a, b) => b.length - a.length);
  const pattern = new RegExp(forms.join('|'), 'gi');
  const redacted = text.replace(pattern, mark);
  let decoded = redacted;
  for (let round = 0; round < DECODING_ROUNDS; round++) {
    const next = decodeHtml(decodeJson(decoded));
    if (next === decoded) break;
    decoded = next;
  }
  if (decoded === redacted) return redacted;
  const redactedDecoded = decoded.replace(pattern, mark);
  return redactedDecoded === decoded ? redacted : redactedDecoded;
}

const PERCENT = '(?:%|%25)';

/** A pattern for `secret` whose every character may also be written percent-encoded. */
function anyEncoding(secret: string): string {
  return Array.from(secret, (character) => {
    const bytes = Array.from(new TextEncoder().encode(character), (b) => `${PERCENT}${b.toString(16).padStart(2, '0')}`).join('');
    const forms = [escapeRegExp(character), bytes, ...(character === ' ' ? ['\\+'] : [])];
    return `(?:${forms.join('|')})`;
  }).join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * The escapes of a JSON string decoded wherever they stand in the text, which is not itself JSON
 * (`JSON.parse` takes only a whole valid string). A pair of surrogates decodes to its one character.
 */
function decodeJson(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_, hex: string | undefined, single: string | undefined) =>
    hex === undefined ? JSON_ESCAPES[single as string] : String.fromCharCode(parseInt(hex, 16)),
  );
}

/** HTML's character references decoded as a browser decodes them in text, named ones (`&sol;`) included. */
function decodeHtml(text: string): string {
  if (!text.includes('&')) return text;
  // Loaded on first use, as the full-text reader loads it: with its entity tables it is a sixth of the extension's bundle.
  const { Parser } = require('htmlparser2') as typeof Htmlparser2;
  const parts: string[] = [];
  const parser = new Parser({ ontext: (chunk) => parts.push(chunk) }, { decodeEntities: true });
  // Every `<` as a reference too, so that no part of the text is read as a tag and left out.
  parser.write(text.replace(/</g, '&lt;'));
  parser.end();
  return parts.join('');
}
