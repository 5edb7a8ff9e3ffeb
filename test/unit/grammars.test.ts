import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';

// out/test/unit → repository root.
const repoRoot = path.resolve(__dirname, '..', '..', '..');

interface GrammarContribution {
  scopeName: string;
  path: string;
  language?: string;
  injectTo?: string[];
}

/** The grammars exactly as package.json contributes them. */
function contributedGrammars(): GrammarContribution[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  return manifest.contributes.grammars as GrammarContribution[];
}

/**
 * A minimal stand-in for VS Code's Markdown grammar: paragraphs are plain text,
 * with fenced code blocks and inline code spans, which the injection must leave alone.
 */
const standInMarkdownGrammar = {
  scopeName: 'text.html.markdown',
  patterns: [
    {
      name: 'markup.fenced_code.block.markdown',
      begin: '^\\s*(`{3,})',
      end: '^\\s*\\1\\s*$',
    },
    {
      name: 'markup.inline.raw.string.markdown',
      begin: '`',
      end: '`',
    },
  ],
};

let onigReady: Promise<vsctm.IOnigLib> | undefined;
function onigLib(): Promise<vsctm.IOnigLib> {
  if (!onigReady) {
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    onigReady = oniguruma.loadWASM(wasm).then(() => ({
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }));
  }
  return onigReady;
}

function newRegistry(): vsctm.Registry {
  const grammars = contributedGrammars();
  return new vsctm.Registry({
    onigLib: onigLib(),
    loadGrammar: async (scopeName) => {
      if (scopeName === 'text.html.markdown') {
        return vsctm.parseRawGrammar(JSON.stringify(standInMarkdownGrammar), 'markdown.json');
      }
      const contribution = grammars.find((g) => g.scopeName === scopeName);
      if (!contribution) return null;
      const file = path.join(repoRoot, contribution.path);
      return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
    // Injections as VS Code wires them: from each contribution's `injectTo`.
    getInjections: (scopeName) => grammars.filter((g) => g.injectTo?.includes(scopeName)).map((g) => g.scopeName),
  });
}

interface Token {
  readonly text: string;
  readonly scopes: readonly string[];
}

/** Tokenises `source` line by line, carrying the rule stack across lines as an editor does. */
function tokenize(grammar: vsctm.IGrammar, source: string): Token[][] {
  let stack: vsctm.StateStack = vsctm.INITIAL;
  return source.split('\n').map((line) => {
    const result = grammar.tokenizeLine(line, stack);
    stack = result.ruleStack;
    return result.tokens.map((t) => ({
      text: line.slice(t.startIndex, Math.min(t.endIndex, line.length)),
      scopes: t.scopes,
    }));
  });
}

function hasScope(token: Token, scope: string): boolean {
  // A theme rule for `a.b` applies to `a.b` and `a.b.c`, so compare by dotted prefix.
  return token.scopes.some((s) => s === scope || s.startsWith(scope + '.'));
}

/** The runs of text (merged across adjacent tokens, per line) that carry `scope`. */
function marked(lines: Token[][], scope: string): string[] {
  const runs: string[] = [];
  for (const line of lines) {
    let current: string | undefined;
    for (const token of line) {
      if (hasScope(token, scope)) {
        current = (current ?? '') + token.text;
      } else if (current !== undefined) {
        runs.push(current);
        current = undefined;
      }
    }
    if (current !== undefined) runs.push(current);
  }
  return runs;
}

/** The scopes of the token covering character `offset` of the first `needle` on `line`. */
function scopesAt(lines: Token[][], line: number, needle: string, offset = 0): readonly string[] {
  const tokens = lines[line];
  assert.ok(tokens, `no line ${line}`);
  const text = tokens.map((t) => t.text).join('');
  const found = text.indexOf(needle);
  assert.ok(found >= 0, `"${needle}" not on line ${line}: ${text}`);
  const column = found + offset;
  let start = 0;
  for (const token of tokens) {
    if (column < start + token.text.length) return token.scopes;
    start += token.text.length;
  }
  throw new Error(`no token at column ${column} of line ${line}`);
}

function assertHasScope(lines: Token[][], line: number, needle: string, scope: string, offset = 0): void {
  const scopes = scopesAt(lines, line, needle, offset);
  assert.ok(
    scopes.some((s) => s === scope || s.startsWith(scope + '.')),
    `"${needle}" on line ${line} should be ${scope}, has ${scopes.join(' ')}`,
  );
}

function assertLacksScope(lines: Token[][], line: number, needle: string, scope: string, offset = 0): void {
  const scopes = scopesAt(lines, line, needle, offset);
  assert.ok(!scopes.some((s) => s === scope || s.startsWith(scope + '.')), `"${needle}" on line ${line} should not be ${scope}, has ${scopes.join(' ')}`);
}

describe('contributed grammars', () => {
  let bibtex: vsctm.IGrammar;
  let markdown: vsctm.IGrammar;

  before(async () => {
    const registry = newRegistry();
    const bib = await registry.loadGrammar('text.bibtex');
    const md = await registry.loadGrammar('text.html.markdown');
    assert.ok(bib, 'text.bibtex grammar did not load');
    assert.ok(md, 'markdown grammar did not load');
    bibtex = bib;
    markdown = md;
  });

  describe('package.json wiring', () => {
    it('contributes the bibtex grammar and language configuration files that exist', () => {
      const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
      const language = manifest.contributes.languages.find((l: { id: string }) => l.id === 'bibtex');
      assert.ok(language, 'bibtex language not contributed');
      const config = JSON.parse(fs.readFileSync(path.join(repoRoot, language.configuration), 'utf8'));
      assert.equal(config.comments.lineComment, '%');
      const grammar = contributedGrammars().find((g) => g.language === 'bibtex');
      assert.ok(grammar);
      const raw = JSON.parse(fs.readFileSync(path.join(repoRoot, grammar.path), 'utf8'));
      assert.equal(raw.scopeName, grammar.scopeName);
    });

    it('folds a multi-line entry but not a one-line @string', () => {
      const config = JSON.parse(fs.readFileSync(path.join(repoRoot, 'syntaxes/bibtex.language-configuration.json'), 'utf8'));
      const start = new RegExp(config.folding.markers.start);
      const end = new RegExp(config.folding.markers.end);
      assert.ok(start.test('@article{smith2020,'));
      assert.ok(start.test('@Book{doe:2021-x,'));
      assert.ok(!start.test('@string{jan = "January"}'));
      assert.ok(end.test('}'));
      assert.ok(!end.test('  title = {A}'));
    });
  });

  describe('BibTeX', () => {
    const entry = [
      '% My references',
      '@article{smith2020,',
      '  author = {Smith, John and Doe, Jane},',
      '  title = {The {GPU} in {\\LaTeX} era, 50% faster},',
      '  journal = "Journal of {"Quoted"} Things",',
      '  year = 2020,',
      '  month = jan # "~1st",',
      '}',
    ].join('\n');

    it('scopes the entry type, the citation key, field names and values', () => {
      const lines = tokenize(bibtex, entry);
      assert.deepEqual(marked(lines, 'keyword.other.entry-type'), ['@article']);
      assert.deepEqual(marked(lines, 'entity.name.type.entry-key'), ['smith2020']);
      assert.deepEqual(marked(lines, 'variable.other.field'), ['author', 'title', 'journal', 'year', 'month']);
      assertHasScope(lines, 2, 'Smith, John', 'string.quoted.other.braces');
      assertHasScope(lines, 2, '=', 'keyword.operator.assignment');
      assertHasScope(lines, 5, '2020', 'constant.numeric');
      assertHasScope(lines, 6, 'jan', 'variable.other.constant.macro');
      assertHasScope(lines, 6, '#', 'keyword.operator.concatenation');
      assertHasScope(lines, 6, '~1st', 'string.quoted.double');
      assertHasScope(lines, 0, 'My references', 'comment.line.percentage');
    });

    it('closes a braced value at its matching brace, not at a nested one', () => {
      const lines = tokenize(bibtex, entry);
      // Text after the nested {GPU} and {\LaTeX} is still inside the title.
      assertHasScope(lines, 3, ' era', 'string.quoted.other.braces');
      assertHasScope(lines, 3, '\\LaTeX', 'support.function');
      // % inside a value is text, not a comment.
      assertHasScope(lines, 3, '% faster', 'string.quoted.other.braces');
      assertLacksScope(lines, 3, '% faster', 'comment');
      // The comma after the value separates fields again.
      assertHasScope(lines, 3, 'faster},', 'punctuation.definition.string.end', 6);
      assertLacksScope(lines, 3, 'faster},', 'string', 7);
      assertHasScope(lines, 3, 'faster},', 'punctuation.separator.field', 7);
      assertHasScope(lines, 4, 'journal', 'variable.other.field');
    });

    it('does not end a quoted value at a double quote inside braces', () => {
      const lines = tokenize(bibtex, entry);
      assert.deepEqual(marked([lines[4]], 'string.quoted.double'), ['"Journal of {"Quoted"} Things"']);
      assertLacksScope(lines, 4, 'Quoted', 'variable.other.constant.macro');
      assertLacksScope(lines, 5, 'year', 'string');
    });

    it('recognises @string, @preamble and @comment', () => {
      const lines = tokenize(
        bibtex,
        ['@STRING{jcp = {J. Chem. Phys.}}', '@preamble{ "\\newcommand{\\noop}[1]{}" }', '@comment{ @misc{ignored, title = {x}} }', '@misc{after, note = jcp}'].join('\n'),
      );
      assertHasScope(lines, 0, '@STRING', 'keyword.other.entry-type');
      assertHasScope(lines, 0, 'jcp', 'variable.other.constant.macro');
      assertHasScope(lines, 0, 'J. Chem', 'string.quoted.other.braces');
      assertHasScope(lines, 1, '@preamble', 'keyword.other.entry-type');
      assertHasScope(lines, 1, '\\newcommand', 'string.quoted.double');
      assertHasScope(lines, 2, 'ignored', 'comment.block');
      assertLacksScope(lines, 2, 'ignored', 'entity.name.type.entry-key');
      assertLacksScope(lines, 2, 'title', 'variable.other.field');
      assert.deepEqual(marked(lines, 'entity.name.type.entry-key'), ['after']);
      assertHasScope(lines, 3, 'jcp', 'variable.other.constant.macro');
    });

    it('accepts entries delimited by parentheses and in any case', () => {
      const lines = tokenize(bibtex, '@InProceedings(lee:2019/x-y,\n  booktitle = {Proc.})\n@book{b, year = 1999}');
      assert.deepEqual(marked(lines, 'keyword.other.entry-type'), ['@InProceedings', '@book']);
      assert.deepEqual(marked(lines, 'entity.name.type.entry-key'), ['lee:2019/x-y', 'b']);
      assert.deepEqual(marked(lines, 'variable.other.field'), ['booktitle', 'year']);
    });

    it('recovers at the next entry after an unterminated braced value', () => {
      const lines = tokenize(bibtex, ['@article{broken,', '  title = {Unclosed {title,', '  year = 2020', '', '@book{next2021,', '  author = {Doe, Jane},', '}'].join('\n'));
      assert.deepEqual(marked(lines, 'entity.name.type.entry-key'), ['broken', 'next2021']);
      assertHasScope(lines, 4, '@book', 'keyword.other.entry-type');
      assertLacksScope(lines, 4, '@book', 'string');
      assertHasScope(lines, 5, 'author', 'variable.other.field');
      assertHasScope(lines, 5, 'Doe, Jane', 'string.quoted.other.braces');
      // The broken entry is closed: the second entry is not nested inside it.
      assert.equal(scopesAt(lines, 5, 'author').filter((s) => s.startsWith('meta.entry')).length, 1);
    });

    it('recovers at the next entry after an unterminated quoted value or a missing closing brace', () => {
      const lines = tokenize(bibtex, ['@article{q1, title = "Unclosed quote,', '  year = 2020}', '@misc{m2, year = 2001', '@book{b3, author = {X}}', 'trailing text'].join('\n'));
      assert.deepEqual(marked(lines, 'entity.name.type.entry-key'), ['q1', 'm2', 'b3']);
      assert.deepEqual(marked(lines, 'keyword.other.entry-type'), ['@article', '@misc', '@book']);
      assertHasScope(lines, 3, 'author', 'variable.other.field');
      assertLacksScope(lines, 4, 'trailing', 'meta.entry');
    });
  });

  describe('pandoc citation injection into Markdown', () => {
    const KEY = 'constant.other.reference.citation';
    const AT = 'punctuation.definition.citation';

    function keysIn(text: string): string[] {
      return marked(tokenize(markdown, text), KEY);
    }

    it('marks the key and the @ of a bracketed citation, and the brackets', () => {
      const lines = tokenize(markdown, 'As shown [@smith2020].');
      assert.deepEqual(marked(lines, KEY), ['smith2020']);
      assert.deepEqual(marked(lines, AT), ['@']);
      assertHasScope(lines, 0, '[@', 'punctuation.section.citation.begin');
      assertHasScope(lines, 0, '].', 'punctuation.section.citation.end');
      assertLacksScope(lines, 0, 'As shown', 'meta.citation');
      assertLacksScope(lines, 0, '.', 'meta.citation');
    });

    it('marks each key of a multi-citation with prefixes and locators', () => {
      assert.deepEqual(keysIn('Text [@a; @b, p. 3].'), ['a', 'b']);
      assert.deepEqual(keysIn('Text [see @doe99, pp. 33-35; also @smith04, chap. 1].'), ['doe99', 'smith04']);
      const lines = tokenize(markdown, 'Text [see @doe99, pp. 33-35; also @smith04].');
      assertHasScope(lines, 0, 'pp. 33-35', 'meta.citation.bracketed');
      assertHasScope(lines, 0, '; also', 'punctuation.separator.citation');
    });

    it('marks the key of an author-suppressed citation and the minus', () => {
      const lines = tokenize(markdown, 'Smith says [-@smith04].');
      assert.deepEqual(marked(lines, KEY), ['smith04']);
      assertHasScope(lines, 0, '-@', 'keyword.operator.suppress-author');
    });

    it('marks an in-text citation, keeping trailing punctuation out of the key', () => {
      assert.deepEqual(keysIn('@smith04 says so.'), ['smith04']);
      assert.deepEqual(keysIn('As @doe:2020.x-y/z argues.'), ['doe:2020.x-y/z']);
      assert.deepEqual(keysIn('Compare @doe99.'), ['doe99']);
      assert.deepEqual(keysIn('Compare @doe99: it'), ['doe99']);
      assert.deepEqual(keysIn('(see @a_b-c, and @d)'), ['a_b-c', 'd']);
      assert.deepEqual(keysIn('A braced key @{https://x.org/a?b=c}.'), ['https://x.org/a?b=c']);
    });

    it('does not mark e-mail addresses, escaped or lone at-signs', () => {
      assert.deepEqual(keysIn('Write to user@example.com today.'), []);
      assert.deepEqual(keysIn('Write to [user@example.com].'), []);
      const lines = tokenize(markdown, 'Write to user@example.com or \\@notakey, price @ 3.');
      assert.deepEqual(marked(lines, 'meta.citation'), []);
    });

    it('leaves links and code alone', () => {
      // A bracket followed by (url) is a link, not a bracketed citation.
      const link = tokenize(markdown, 'See [the docs](http://x.org) and [@a].');
      assert.deepEqual(marked(link, 'punctuation.section.citation.begin'), ['[']);
      assertLacksScope(link, 0, '[the', 'meta.citation');
      // The injection selector excludes code spans and fenced code.
      assert.deepEqual(keysIn('Use `@decorator` here, per @key.'), ['key']);
      assert.deepEqual(keysIn(['```python', '@decorator', '[@notakey]', '```', 'then @real'].join('\n')), ['real']);
    });
  });
});
