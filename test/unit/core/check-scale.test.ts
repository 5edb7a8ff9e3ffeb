import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { BibEntry, Bibliography } from '../../../src/core/bibliography/types';
import { checkManuscript, CheckSession } from '../../../src/core/check';
import { checkBibliographyFile } from '../../../src/core/checkBibliography';
import { IN_THREAD, type Parsers } from '../../../src/core/parsing/parsers';
import { MemoryWorkspace } from '../support/helpers';

/** 200,000 entries: more than a function call takes as spread arguments (~125,000). */
const MANY = 200_000;

const ROOT = path.resolve('/paper');
const BIB = path.join(ROOT, 'anthology.bib');

function entries(keyOf: (i: number) => string): BibEntry[] {
  const at = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
  return Array.from({ length: MANY }, (_, i) => ({ key: keyOf(i), type: 'misc', file: BIB, range: at, keyRange: at, authors: [] }));
}

/** Parsers that give `bibliography` for any .bib, so the test measures the check, not citation-js. */
function parsersGiving(bibliography: Bibliography): Parsers {
  return { source: IN_THREAD.source, bibliography: async () => bibliography };
}

describe('checking bibliographies of 200,000 entries', () => {
  it('reports every unused entry of a bibliography the size of the ACL Anthology', async () => {
    const workspace = new MemoryWorkspace({ [path.join(ROOT, 'paper.tex')]: 'One claim \\cite{e0}.\n\\bibliography{anthology}\n', [BIB]: '(parsed by the stub)' });
    const session = new CheckSession(parsersGiving({ file: BIB, entries: entries((i) => `e${i}`), problems: [] }));
    const result = await checkManuscript(path.join(ROOT, 'paper.tex'), workspace, session);
    assert.equal(result?.findings.filter((f) => f.code === 'unused-entry').length, MANY - 1);
    assert.equal(result?.findings.filter((f) => f.code === 'missing-key').length, 0);
  });

  it('reports every duplicate key of a .bib checked on its own', async () => {
    const workspace = new MemoryWorkspace({ [BIB]: '(parsed by the stub)' });
    const session = new CheckSession(parsersGiving({ file: BIB, entries: entries(() => 'same'), problems: [] }));
    const result = await checkBibliographyFile(BIB, workspace, session);
    assert.equal(result?.findings.filter((f) => f.code === 'duplicate-key').length, MANY - 1);
  });
});
