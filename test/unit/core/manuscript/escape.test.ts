import assert from 'node:assert/strict';
import { escapeLatex, escapePandoc } from '../../../../src/core/manuscript/escape';
import { assertPlainLatex, assertPlainPandoc } from '../../support/inserted';

/** Every ASCII special, the characters that look like them, and the sequences TeX and pandoc give meaning to. */
const HOSTILE = [
  '\\ { } $ & % # _ ^ ~ < > | @ [ ] * ` ! ( )',
  '\\input{/etc/passwd} \\immediate\\write18{rm -rf ~} \\end{document}',
  '^^5cinput^^7b/etc/passwd^^7d and ^^M',
  '\\\\% the rest of the line',
  'an unclosed $ math and a trailing \\',
  '\\footnote{See Smith 2019} \\Cite{smith2019} \\cite {smith2019}',
  '[@smith2019] @smith2019 ^[See Smith] <b>bold</b> <!-- c --> &amp; *em* __strong__ `code` ~sub~ ^sup^ | a | b |',
  '＼ ｛ ｝ ＄ ＆ ％ ＃ ＿ ＾ ～ ＜ ＞ ｜ ＠ ［ ］ ﹩ ﹠ ﹪ ⁄ ∖ ＂',
  'Ünïcödé, “quotes”, — dashes, 50 % and 3 < 4 > 2',
];

describe('escaping outside text for the manuscript', () => {
  it("escapes each of LaTeX's specials, and the characters OT1 prints as others", () => {
    assert.equal(escapeLatex('\\{}$&%#_^~<>|'), '\\textbackslash{}\\{\\}\\$\\&\\%\\#\\_\\textasciicircum{}\\textasciitilde{}\\textless{}\\textgreater{}\\textbar{}');
    assert.equal(escapeLatex('Plain prose, “quoted” — 50 per cent.'), 'Plain prose, “quoted” — 50 per cent.');
  });

  it('escapes everything pandoc reads as markup, and leaves prose alone', () => {
    assert.equal(escapePandoc('\\`*_{}[]<>#@$^~|&'), '\\\\\\`\\*\\_\\{\\}\\[\\]\\<\\>\\#\\@\\$\\^\\~\\|\\&');
    assert.equal(escapePandoc('Plain prose (with parentheses) - and a dash!'), 'Plain prose (with parentheses) - and a dash!');
  });

  for (const text of HOSTILE) {
    it(`leaves nothing of "${text.slice(0, 40)}…" that TeX or pandoc would read as markup`, () => {
      assertPlainLatex(escapeLatex(text), 'citep', new Set());
      assertPlainPandoc(escapePandoc(text), new Set());
    });
  }

  it('escapes every printable ASCII character that is not a letter or digit, wherever it stands', () => {
    for (let code = 0x21; code < 0x7f; code++) {
      const char = String.fromCharCode(code);
      assertPlainLatex(escapeLatex(`a${char}b${char}`), 'citep', new Set());
      assertPlainPandoc(escapePandoc(`a${char}b${char}`), new Set());
    }
  });
});
