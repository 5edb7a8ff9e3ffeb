/**
 * Secrets (API keys, tokens) out of text from outside: an error body, a network error, an echoed URL.
 * A server or proxy echoes a key as it was sent, which for a query parameter is percent-encoded
 * (`a%2Bb`, `a+b` for a space, either case of hex, even encoded twice as `%252B`), so each character
 * is matched in every form it can take.
 */

/** `text` with every occurrence of each secret, in any of its encodings, replaced by `mark`. */
export function redactSecrets(text: string, secrets: readonly string[], mark: string): string {
  const forms = secrets.filter((s) => s.length > 0).map(anyEncoding);
  if (forms.length === 0) return text;
  // Longest first, so a secret inside another (a token and `Bearer token`) does not leave the rest.
  forms.sort((a, b) => b.length - a.length);
  return text.replace(new RegExp(forms.join('|'), 'gi'), mark);
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
