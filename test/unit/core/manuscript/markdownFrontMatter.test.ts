import assert from 'node:assert/strict';
import { parseMarkdown } from '../../../../src/core/manuscript/markdown';

function read(yaml: string): { bibliographies: string[]; problem?: string } {
  const parsed = parseMarkdown(`---\n${yaml}\n---\nText [@k].\n`, '/p/x.md');
  return { bibliographies: parsed.bibliographies.map((b) => `${b.name} ${b.range.start.line}:${b.range.start.character}`), problem: parsed.frontMatterProblem?.reason };
}

const TOO_DEEP = { bibliographies: [], problem: 'is nested more than 128 levels deep, so it was not read' };

describe('YAML front matter nesting, counted as YAML reads it', () => {
  it('sees the nesting that closing brackets in quoted strings would hide', () => {
    assert.deepEqual(read(`bibliography: refs.bib\nx: ${"[']',".repeat(3000)}`), TOO_DEEP);
    assert.deepEqual(read(`bibliography: refs.bib\nx: ${'["]",'.repeat(3000)}`), TOO_DEEP);
  });

  it('sees the nesting that closing brackets in comments would hide', () => {
    assert.deepEqual(read(`bibliography: refs.bib\nx: ${'[ # ]\n'.repeat(3000)}`), TOO_DEEP);
  });

  it('is not fooled by an apostrophe inside a plain word', () => {
    assert.deepEqual(read(`bibliography: refs.bib\nx: [it's, ${'['.repeat(3000)}`), TOO_DEEP);
  });

  it('reads a front matter whose quoted strings are full of brackets and dashes', () => {
    const expected = { bibliographies: ['refs.bib 1:14'], problem: undefined };
    assert.deepEqual(read(`bibliography: refs.bib\ntitle: "${'{'.repeat(200)}"`), expected);
    assert.deepEqual(read(`bibliography: refs.bib\ntitle: '${'[ - '.repeat(200)}'`), expected);
    assert.deepEqual(read(`bibliography: refs.bib\n# ${'{'.repeat(200)}`), expected);
  });
});

describe('YAML aliases in the front matter', () => {
  it('reads a bibliography named through an alias, where its anchor stands', () => {
    assert.deepEqual(read('x: &b refs.bib\nbibliography: *b'), { bibliographies: ['refs.bib 1:6'], problem: undefined });
    assert.deepEqual(read('a: &a one.bib\nlist: &l [*a, two.bib]\nbibliography: *l'), { bibliographies: ['one.bib 1:6', 'two.bib 2:14'], problem: undefined });
  });

  it('takes the last anchor of a name before the alias, as YAML does', () => {
    assert.deepEqual(read('x: &a a.bib\nbibliography: [*a]\ny: &a b.bib'), { bibliographies: ['a.bib 1:6'], problem: undefined });
  });

  it('warns about an alias that names no anchor instead of dropping the bibliography', () => {
    assert.deepEqual(read('bibliography: *refs'), { bibliographies: [], problem: 'is not valid YAML (the alias *refs names no anchor), which pandoc refuses' });
  });

  it('reads nocite through an alias', () => {
    const parsed = parseMarkdown('---\nx: &n "@a, @b"\nnocite: *n\n---\nText.\n', '/p/x.md');
    assert.deepEqual(
      parsed.citations.map((c) => c.key),
      ['a', 'b'],
    );
  });
});
