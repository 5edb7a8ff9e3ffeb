import assert from 'node:assert/strict';
import { parse as parseValue } from '@citation-js/plugin-bibtex/lib/input/value.js';
import * as constants from '@citation-js/plugin-bibtex/lib/input/constants.js';
import { LatexTextReader } from '../../../../src/core/bibliography/latexText';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { random } from '../../../../bench/bibliography.bench';
import { realFields } from '../../support/realBibFields';

/** Loads citation-js's tables as parse.ts leaves them (it adds `\aa` and `\AA`). */
parseBibliography('@misc{k, title = {x}}', '/load.bib');
const reader = new LatexTextReader(constants);

/** citation-js's reading of a title, or undefined where it throws. */
function citationJs(text: string): string | undefined {
  try {
    const value = parseValue(text, 'title');
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Read by the reader, it must be read the same by citation-js; refused by citation-js, refused by the reader. */
function assertSameAsCitationJs(text: string): boolean {
  const ours = reader.read(text);
  const theirs = citationJs(text);
  if (ours !== undefined) assert.equal(ours, theirs, `reading ${JSON.stringify(text)}`);
  if (theirs === undefined) assert.equal(ours, undefined, `refusing ${JSON.stringify(text)}`);
  return ours !== undefined;
}

/** The constructs the reader is for; each must be read, not left to citation-js. */
const COMMON = [
  'Schr\\"{o}dinger\'s $\\alpha$-stable {GAN}s for \\emph{na\\"ive} data',
  "{\\'E}mile Durkheim",
  'M{\\"u}ller and G\\"{o}del',
  "Garc{\\'\\i}a M\\'arquez",
  "Erd\\H{o}s--R\\'enyi graphs --- a survey",
  "{\\AA}ngstr{\\\"o}m, {\\aa}, \\o{}, \\ss, \\L{}\\'od\\'z, ca{\\c{c}}a, {\\v{S}}koda, \\v S",
  '$O(n \\log n)$ and $H_0$ and $x^2$ and $x_{ab}$ and $x^{12}$ and $\\mathcal{L}^2$',
  '$\\sp{x}$ $\\sb{y}$ $\\mathrm{d}x$ $\\^{x}$',
  '{\\em emphasised} and {\\bf bold {\\it nested}} \\textbf{x} \\textsc{Caps} \\texttt{code}',
  "\\enquote{quoted} ``double'' `single' a~b",
  '50\\% of \\$5 \\& \\#1 \\_x \\{y\\}',
  'Tabs\tand\nnew lines  and   runs',
  '\\LaTeX\\ and \\TeX{} macros unknown to it',
  '\\\\\\\\ backslashes',
  "Accent at the end \\'",
  '\\textit{in vivo} \\textsuperscript{th} \\textsubscript{2}',
  'a\u00a0b\u2009c\u3000d',
  '$x$$y$',
];

/** Constructs the reader leaves to citation-js, or that citation-js itself cannot read. */
const RARE = [
  '\\begin{itshape}x\\end{itshape}',
  '\\url{http://x.org/a_b}',
  '\\href{http://x.org}{text}',
  '\\ElsevierGlyph{2207}',
  "\\'{}",
  '\\constructor x',
  '{unclosed',
  'closed}',
  '$unclosed',
  '\\emph x',
  '$\\em x$',
  '$x}$',
  `${'{'.repeat(150)}deep${'}'.repeat(150)}`,
  '\\\n',
  '\\',
];

const PIECES = [
  'a',
  'Bc',
  ' ',
  '  ',
  '\t',
  '\n',
  '~',
  '-',
  '--',
  "'",
  '`',
  '{',
  '}',
  '$',
  '^',
  '_',
  '\\',
  '\\\\',
  "\\'",
  '\\"',
  '\\c',
  '\\v ',
  '\\emph',
  '\\em ',
  '\\bf',
  '\\textbf',
  '\\alpha',
  '\\aa',
  '\\i',
  '\\&',
  '\\%',
  '\\ ',
  '\\url',
  '\\begin',
  '\\end',
  '\\sp',
  '\\mathrm',
  '\\unknown',
  '2',
  '12',
  'x',
  '\u00e9',
  '\u00a0',
  '\\textsuperscript',
];

describe('LaTeX in BibTeX text fields, read without citation-js', () => {
  it('reads every field of the real bibliographies as citation-js does', () => {
    const fields = realFields();
    assert.ok(fields.length > 500, `only ${fields.length} fields found`);
    const read = fields.filter(assertSameAsCitationJs).length;
    // Real fields are nearly all text, accents and math: citation-js is left only the rare rest.
    assert.ok(read > fields.length * 0.95, `${read} of ${fields.length} fields read`);
  });

  for (const text of COMMON) {
    it(`reads ${JSON.stringify(text)} as citation-js does`, () => {
      assert.ok(assertSameAsCitationJs(text), 'left to citation-js');
    });
  }

  for (const text of RARE) {
    it(`leaves ${JSON.stringify(text)} to citation-js`, () => {
      assertSameAsCitationJs(text);
      assert.equal(reader.read(text), undefined);
    });
  }

  it('reads 20,000 random mixtures of text, groups, math and commands as citation-js does, or leaves them to it', () => {
    const next = random(11);
    let read = 0;
    for (let i = 0; i < 20_000; i++) {
      const length = 1 + Math.floor(next() * 12);
      const text = Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
      if (assertSameAsCitationJs(text)) read++;
    }
    assert.ok(read > 5000, `only ${read} read`);
  });

  it('gives a title of accents, math and groups the same text as citation-js did, without it', () => {
    const bib = parseBibliography('@article{k, title = {Schr\\"{o}dinger\'s $\\alpha$-stable {GAN}s for \\emph{na\\"ive} data}}', '/r.bib');
    assert.equal(bib.entries[0].title, 'Schrödinger’s α-stable GANs for naïve data'.replace('’', "'"));
  });
});
