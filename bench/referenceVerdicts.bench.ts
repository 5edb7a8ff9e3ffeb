/**
 * Issue 36's acceptance on data at hand: HALLMARK's labelled entries printed as a reference list in
 * each style of `referenceText.bench.ts` (a `thebibliography`, or biber's .bbl), read back as Attest
 * reads one, and looked up through the same local Crossref + OpenAlex as the same entries read from
 * a .bib: what each reading flags, and whether it reaches the .bib's verdict. The stand-in is the
 * throughput bench's (`SimulatedServices`: title words through an inverted index, no latency, no
 * limit) rather than the detection bench's fuzzy search, which takes minutes a reading when Crossref
 * is asked with whole reference strings.
 */
import type { BibEntry } from '../src/core/bibliography/types';
import { SimulatedServices, type ServiceLimit, type SimulatedSource } from './support/simulatedServices';
import { haveEvalData } from './evalData';
import { kindOf, loadHallmark, outcomesAt, type EntryOutcome } from './hallmark.bench';
import { readInStyle, STYLES } from './referenceText.bench';

/**
 * HALLMARK's kinds that name no real work (an invented title, or invented metadata under a real
 * DOI): a check should call them hallucinated. Every other kind perturbs a real paper's title,
 * authors, venue, year, DOI or arXiv version, which a check should report as a metadata mismatch.
 */
const FABRICATED = new Set(['plausible_fabrication', 'chimeric_title', 'hybrid_fabrication']);
/** Disagreements with the .bib shown per reading, after their count by kind. */
const EXAMPLES = 4;
const UNLIMITED: ServiceLimit = { requestsPerSecond: Number.POSITIVE_INFINITY };
const SERVICES: Record<SimulatedSource, ServiceLimit> = { crossref: UNLIMITED, openalex: UNLIMITED, semanticscholar: UNLIMITED, europepmc: UNLIMITED };

type Group = 'fabricated' | 'perturbed' | 'VALID';

export async function benchReferenceVerdicts(): Promise<void> {
  if (!haveEvalData('HALLMARK as reference lists', 'hallmark/dev_public.jsonl', 'beir-scifact/corpus.jsonl')) return;
  const { readable, entries, records } = await loadHallmark();
  const kinds = readable.map(kindOf);
  const groups = kinds.map((kind): Group => (kind === 'VALID' ? 'VALID' : FABRICATED.has(kind) ? 'fabricated' : 'perturbed'));
  const count = (group: Group): number => groups.filter((g) => g === group).length;
  console.log(
    `  ${entries.length} entries: ${count('fabricated')} fabricated (${[...FABRICATED].join(', ')}), ${count('perturbed')} perturbed real papers, ${count('VALID')} VALID`,
  );
  console.log('  reading             fabricated  perturbed   perturbed   VALID       unchecked   same verdict');
  console.log('                      flagged     flagged     mismatch    flagged                 as the .bib');
  const server = new SimulatedServices(records, SERVICES, 0);
  const base = await server.start();
  try {
    const bibStarted = performance.now();
    const bib = await outcomesAt(base, entries);
    printRow('.bib', bib, bib, groups, (performance.now() - bibStarted) / 1000);
    for (const style of STYLES) {
      const started = performance.now();
      const read = readInStyle(style, entries);
      const looked = await outcomesAt(
        base,
        read.filter((e): e is BibEntry => e !== undefined),
      );
      // A reference the reader missed altogether is no verdict: unchecked, as the key would be.
      const unread: EntryOutcome = { status: 'unchecked', suspicious: false, flagged: false, sourceFailed: false };
      let next = 0;
      const outcomes = read.map((e) => (e === undefined ? unread : looked[next++]));
      printRow(style.name, outcomes, bib, groups, (performance.now() - started) / 1000);
      printDisagreements(outcomes, bib, kinds, entries, read);
    }
  } finally {
    await server.stop();
  }
}

function printRow(name: string, outcomes: readonly EntryOutcome[], bib: readonly EntryOutcome[], groups: readonly Group[], seconds: number): void {
  const share = (test: (o: EntryOutcome, i: number) => boolean, group?: Group): string => {
    const among = outcomes.flatMap((_, i) => (group === undefined || groups[i] === group ? [i] : []));
    const n = among.filter((i) => test(outcomes[i], i)).length;
    return (`${((100 * n) / among.length).toFixed(1)}%` + (group === 'VALID' ? ` (${n})` : '')).padEnd(11);
  };
  const flagged = (o: EntryOutcome): boolean => o.flagged;
  const cells = [
    share(flagged, 'fabricated'),
    share(flagged, 'perturbed'),
    share((o) => o.status === 'metadata-mismatch', 'perturbed'),
    share(flagged, 'VALID'),
    share((o) => o.status === 'unchecked'),
    share((o, i) => o.status === bib[i].status),
  ];
  console.log(`  ${name.padEnd(18)}  ${cells.join(' ')} ${seconds.toFixed(0)} s`);
  const failed = outcomes.filter((o) => o.sourceFailed).length;
  // A failure is no verdict, so these figures would compare readings with lookups that were never answered.
  if (failed > 0) console.log(`    ${failed} lookups unanswered (the local server did not answer in time on a busy machine): these figures do not compare; run again`);
}

/** The entries whose verdict differs from the .bib's, counted by kind, and the first few with the title as read. */
function printDisagreements(
  outcomes: readonly EntryOutcome[],
  bib: readonly EntryOutcome[],
  kinds: readonly string[],
  entries: readonly BibEntry[],
  read: readonly (BibEntry | undefined)[],
): void {
  const differing = outcomes.flatMap((o, i) => (o.status === bib[i].status ? [] : [i]));
  if (differing.length === 0) return;
  const byKind = new Map<string, number>();
  for (const i of differing) byKind.set(kinds[i], (byKind.get(kinds[i]) ?? 0) + 1);
  console.log(
    `    differ: ${[...byKind]
      .sort((a, b) => b[1] - a[1])
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}`,
  );
  for (const i of differing.slice(0, EXAMPLES)) {
    console.log(`      ${kinds[i]}: .bib ${bib[i].status}, text ${outcomes[i].status}; ${readingDifferences(entries[i], read[i])}`);
  }
}

/** The fields a verdict rests on that the text reading got otherwise than the .bib, as "field .bib → text". */
function readingDifferences(bib: BibEntry, text: BibEntry | undefined): string {
  if (text === undefined) return 'not read at all';
  const show = (value: unknown): string => (value === undefined ? '(none)' : JSON.stringify(value));
  const families = (e: BibEntry): string[] => e.authors.map((a) => a.family ?? a.literal ?? '');
  const fields: [string, unknown, unknown][] = [
    ['title', bib.title, text.title],
    ['authors', families(bib).join(', '), families(text).join(', ')],
    ['year', bib.year, text.year],
    ['venue', bib.venue, text.venue],
    ['doi', bib.doi, text.doi],
    ['arXiv id', bib.arxivId, text.arxivId],
  ];
  const differing = fields.filter(([, a, b]) => a !== b).map(([name, a, b]) => `${name} ${show(a)} → ${show(b)}`);
  return differing.length === 0 ? 'every field read alike' : differing.join('; ');
}

if (require.main === module) {
  benchReferenceVerdicts().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
