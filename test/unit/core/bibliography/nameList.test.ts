import assert from 'node:assert/strict';
import { parse as parseValue } from '@citation-js/plugin-bibtex/lib/input/value.js';
import { nameChunks } from '../../../../src/core/bibliography/nameList';
import { random } from '../../../../bench/bibliography.bench';
import { realFields } from '../../support/realBibFields';

function citationJs(list: string): unknown {
  try {
    return parseValue(list, 'author');
  } catch {
    return 'error';
  }
}

/** Cut into pieces, a list must give citation-js the names it gives whole. */
function assertCutAsCitationJs(list: string): boolean {
  const chunks = nameChunks(list);
  if (chunks === undefined) return false;
  const pieces = chunks.map(citationJs);
  // A piece that is not one name sends the list to citation-js whole (parse.ts checks).
  if (pieces.some((piece) => !Array.isArray(piece) || piece.length !== 1)) return false;
  assert.deepEqual(pieces.flat(), citationJs(list), `cutting ${JSON.stringify(list)} into ${JSON.stringify(chunks)}`);
  return true;
}

const PIECES = [
  'Doe',
  'J.',
  ',',
  ' ',
  '  ',
  ' and ',
  ' AND ',
  'and',
  '{',
  '}',
  '\\',
  "\\'",
  '\\"{o}',
  '\\o',
  '\\o ',
  '\\aa',
  '~',
  '-',
  'van',
  'der',
  '{\\relax Ch}',
  '\\&',
  'Jr.',
  'others',
  '{World Health Organization}',
  '\\\\',
];

describe('author lists cut where citation-js cuts them', () => {
  it('cuts the author and editor lists of the real bibliographies into the names citation-js reads', () => {
    const lists = realFields((name) => name === 'author' || name === 'editor');
    assert.ok(lists.length > 100, `only ${lists.length} lists found`);
    const cut = lists.filter(assertCutAsCitationJs).length;
    assert.ok(cut > lists.length * 0.9, `${cut} of ${lists.length} cut`);
  });

  it('keeps a command with the spaces after it: "\\o and X" is one name', () => {
    assert.deepEqual(nameChunks('Doe, J. and \\o and X and {A and B}'), ['Doe, J.', '\\o and X', '{A and B}']);
  });

  it('cuts 20,000 random lists of names, braces, commands and "and" as citation-js does, or not at all', () => {
    const next = random(5);
    let cut = 0;
    for (let i = 0; i < 20_000; i++) {
      const length = 1 + Math.floor(next() * 10);
      if (assertCutAsCitationJs(Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join(''))) cut++;
    }
    assert.ok(cut > 5000, `only ${cut} cut`);
  });
});
