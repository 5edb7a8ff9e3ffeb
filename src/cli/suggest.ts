/**
 * `attest suggest`: Suggest Cited Text from a terminal, for scripts and for checking the pipeline
 * end to end. The same core as the editor's command: queries from the model, papers from the
 * library and the live sources, a draft from the model, every sentence re-checked, and exactly the
 * text Accept would insert.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type BibEntry, type CitationStyle, type CitingReference, citingReferences, parseBibliography } from '../core/app/bibliography';
import { PaperLibrary, StoreError } from '../core/app/library';
import { ModelError } from '../core/app/models';
import { distinctPapers } from '../core/app/evidence';
import { SOURCE_NAMES } from '../core/app/services';
import { readSettings } from '../core/app/settings';
import { acceptedSentences, endpointName, insertionText, LlmError, OpenAiLlm, suggest, type Suggestion, supportJudge } from '../core/app/suggest';
import { LARGEST_TEXT_BYTES, readNamedTextFile } from '../core/app/text';
import { parseCommandLine, usageError } from './args';
import { isFileSystemError } from './encoder';
import type { Console } from './console';
import { chooseNliModel, NO_MODEL_MESSAGE } from './nli';
import { ConfigFileError, readConfigFile, setUpSources } from './sourcesSetup';

export const SUGGEST_USAGE = `Usage: attest suggest --claim TEXT [--store DIR] [--style latex|markdown] [--config FILE]
                      [--accept supported|unconfirmed] [--bib FILE]... [--nli-model DIR] [--format json]

Drafts cited text for a claim as the editor's Suggest Cited Text does: a language model proposes
search queries, papers are found in the library (--store, see attest index) and, unless
attest.retrieval.liveSearch is false, the open sources; the model drafts from their abstracts, and
every sentence is checked against the passages it cites. Prints one JSON object: outcome, sources
[{n, id, key, title}], sentences [{text, status, citations}], removed [{text, reason}], insertion
(exactly what Accept would insert) and bibtex (the entries Accept would add).
  --claim TEXT        the claim or note to draft for
  --store DIR         a paper library to search (default: none, only the live sources)
  --style STYLE       latex (\\cite{…}, the default) or markdown (pandoc's [@…])
  --config FILE       JSON settings with the editor's keys: attest.llm.* (endpoint, model, …),
                      attest.suggest.*, attest.retrieval.liveSearch, attest.sources.*
  --accept WHICH      supported (default): insert the supported sentences; unconfirmed: also the
                      unconfirmed ones. Contradicted, unrelated and uncited sentences are never
                      inserted.
  --bib FILE          a bibliography whose keys are reused for papers it has (repeatable)
  --nli-model DIR     the ONNX NLI model folder (or ATTEST_NLI_MODEL) to confirm sentences with
                      (default: Attest's built-in model); none: no sentence is supported, only unconfirmed
  --format json       the only format
The API key comes from ATTEST_LLM_API_KEY.
Exit status: 0 text to insert, 1 nothing usable, 2 usage, endpoint or I/O failure.`;

type Accept = 'supported' | 'unconfirmed';

/** `attest suggest`. */
export async function suggestCommand(args: readonly string[], io: Console): Promise<number> {
  const parsed = parseCommandLine(
    'suggest',
    {
      args: [...args],
      options: {
        claim: { type: 'string' },
        store: { type: 'string' },
        style: { type: 'string', default: 'latex' },
        config: { type: 'string' },
        accept: { type: 'string', default: 'supported' },
        bib: { type: 'string', multiple: true, default: [] },
        'nli-model': { type: 'string' },
        format: { type: 'string', default: 'json' },
      },
    },
    SUGGEST_USAGE,
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const claim = values.claim?.trim();
  if (!claim) return usageError('suggest', '--claim TEXT is required', io);
  if (values.style !== 'latex' && values.style !== 'markdown') return usageError('suggest', `--style must be latex or markdown, not '${values.style}'`, io);
  if (values.accept !== 'supported' && values.accept !== 'unconfirmed') return usageError('suggest', `--accept must be supported or unconfirmed, not '${values.accept}'`, io);
  if (values.format !== 'json') return usageError('suggest', `--format must be json, not '${values.format}'`, io);
  const style: CitationStyle = values.style === 'latex' ? { kind: 'latex', command: 'cite' } : { kind: 'pandoc' };
  const accept: Accept = values.accept;

  const fail = (message: string): number => {
    io.err(`attest suggest: ${message}\n`);
    return 2;
  };
  let settings: Record<string, unknown>;
  let entries: BibEntry[];
  try {
    settings = values.config ? await readConfigFile(values.config) : {};
    entries = await readBibliographies(values.bib);
  } catch (error) {
    return fail((error as Error).message);
  }
  const config = readSettings((key) => settings[key], {}).suggest;
  for (const problem of config.problems) io.err(`attest suggest: ${problem}\n`);
  if (!config.llm.model) return fail('no language model is configured: set "attest.llm.model" (and "attest.llm.baseUrl" for a server other than OpenAI) in the --config file');
  let llm: OpenAiLlm;
  try {
    llm = new OpenAiLlm({ ...config.llm, apiKey: process.env.ATTEST_LLM_API_KEY?.trim() || undefined });
  } catch (error) {
    if (error instanceof LlmError) return fail(error.message);
    throw error;
  }

  const sources = await setUpSources({ config: values.config, offline: false, showUnchecked: false });
  const live = settings['attest.retrieval.liveSearch'] !== false && !sources.config.offline ? sources.sources : [];
  io.err(`attest suggest: the claim, the search queries and the abstracts found are sent to ${endpointName(config.llm.baseUrl)}/chat/completions (model "${config.llm.model}")\n`);
  io.err(
    live.length > 0
      ? `attest suggest: the search queries are also sent to ${sources.config.enabled.map((id) => SOURCE_NAMES[id]).join(', ')} (attest.retrieval.liveSearch)\n`
      : 'attest suggest: live source searches are off: papers are searched for in the library only\n',
  );

  const scratch = values.store ? undefined : await fs.mkdtemp(path.join(os.tmpdir(), 'attest-suggest-'));
  let nli;
  try {
    nli = await chooseNliModel(values['nli-model'], process.env);
    if (!nli) io.err(`attest suggest: ${NO_MODEL_MESSAGE}\n`);
    const { library, messages } = await PaperLibrary.open(values.store ?? (scratch as string), { liveSources: live });
    for (const message of messages) io.err(`attest suggest: ${message}\n`);
    const suggestion = await suggest({ selection: claim, finder: library, llm, judge: supportJudge({ nli, thresholds: sources.thresholds }), limits: config.limits });
    for (const note of suggestion.notes) io.err(`attest suggest: ${note}\n`);
    const report = reportOf(suggestion, entries, style, accept);
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return report.insertion === '' ? 1 : 0;
  } catch (error) {
    // A library that cannot be read now (EACCES, EIO, …) is reported, as by attest search: it was left as it is.
    if (error instanceof LlmError || error instanceof ModelError || error instanceof ConfigFileError || error instanceof StoreError) return fail(error.message);
    if (isFileSystemError(error)) return fail((error as Error).message);
    throw error;
  } finally {
    await nli?.model.dispose();
    if (scratch) await fs.rm(scratch, { recursive: true, force: true });
  }
}

interface Report {
  readonly outcome: Suggestion['outcome'];
  readonly sources: readonly { n: number; id: string; key: string; title: string }[];
  readonly sentences: readonly { text: string; status: string; citations: number[]; reason?: string }[];
  readonly removed: readonly { text: string; reason: string }[];
  readonly insertion: string;
  readonly bibtex: readonly string[];
  readonly queries: readonly string[];
  readonly notes: readonly string[];
}

/**
 * The suggestion as Accept would insert it. The cited papers get their keys first, in the order
 * Accept gives them, so the keys shown are the keys inserted; the other sources' keys follow.
 */
function reportOf(suggestion: Suggestion, entries: readonly BibEntry[], style: CitationStyle, accept: Accept): Report {
  const accepted = suggestion.outcome === 'drafted' ? acceptedSentences(suggestion.sentences, accept === 'unconfirmed' ? 'all' : new Set()) : [];
  const cited = distinctPapers(accepted.flatMap((s) => s.citations));
  const citing = citingReferences(cited, entries);
  const others = suggestion.sources.filter((p) => !cited.includes(p));
  const keyOf = new Map<string, CitingReference>();
  cited.forEach((paper, i) => keyOf.set(paper.id, citing[i]));
  citingReferences(
    others,
    entries,
    citing.map((r) => r.key),
  ).forEach((r, i) => keyOf.set(others[i].id, r));
  const numberOf = new Map(suggestion.sources.map((p, i) => [p.id, i + 1]));
  return {
    outcome: suggestion.outcome,
    sources: suggestion.sources.map((paper, i) => ({ n: i + 1, id: paper.id, key: keyOf.get(paper.id)?.key ?? '', title: paper.title })),
    sentences: suggestion.sentences.map((s) => ({
      text: s.text,
      status: s.status,
      citations: s.citations.map((p) => numberOf.get(p.id) ?? 0),
      ...(s.reason !== undefined && { reason: s.reason }),
    })),
    removed: suggestion.removed.map(({ text, reason }) => ({ text, reason })),
    insertion: insertionText(
      accepted.map((s) => ({ text: s.text, keys: s.citations.map((p) => keyOf.get(p.id)?.key ?? '') })),
      style,
    ),
    bibtex: [...new Set(citing.flatMap((r) => (r.kind === 'new' ? [r.bibtex] : [])))],
    queries: suggestion.queries,
    notes: suggestion.notes,
  };
}

async function readBibliographies(files: readonly string[]): Promise<BibEntry[]> {
  const entries: BibEntry[] = [];
  for (const file of files) {
    let text: string;
    try {
      // The one reader every file goes through: no FIFO or device, bytes capped, bad UTF-8 bytes replaced.
      text = await readNamedTextFile(file, LARGEST_TEXT_BYTES);
    } catch (error) {
      throw new Error(`cannot read bibliography ${file}: ${(error as Error).message}`);
    }
    for (const entry of parseBibliography(text, path.resolve(file)).entries) entries.push(entry);
  }
  return entries;
}
