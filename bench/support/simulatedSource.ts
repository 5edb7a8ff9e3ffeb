import type { PaperSource, SourceRecord } from '../../src/core/sources/types';
import { syntheticPaper } from '../syntheticPapers';

/**
 * A source answering after `delay` ms with ten generated papers that no other source or run has
 * (`run.next` counts them), as the open sources answer over the network.
 */
export function simulatedSource(name: string, delay: number, run: { next: number }): PaperSource {
  return {
    id: 'openalex',
    name,
    search: () => {
      const records = Array.from({ length: 10 }, (): SourceRecord => {
        const paper = syntheticPaper(run.next++);
        return { source: 'openalex', id: `W${paper.id}`, title: paper.title, abstract: paper.abstract, authors: paper.authors, doi: `10.5555/${paper.id}` };
      });
      return new Promise((resolve) => setTimeout(() => resolve(records), delay));
    },
  };
}
