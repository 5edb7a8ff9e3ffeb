/**
 * What a test asserts of text Attest inserts into a manuscript: that it is prose and Attest's own
 * citations, nothing else. Written as small tokenisers of what TeX and pandoc read, independent of
 * the escaping code they check.
 */
import assert from 'node:assert/strict';

/** The control sequences escaping writes; with the citation command, the only ones allowed. */
const LATEX_TEXT_COMMANDS = new Set(['textbackslash', 'textasciicircum', 'textasciitilde', 'textless', 'textgreater', 'textbar']);

/**
 * Reads `text` as TeX would and fails on anything but text, escaped specials, the escapes' own
 * commands (each closed by `{}`) and `~\command{keys}` with keys from `allowedKeys`. Braces must
 * balance, nothing may open math or a comment, and the end must leave TeX reading text as before.
 */
export function assertPlainLatex(text: string, command: string, allowedKeys: ReadonlySet<string>): void {
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '\\') {
      const word = /^[A-Za-z]+/.exec(text.slice(i + 1))?.[0];
      if (word === undefined) {
        assert.ok('{}$&%#_'.includes(text[i + 1] ?? ''), `a control symbol \\${text[i + 1] ?? '(end)'} at ${i} in: ${text}`);
        i += 2;
      } else if (LATEX_TEXT_COMMANDS.has(word)) {
        assert.equal(text.slice(i + 1 + word.length, i + 3 + word.length), '{}', `\\${word} not closed by {} in: ${text}`);
        i += 3 + word.length;
      } else {
        assert.equal(word, command, `the command \\${word} in: ${text}`);
        const group = /^\{([^{}\\%]*)\}/.exec(text.slice(i + 1 + word.length));
        assert.ok(group, `\\${word} without its key group in: ${text}`);
        for (const key of group[1].split(',')) assert.ok(allowedKeys.has(key), `cites ${key}, which is not a given source, in: ${text}`);
        i += 1 + word.length + group[0].length;
      }
      continue;
    }
    if (char === '~') {
      assert.equal(text.slice(i + 1, i + 2 + command.length), `\\${command}`, `a ~ that is not the tie before a citation in: ${text}`);
      i++;
      continue;
    }
    assert.ok(!'{}$&%#_^'.includes(char), `an unescaped ${char} at ${i} in: ${text}`);
    i++;
  }
}

/**
 * Reads `text` as pandoc's Markdown would and fails on any special character that is not escaped,
 * other than the brackets and @-keys of Attest's own citations, each of a key from `allowedKeys`.
 */
export function assertPlainPandoc(text: string, allowedKeys: ReadonlySet<string>): void {
  const citations = /(?<!\\)\[(@[^\]]*)\]/g;
  for (const match of text.matchAll(citations)) {
    for (const item of match[1].split('; ')) {
      const key = /^@\{(.*)\}$/.exec(item)?.[1] ?? item.replace(/^@/, '');
      assert.ok(allowedKeys.has(key), `cites ${key}, which is not a given source, in: ${text}`);
    }
  }
  const rest = text.replace(citations, '');
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '\\') {
      assert.ok(i + 1 < rest.length, `a trailing backslash in: ${text}`);
      i++;
      continue;
    }
    assert.ok(!'`*_{}[]<>#@$^~|&'.includes(rest[i]), `an unescaped ${rest[i]} at ${i} in: ${text}`);
  }
}
