import { createHash } from 'node:crypto';
import type { BibEntry } from '../bibliography/types';
import type { CheckResult } from '../check';
import { sortFindings, type Finding } from '../findings';
import { pickPassages } from '../fulltext/pick';
import { passagePlace, type FullTextProvider, type FullTextResult, type Passage, type WorkIds } from '../fulltext/types';
import { abstractSentences as sentenceSpans } from '../index/passages';
import type { Citation } from '../manuscript/types';
import type { Paper } from '../papers/paper';
import type { LookupCache } from '../sources/cache';
import type { ExistenceVerdict } from './existence';
import type { CitationSupport, FullTextStatus, Verdicts } from './results';
import { abstractText } from './abstracts';
import { BackgroundFrequencies } from './background';
import { TermStatistics, tfidfRelevance, type Analyze } from './relevance';
import { judgeSupport, thresholdsFor, WHOLE_ABSTRACT_RULES, type RelevanceScorer, type SupportDependencies, type SupportJudgement } from './support';

/** An abstract's sentences as text, split as the index splits them ("et al.", "Fig. 2", decimals survive). */
export function abstractSentences(abstract: string): string[] {
  return sentenceSpans(abstract).map(({ start, end }) => abstract.slice(start, end).replace(/\s+/g, ' '));
}

/**
 * Judges every citation that makes a claim against the abstract of the entry it cites (the .bib's
 * `abstract`, or the one the reference check fetched) and, when `fullTexts` finds the work's full
 * text, the passages of it that best match the claim. Judgements are cached on disk by model, claim,
 * abstract and passages, so editing one sentence judges only its own citations again.
 */
export async function checkSupport(result: CheckResult, deps: SupportDependencies, cache?: LookupCache, fullTexts?: FullTextProvider): Promise<CitationSupport[]> {
  const entries = new Map<string, BibEntry>();
  for (const entry of result.bibliographies.flatMap((b) => b.entries)) if (!entries.has(entry.key)) entries.set(entry.key, entry);
  const cited = result.citations.flatMap((c) => (c.claim && entries.has(c.key) ? [entries.get(c.key) as BibEntry] : []));
  const read = fullTexts ? await readFullTexts(cited, result, fullTexts, deps.signal) : new Map<string, FullTextResult | undefined>();
  const judged: { citation: Citation; judgement: SupportJudgement; fullText?: FullTextStatus }[] = [];
  for (const citation of result.citations) {
    const entry = entries.get(citation.key);
    if (!citation.claim || !entry) continue;
    const claim = citation.claim.text;
    const abstract = abstractText(entry.abstract) ?? abstractText(result.verdicts?.get(citation.key)?.abstract?.text);
    const found = read.get(entry.key);
    const passages = found && 'fullText' in found ? pickPassages(claim, found.fullText.passages) : [];
    const judgement = await cached(cache, deps, claim, abstract, passages, () =>
      judgeSupport(claim, abstract === undefined ? undefined : abstractSentences(abstract), deps, passages),
    );
    judged.push({ citation, judgement, ...(found ? { fullText: statusOf(found) } : {}) });
  }
  const supportedClaims = await claimsSupportedTogether(judged, deps);
  return judged.map((j) => ({ ...j, supportedTogether: j.judgement.label !== 'supported' && supportedClaims.has(claimId(j.citation)) }));
}

/**
 * Several works asked at once: services are each rate-limited by their HTTP client, and a PDF takes
 * its own worker thread, so a few at a time keep both busy without a thread per reference.
 */
const FULL_TEXTS_AT_ONCE = 4;

/** Each cited entry's full text, read once however often it is cited. */
async function readFullTexts(
  cited: readonly BibEntry[],
  result: CheckResult,
  fullTexts: FullTextProvider,
  signal: AbortSignal | undefined,
): Promise<Map<string, FullTextResult | undefined>> {
  const queue = [...new Map(cited.map((e) => [e.key, e])).values()];
  const read = new Map<string, FullTextResult | undefined>();
  const next = async (): Promise<void> => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      read.set(entry.key, await fullTexts(entry, idsOf(entry, result.verdicts?.get(entry.key)?.verdict), signal));
    }
  };
  await Promise.all(Array.from({ length: FULL_TEXTS_AT_ONCE }, next));
  return read;
}

/** The entry's identifiers, and those of the record it was found as where it lacks them. */
export function idsOf(entry: BibEntry, verdict: ExistenceVerdict | undefined): WorkIds {
  const record = verdict && 'record' in verdict ? verdict.record : undefined;
  return { doi: entry.doi ?? record?.doi, arxivId: entry.arxivId ?? record?.arxivId, pmid: entry.pmid ?? record?.pmid, pmcid: entry.pmcid ?? record?.pmcid };
}

function statusOf(found: FullTextResult): FullTextStatus {
  return 'fullText' in found ? { source: found.fullText.source, location: found.fullText.location } : { reason: found.reason };
}

/**
 * Sentences whose citations support them together: one of them does alone, or, with a model, the best
 * sentences of all their abstracts read as one premise entail the claim ("A does X [1] and Y [2]").
 */
async function claimsSupportedTogether(judged: readonly { citation: Citation; judgement: SupportJudgement }[], deps: SupportDependencies): Promise<Set<string>> {
  const byClaim = new Map<string, { citation: Citation; judgement: SupportJudgement }[]>();
  for (const j of judged) {
    const id = claimId(j.citation);
    const group = byClaim.get(id);
    if (group) group.push(j);
    else byClaim.set(id, [j]);
  }
  const supported = new Set<string>();
  const threshold = thresholdsFor(deps).entailment;
  for (const [id, group] of byClaim) {
    if (group.some((j) => j.judgement.label === 'supported')) {
      supported.add(id);
      continue;
    }
    const evidence = group.filter((j) => j.judgement.label !== 'contradicted' && j.judgement.sentence).map((j) => j.judgement.sentence ?? '');
    if (!deps.nli || evidence.length < 2) continue;
    const [scores] = await deps.nli.model.classify([{ premise: evidence.join(' '), hypothesis: group[0].citation.claim?.text ?? '' }], deps.signal);
    if (scores && scores.entailment >= threshold) supported.add(id);
  }
  return supported;
}

function claimId(citation: Citation): string {
  const range = citation.claim?.range;
  return `${citation.file}:${range?.start.line}:${range?.start.character}`;
}

async function cached(
  cache: LookupCache | undefined,
  deps: SupportDependencies,
  claim: string,
  abstract: string | undefined,
  passages: readonly Passage[],
  judge: () => Promise<SupportJudgement>,
): Promise<SupportJudgement> {
  if (!cache || (abstract === undefined && passages.length === 0)) return judge();
  // Without passages the key is the one judgements had before full texts, so those stay valid.
  const read = passages.length === 0 ? '' : `:${hash(JSON.stringify(passages.map((p) => [p.section, p.page ?? null, p.text])))}`;
  // The label is the model's scores under the thresholds in effect: a judgement made under other thresholds
  // (the user changed one, or a model setting landed before its thresholds) is not this one.
  // A calibrated model's judgement carries how sure it is: judged under another calibration, it is not this one.
  const calibration = deps.nli?.model.judging?.calibration;
  // A model trained on whole abstracts judges the premise its ranking and fitting build: judged under earlier rules, it is not this one.
  const premise = deps.nli?.model.judging?.premise === 'abstract' ? `:${WHOLE_ABSTRACT_RULES}` : '';
  const judgedBy = `${deps.nli?.id ?? 'relevance'}${premise}:${hash(JSON.stringify(calibration ? [thresholdsFor(deps), calibration] : thresholdsFor(deps)))}`;
  const key = `support:${judgedBy}:${hash(claim)}:${hash(abstract ?? '')}${read}`;
  const hit = await cache.get(key);
  if (hit?.status === 200) return JSON.parse(hit.body) as SupportJudgement;
  const judgement = await judge();
  await cache.set(key, { status: 200, body: JSON.stringify(judgement) });
  return judgement;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

export interface SupportFindingOptions {
  /**
   * One `unverifiable` hint per citation of a work without an abstract. Off by default: a missing
   * abstract is a limit of the check, not a problem of the manuscript, and `missingAbstracts` sums it up.
   */
  readonly reportMissingAbstracts?: boolean;
}

/**
 * Findings for support verdicts, on the citation: contradicted (warning), unsupported (information)
 * unless another citation of the sentence supports it, unverifiable (hint) when there is no abstract
 * and the options ask for it.
 */
export function supportFindings(supports: readonly CitationSupport[], ignored: (citation: Citation) => boolean = () => false, options: SupportFindingOptions = {}): Finding[] {
  const findings: Finding[] = [];
  for (const { citation, judgement, supportedTogether, fullText } of supports) {
    if (ignored(citation)) continue;
    const at = { file: citation.file, range: citation.range, key: citation.key };
    const place = judgement.evidence?.from === 'full text' ? passagePlace(judgement.evidence) : undefined;
    const evidence = {
      sentence: judgement.sentence,
      scores: { entailment: judgement.entailment, contradiction: judgement.contradiction, relevance: round(judgement.relevance) },
      model: judgement.model,
      ...(judgement.evidence ? { from: judgement.evidence.from } : {}),
      ...(place ? { place } : {}),
    };
    const read = fullText && 'source' in fullText ? 'The abstract and full text' : 'The abstract';
    const does = fullText && 'source' in fullText ? 'do' : 'does';
    if (judgement.label === 'contradicted') {
      const whose = place ? `The full text of '${citation.key}' (${place})` : `The abstract of '${citation.key}'`;
      findings.push({ ...at, code: 'contradicted', severity: 'warning', message: `${whose} contradicts this sentence: "${judgement.sentence}"`, evidence });
    } else if (judgement.label === 'unsupported' && !supportedTogether) {
      const why = judgement.reason ? ` (${judgement.reason})` : '';
      const closest = place ? `Closest (${place}): ` : 'Closest: ';
      findings.push({
        ...at,
        code: 'unsupported',
        severity: 'information',
        message: `${read} of '${citation.key}' ${does} not support this sentence${why}. ${closest}"${judgement.sentence}"`,
        evidence,
      });
    } else if (options.reportMissingAbstracts && isMissingAbstract(judgement)) {
      findings.push({ ...at, code: 'unverifiable', severity: 'hint', message: `No abstract of '${citation.key}' to check this sentence against.`, evidence });
    }
  }
  return findings;
}

function isMissingAbstract(judgement: SupportJudgement): boolean {
  return judgement.label === 'unverifiable' && judgement.reason === 'no abstract';
}

/** How many distinct cited works were judged, and how many of them had no abstract to judge against. */
export interface MissingAbstracts {
  readonly cited: number;
  readonly withoutAbstract: number;
  /**
   * Of those without one, how many no source answered for (it failed, was offline, ran out of time,
   * or reference checks are off): their abstract was never looked for, which is not "no abstract".
   */
  readonly notLookedUp: number;
}

export function missingAbstracts(supports: readonly CitationSupport[], verdicts: Verdicts | undefined): MissingAbstracts {
  const cited = new Set(supports.map((s) => s.citation.key));
  const without = new Set(supports.filter((s) => isMissingAbstract(s.judgement)).map((s) => s.citation.key));
  let notLookedUp = 0;
  for (const key of without) {
    const lookup = verdicts?.get(key);
    // Sources that answered without a record (a book they index incompletely) did answer: the work has no abstract there.
    if (!lookup || (lookup.verdict.status === 'unchecked' && !lookup.verdict.notIndexed) || lookup.abstractUnanswered) notLookedUp++;
  }
  return { cited: cited.size, withoutAbstract: without.size, notLookedUp };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * Relevance scored against the abstracts at hand, blended with general English: the words that tell
 * papers apart weigh most, and the topic's own words, which every cited abstract uses, still count.
 */
export function relevanceAmong(result: CheckResult, analyze: Analyze): RelevanceScorer {
  const abstracts = result.bibliographies.flatMap((b) => b.entries.flatMap((e) => abstractText(e.abstract) ?? []));
  for (const lookup of result.verdicts?.values() ?? []) if (lookup.abstract) abstracts.push(lookup.abstract.text);
  return tfidfRelevance(analyze, TermStatistics.of(abstracts, analyze, BackgroundFrequencies.english()));
}

/** The check's result with the support findings added in their places. */
export function withSupportFindings(
  result: CheckResult,
  supports: readonly CitationSupport[],
  ignored?: (citation: Citation) => boolean,
  options?: SupportFindingOptions,
): CheckResult {
  return { ...result, supports, findings: sortFindings([...result.findings, ...supportFindings(supports, ignored, options)]) };
}

/**
 * Whether each paper's abstract supports a claim, as Find Evidence shows it beside the results;
 * undefined for a paper without one (a placeholder or a note from its record is none). Relevance is
 * weighed within the papers found.
 */
export async function judgePapers(
  claim: string,
  papers: readonly Paper[],
  deps: Omit<SupportDependencies, 'relevance'> & { readonly analyze: Analyze },
): Promise<(SupportJudgement | undefined)[]> {
  const abstracts = papers.map((p) => abstractText(p.abstract));
  const relevance = tfidfRelevance(
    deps.analyze,
    TermStatistics.of(
      abstracts.flatMap((a) => a ?? []),
      deps.analyze,
      BackgroundFrequencies.english(),
    ),
  );
  const judgements: (SupportJudgement | undefined)[] = [];
  for (const abstract of abstracts) {
    judgements.push(abstract === undefined ? undefined : await judgeSupport(claim, abstractSentences(abstract), { ...deps, relevance }));
  }
  return judgements;
}
