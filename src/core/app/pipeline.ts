import type { BibEntry } from '../bibliography/types';
import { checkManuscript, type CheckOptions, type CheckResult, type CheckSession } from '../check';
import { checkBibliographyFile, type BibliographyCheck } from '../checkBibliography';
import { sortFindings, type Finding } from '../findings';
import { analyze } from '../index/analyzer';
import type { LookupCache } from '../sources/cache';
import { isAbstract } from '../verify/abstracts';
import type { FullTextProvider } from '../fulltext/types';
import { checkSupport, relevanceAmong, withSupportFindings } from '../verify/claims';
import { IgnoreList, ignoreFileFor } from '../verify/ignore';
import { citedEntries, referenceFindings, withReferenceFindings } from '../verify/references';
import type { Verdicts } from '../verify/results';
import type { SupportDependencies, SupportThresholds } from '../verify/support';
import type { Workspace } from '../workspace';

export type { CheckOptions, CheckResult } from '../check';
export { CheckSession } from '../check';

/**
 * The stages of a check, in the order they complete: what the files say alone (keys, files,
 * duplicates, metadata), then what the open sources say of the cited references, then whether each
 * cited work supports its sentence. Each is handed on as soon as it is done, so a reader sees the
 * offline findings at once and the slow ones as they arrive.
 */
export type Stage = 'offline' | 'references' | 'support';

/** What the pipeline does, from the settings of the host that runs it. */
export interface PipelineSettings {
  /** Whether to look the cited references up (`attest.references.check`). */
  readonly checkReferences: boolean;
  /** Whether references the sources could not answer are reported (`attest.references.showUnchecked`). */
  readonly showUnchecked: boolean;
  /** Whether to judge each cited abstract against its sentence (`attest.support.check`). */
  readonly checkSupport: boolean;
  /** One `unverifiable` finding per citation of a work without an abstract (`attest.support.reportMissingAbstracts`). */
  readonly reportMissingAbstracts: boolean;
  /** The support thresholds the user set; the rest are the model's or the defaults. */
  readonly thresholds?: Partial<SupportThresholds>;
}

/** The NLI model a support check judges with; `id` keys cached judgements. */
export type ChosenModel = NonNullable<SupportDependencies['nli']>;

/** What the pipeline asks of its host: the CLI and the editor look up, load and judge each in their own way. */
export interface PipelineHost {
  /** The sources' verdicts on `entries`; undefined when they were not looked up (cancelled, superseded, failed). */
  lookUp(root: string, entries: readonly BibEntry[], signal: AbortSignal | undefined): Promise<Verdicts | undefined>;
  /** The manuscript's ignored verdicts; undefined when the host has said why it cannot read them. */
  ignored(root: string): Promise<IgnoreList | undefined>;
  /** The model to judge with, asked as the support stage begins with the result it judges; undefined judges by relevance alone. */
  model(result: CheckResult): Promise<ChosenModel | undefined>;
  /** Judgements kept between checks. */
  readonly judgements?: LookupCache;
  /** The cited works' full texts, when they are read at all. */
  fullTexts?(): Promise<FullTextProvider | undefined>;
}

/** Told each stage's result as it completes. */
export type StageListener = (stage: Stage, result: CheckResult) => void;

/**
 * Checks a manuscript in stages, handing each result to `onStage` as it completes; returns the last
 * result, or undefined when the root cannot be read or `signal` was aborted (a listener may abort it
 * to stop the stages to come). A stage with nothing to add (turned off, or the lookups did not
 * happen) is not handed on. The order of the findings is the pipeline's: by file, then position.
 */
export async function checkInStages(
  root: string,
  workspace: Workspace,
  session: CheckSession,
  options: CheckOptions,
  settings: PipelineSettings,
  host: PipelineHost,
  onStage: StageListener = () => undefined,
  signal?: AbortSignal,
): Promise<CheckResult | undefined> {
  let result = await checkManuscript(root, workspace, session, options);
  if (!result || signal?.aborted) return undefined;
  onStage('offline', result);
  if (signal?.aborted) return undefined;

  if (settings.checkReferences) {
    const verdicts = await host.lookUp(root, citedEntries(result), signal);
    if (signal?.aborted) return undefined;
    if (verdicts) {
      const ignored = await host.ignored(root);
      if (signal?.aborted) return undefined;
      result = withReferenceFindings(result, verdicts, settings.showUnchecked, (c) => ignored?.has(c, 'retraction') ?? false);
      onStage('references', result);
      if (signal?.aborted) return undefined;
    }
  }

  if (!settings.checkSupport) return result;
  const model = await host.model(result);
  if (signal?.aborted) return undefined;
  const deps = { relevance: relevanceAmong(result, analyze), nli: model, thresholds: settings.thresholds, signal };
  const supports = await checkSupport(result, deps, host.judgements, await host.fullTexts?.()).catch((error: unknown) => {
    if (signal?.aborted) return undefined;
    throw error;
  });
  if (!supports) return undefined;
  if (signal?.aborted) return undefined;
  const ignored = await host.ignored(root);
  if (signal?.aborted) return undefined;
  result = withSupportFindings(result, supports, (c) => ignored?.has(c) ?? false, { reportMissingAbstracts: settings.reportMissingAbstracts });
  onStage('support', result);
  return result;
}

/** The ignore list beside a manuscript, read as the CLI and the editor both keep it. */
export function ignoreListOf(root: string): Promise<IgnoreList> {
  return IgnoreList.load(ignoreFileFor(root));
}

/** The findings of a whole bibliography's lookups, which cite nothing: "Check References" of a .bib file. */
export function bibliographyFindings(verdicts: Verdicts, showUnchecked: boolean): Finding[] {
  return referenceFindings(verdicts, [], showUnchecked);
}

/** A bibliography checked by itself, with its lookups once they are in. */
export type BibliographyReport = BibliographyCheck & Pick<CheckResult, 'verdicts'>;

/**
 * Checks every entry of one .bib file, cited or not, as "Check References of This Bibliography"
 * does: what the file says alone, then, when references are checked, what the sources say of each
 * entry. Undefined when the file does not exist.
 */
export async function checkBibliographyInStages(
  file: string,
  workspace: Workspace,
  session: CheckSession,
  settings: Pick<PipelineSettings, 'checkReferences' | 'showUnchecked'>,
  lookUp: PipelineHost['lookUp'],
): Promise<BibliographyReport | undefined> {
  const checked = await checkBibliographyFile(file, workspace, session);
  if (!checked || !settings.checkReferences) return checked;
  const verdicts = await lookUp(file, checked.bibliographies[0].entries, undefined);
  if (!verdicts) return checked;
  return { ...checked, verdicts, findings: sortFindings([...checked.findings, ...bibliographyFindings(verdicts, settings.showUnchecked)]) };
}

/** Whether a citation that makes a claim cites a work with an abstract: its judging is sure to come. */
export function claimWithAbstract(result: CheckResult): boolean {
  const withAbstract = new Set(result.bibliographies.flatMap((b) => b.entries.filter((e) => isAbstract(e.abstract)).map((e) => e.key)));
  for (const [key, lookup] of result.verdicts ?? []) if (isAbstract(lookup.abstract?.text)) withAbstract.add(key);
  return result.citations.some((c) => c.claim !== undefined && withAbstract.has(c.key));
}

/** Whether any entry or lookup of the check has an abstract at all, so that judging without a model is worth a word. */
export function hasAbstracts(result: CheckResult): boolean {
  return result.bibliographies.some((b) => b.entries.some((e) => e.abstract)) || [...(result.verdicts?.values() ?? [])].some((l) => l.abstract);
}

// What the adapters use of the modules this stage calls, so that they reach them through here.
export type { Finding, FindingCode, ReferenceCategory, Severity } from '../findings';
export { categoryOf, FINDING_CATEGORIES } from '../findingCategories';
export { directiveFor, withoutAccepted, type AcceptedFinding } from '../acceptance';
export { baselineOf, findingsNotIn, isBaseline, type Baseline, type FindingInContext } from '../baseline';
export { FsWorkspace } from '../fsWorkspace';
export { findRootManuscripts } from '../manuscript/discover';
export { languageOf } from '../manuscript/language';
export { parseLatex } from '../manuscript/latex';
export { parseMarkdown } from '../manuscript/markdown';
export { manuscriptRootOf, missingTexRoot } from '../manuscript/project';
export { mergeFindings } from '../mergeFindings';
export { ParserThread } from '../parsing/thread';
export { IgnoreFileError, type IgnoreList, type VerdictSubject } from '../verify/ignore';
export { describeUnchecked, failureReasons, unreachedSources, VerdictCache, verifyEntries } from '../verify/references';
