import { SourceError, type PaperSource, type RequestOptions } from '../sources/types';
import type { SourceId } from '../sources/ids';
import { compareVenues } from './match';

/**
 * Venues known without asking, by their full names: their usual abbreviations (NeurIPS and NIPS,
 * ICLR, ACL, …) agree with these as acronyms, and a workshop held at one ("NeurIPS Workshop on …")
 * names it. The sources' venue searches do not always find a venue by its acronym.
 */
const WELL_KNOWN_VENUES: readonly string[] = [
  'Neural Information Processing Systems',
  'International Conference on Learning Representations',
  'International Conference on Machine Learning',
  'Association for Computational Linguistics',
  'Empirical Methods in Natural Language Processing',
  'North American Chapter of the Association for Computational Linguistics',
  'European Chapter of the Association for Computational Linguistics',
  'International Conference on Computational Linguistics (COLING)',
  'Computer Vision and Pattern Recognition',
  'International Conference on Computer Vision',
  'European Conference on Computer Vision',
  'AAAI Conference on Artificial Intelligence',
  'International Joint Conference on Artificial Intelligence',
  'Knowledge Discovery and Data Mining (KDD)',
  'The Web Conference (WWW)',
  'Research and Development in Information Retrieval (SIGIR)',
  'Artificial Intelligence and Statistics',
  'Uncertainty in Artificial Intelligence',
  'Conference on Learning Theory (COLT)',
  'Journal of Machine Learning Research',
  'Transactions on Machine Learning Research',
  'Machine Learning',
  'Intelligent Robots and Systems',
  'International Conference on Robotics and Automation',
  'Acoustics, Speech and Signal Processing (ICASSP)',
  'Interspeech',
];

/**
 * Which sources answered that they know no venue named like `claimed`; undefined when the venue is
 * known, or when any source that can search venues did not answer, since a failure is no evidence
 * (and Crossref's journals alone say nothing of a conference).
 */
export async function venueUnknownTo(claimed: string, sources: readonly PaperSource[], request: RequestOptions): Promise<SourceId[] | undefined> {
  const agrees = (name: string): boolean => compareVenues(claimed, name).status === 'agree';
  if (WELL_KNOWN_VENUES.some(agrees)) return undefined;
  // Those that know conferences too first, one after another: most venues are known to the first,
  // and Crossref's journal search costs a list request, the scarcest of its allowances.
  const asked = sources.filter((s) => s.searchVenues).sort((a, b) => Number(a.venuesJournalsOnly ?? false) - Number(b.venuesJournalsOnly ?? false));
  if (asked.every((s) => s.venuesJournalsOnly)) return undefined;
  for (const source of asked) {
    const names = await namesFrom(source, claimed, request);
    if (names === undefined || names.some(agrees)) return undefined;
  }
  return asked.map((s) => s.id);
}

async function namesFrom(source: PaperSource, claimed: string, request: RequestOptions): Promise<string[] | undefined> {
  try {
    return await source.searchVenues?.(claimed, request);
  } catch (error) {
    if (!(error instanceof SourceError) || error.kind === 'cancelled') throw error;
    return undefined;
  }
}
