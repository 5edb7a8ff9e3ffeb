import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { papersFromJsonLines } from '../../../src/core/papers/import';
import type { Paper } from '../../../src/core/papers/paper';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from '../../../src/core/sources/types';
import { REPO_ROOT } from './helpers';

/** The six papers of test/fixtures/papers/corpus.jsonl. */
export async function corpus(): Promise<Paper[]> {
  return papersFromJsonLines(await fs.readFile(path.join(REPO_ROOT, 'test/fixtures/papers/corpus.jsonl'), 'utf8')).papers;
}

/** A live source that answers as told and keeps the titles it was asked for. */
export class FakeSource implements PaperSource {
  readonly id = 'openalex';
  readonly queries: string[] = [];

  constructor(
    readonly name: string,
    private readonly answer: (query: BibliographicQuery, options?: RequestOptions) => Promise<SourceRecord[]>,
  ) {}

  search(query: BibliographicQuery, options?: RequestOptions): Promise<SourceRecord[]> {
    this.queries.push(query.title);
    return this.answer(query, options);
  }
}

/** What a live source finds for an aspirin claim: a paper the corpus does not hold. */
export const FOUND: SourceRecord = {
  source: 'openalex',
  id: 'W1',
  title: 'Aspirin for the primary prevention of stroke',
  authors: [{ family: 'Found', given: 'Fay' }],
  year: 2018,
  doi: '10.1056/found',
  abstract: 'Aspirin prevented stroke in adults without vascular disease.',
  openAccessUrl: 'https://example.org/found.pdf',
};
