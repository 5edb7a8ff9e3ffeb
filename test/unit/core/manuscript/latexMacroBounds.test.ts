import assert from 'node:assert/strict';
import { checkManuscript, CheckSession } from '../../../../src/core/check';
import { parseLatex } from '../../../../src/core/manuscript/latex';
import type { ParsedSource } from '../../../../src/core/manuscript/types';
import { MemoryWorkspace } from '../../support/helpers';

const FILE = '/p/paper.tex';

/** `\newcommand`s each printing the one before twice: the last prints 3 × 2^levels characters. */
function doubling(levels: number): string {
  const lines = ['\\newcommand{\\ma}{lol}'];
  for (let i = 1; i <= levels; i++) lines.push(`\\newcommand{\\m${'x'.repeat(i)}}{\\m${i === 1 ? 'a' : 'x'.repeat(i - 1)}\\m${i === 1 ? 'a' : 'x'.repeat(i - 1)}}`);
  return lines.join('\n');
}

function problems(parsed: ParsedSource): string[] {
  return (parsed.macroProblems ?? []).map((p) => `${p.name} ${p.range.start.line}:${p.range.start.character}-${p.range.end.character} ${p.reason}`);
}

describe('LaTeX macros that print too much', () => {
  it('leaves a macro doubled thirty times unexpanded and says so at the definition that grows too long', () => {
    const source = `${doubling(30)}\nIt is known \\m${'x'.repeat(30)} that X holds \\cite{k}.`;
    const parsed = parseLatex(source, FILE);
    // 2^12 copies are the first past the bound: \m and 12 x's, on line 12.
    assert.deepEqual(problems(parsed), [`m${'x'.repeat(12)} 12:12-26 would print more than 10,000 characters`]);
    assert.equal(parsed.citations[0].claim?.text, 'It is known that X holds.');
    assert.equal(parsed.macros.has(`m${'x'.repeat(12)}`), false);
    // Copies of "lol" with a space between each two.
    assert.equal(parsed.macros.get(`m${'x'.repeat(11)}`)?.length, 4 * 2 ** 11 - 1);
  });

  it('bounds a macro redefined as itself twice, again and again', () => {
    const source = `\\newcommand{\\a}{lol}\n${'\\renewcommand{\\a}{\\a\\a}\n'.repeat(40)}Known \\a here \\cite{k}.`;
    const parsed = parseLatex(source, FILE);
    assert.deepEqual(problems(parsed), ['a 12:14-16 would print more than 10,000 characters']);
    assert.ok((parsed.citations[0].claim?.text.length ?? Infinity) < 20_000);
  });

  it('stops expanding a long macro used more often than the file is long, in text and in math', () => {
    const long = 'word '.repeat(1900);
    const source = `\\newcommand{\\m}{${long}}\n${'\\m $\\m$ '.repeat(100)}\\cite{k}.`;
    const parsed = parseLatex(source, FILE);
    assert.deepEqual(problems(parsed), [
      `m 0:12-14 is not expanded in every use: the macros of this file would print more than ${(100_000 + Math.floor(source.length / 2)).toLocaleString('en')} characters in all`,
    ]);
    const printed = parsed.citations[0].claim?.text.length ?? Infinity;
    assert.ok(printed <= 100_000 + Math.floor(source.length / 2) && printed > 90_000, `${printed}`);
    assert.deepEqual(parsed.undefinedCommands, []);
  });

  it('locates the problem at the first use when another file defines the macro', () => {
    const inherited = new Map([['m', 'word '.repeat(1900).trim()]]);
    const parsed = parseLatex(`Some text.\nSee ${'\\m '.repeat(200)}\\cite{k}.`, FILE, inherited);
    assert.match(problems(parsed)[0], /^m 1:\d+-\d+ is not expanded in every use/);
  });

  it('reports nothing for the macros of an ordinary paper', () => {
    const parsed = parseLatex('\\newcommand{\\tool}{dynoNet}\n\\def\\etal{et al.}\nThe \\tool{} model of Smith \\etal\\ works \\cite{k}.', FILE);
    assert.equal(parsed.citations[0].claim?.text, 'The dynoNet model of Smith et al. works.');
    assert.equal(parsed.macroProblems, undefined);
  });

  it('warns in the check at the definition, as a macro-not-expanded finding', async () => {
    const workspace = new MemoryWorkspace({ [FILE]: `${doubling(14)}\nClaim \\m${'x'.repeat(14)} \\cite{k}.\n\\bibliography{refs}`, '/p/refs.bib': '@article{k, title={T}}' });
    const result = await checkManuscript(FILE, workspace, new CheckSession());
    const found = (result?.findings ?? []).filter((f) => f.code === 'macro-not-expanded').map((f) => `${f.severity} ${f.range.start.line}:${f.range.start.character} ${f.message}`);
    assert.deepEqual(found, [`warning 12:12 \\m${'x'.repeat(12)} would print more than 10,000 characters, so the claims that use it are read without its text.`]);
  });
});
