/**
 * Find Evidence over an institution's collection on SolrCloud, ranked as Attest's own library ranks:
 * Solr gives each side's candidates (BM25 over Attest's terms, and the `knn` query over the encoder's
 * vectors), Attest fuses them (`hybrid.ts`), keeps each work once and reorders the top with its reranker.
 * So a claim gets the same ranking from either backend, and only the claim (its terms and its vector)
 * leaves the writer's machine, to the institution's Solr.
 *
 *   const library = await SolrLibrary.open({ url, collection }, { encoder, reranker });
 *   await library.find({ text: claim, limit: 10 })          // { mode, results, notes }
 */
import type { PaperMatch } from '../../completion/libraryKeys';
import type { Evidence, EvidenceFinder, EvidenceQuery, EvidenceResults, SearchMode } from '../../evidence';
import type { Paper } from '../../papers/paper';
import type { Reranker } from '../../models/reranker';
import { analyze, termFrequencies } from '../analyzer';
import { firstWorks } from '../distinctWorks';
import { FUSION, standardisedFusion, type Ranked } from '../hybrid';
import { ENCODER_SETTING, NO_ENCODER_NOTE, type Encoder } from '../library';
import { modelName } from '../../models/identity';
import { bestSentence } from '../passages';
import { loadedReranker, rerankedOrAsIs } from '../rerank';
import { SolrClient, SolrError, type SolrTarget } from './client';
import { collectionInfo, encoderConflict, type CollectionInfo } from './collection';
import { citationKey, PAPER_FIELDS, paperOf, solrVector } from './documents';

export interface SolrLibraryOptions {
  /** The collection's encoder; without one the search is by words alone, and says so. */
  readonly encoder?: Encoder;
  readonly mode?: SearchMode;
  /** Gives the reranker that reorders the top of each ranking, as for the local library. */
  readonly reranker?: () => Promise<Reranker | undefined>;
}

/** Typed words citation completion sends at most. */
const MAX_TYPED_WORDS = 8;
/** Distinct query terms sent at most: each is two clauses, under Solr's default limit of 1024. */
const MAX_QUERY_TERMS = 400;
/** The field weights of Attest's lexical index (`lexical.ts`): the title's BM25 at a fifth, beside title and abstract. */
const TITLE_WEIGHT = 0.2;

interface RankedPaper extends Ranked {
  readonly paper: Paper;
}

export class SolrLibrary implements EvidenceFinder {
  private readonly mode: SearchMode;

  private constructor(
    private readonly solr: SolrClient,
    readonly info: CollectionInfo,
    private readonly options: SolrLibraryOptions,
  ) {
    this.mode = options.encoder ? (options.mode ?? 'hybrid') : 'lexical';
  }

  /** The collection, checked: made by `attest solr init`, with the encoder's vectors when an encoder is given. */
  static async open(target: SolrTarget, options: SolrLibraryOptions = {}, signal?: AbortSignal): Promise<SolrLibrary> {
    const solr = new SolrClient(target);
    const info = await collectionInfo(solr, signal);
    const name = `'${target.collection}'`;
    if (info === undefined) throw new SolrError('refused', `The Solr collection ${name} was not made by attest solr init: it has no record of the encoder its vectors come from.`);
    const conflict = encoderConflict(name, info, options.encoder?.model);
    if (conflict !== undefined) throw new SolrError('refused', conflict);
    if (options.mode !== undefined && options.mode !== 'lexical' && !options.encoder) throw new Error(`A ${options.mode} search needs a sentence encoder (${ENCODER_SETTING}).`);
    return new SolrLibrary(solr, info, options);
  }

  async find(query: EvidenceQuery): Promise<EvidenceResults> {
    const { signal } = query;
    signal?.throwIfAborted();
    const notes: string[] = [];
    if (!this.options.encoder && this.options.mode === undefined && this.info.encoder !== undefined) {
      // The library's own note, which each adapter words for its own settings, then what the collection needs.
      notes.push(NO_ENCODER_NOTE, `The collection's vectors are ${modelName(this.info.encoder)}'s: search with it to rank by meaning too.`);
    }
    const loading = loadedReranker(this.options.reranker);
    const terms = [...termFrequencies(analyze(query.text))].sort((a, b) => b[1] - a[1]).slice(0, MAX_QUERY_TERMS);
    const weights = this.termWeights(
      terms.map(([term]) => term),
      signal,
    );
    weights.catch(() => undefined);
    const { mode, ranked } = await this.ranking(query, terms, notes);
    const { reranker, problem } = await loading;
    if (problem !== undefined) notes.push(problem);
    const wanted = Math.max(query.limit, reranker?.depth ?? 0);
    const kept = await this.distinctPapers(ranked, wanted, query);
    const reordered = reranker === undefined ? kept : (await rerankedOrAsIs(reranker, query.text, kept, notes, query.signal)).slice(0, query.limit);
    const idf = await weights.catch(() => new Map<string, number>());
    const results = reordered.slice(0, query.limit).map(({ paper, score }): Evidence => {
      const sentence = paper.abstract === undefined ? undefined : bestSentence(query.text, paper.abstract, (term) => idf.get(term) ?? 0)?.text;
      return { paper, score, ...(sentence !== undefined && { sentence }) };
    });
    return { mode, results, notes };
  }

  /**
   * Citation completion's papers for `typed`: each typed word a word, or the start of one, of a paper's
   * key, title, first authors, year or venue, as the local library's key index matches them; whole
   * words first.
   */
  async complete(typed: string, limit: number, signal?: AbortSignal): Promise<PaperMatch[]> {
    const words = typedWords(typed);
    if (words.length === 0) return [];
    const clauses = words.map((word) => `+(cite_words:${luceneTerm(word)}^2 cite_words:${luceneTerm(word)}*)`);
    const { docs } = await this.solr.select({ q: `{!lucene}${clauses.join(' ')}`, fq: 'kind:paper', fl: PAPER_FIELDS, rows: String(limit) }, signal);
    return docs.flatMap((doc) => {
      const paper = paperOf(doc);
      return paper === undefined ? [] : [{ key: citationKey(paper), paper }];
    });
  }

  /** Each side's candidates from Solr, fused; a search by meaning that fails answers by words, and says why. */
  private async ranking(query: EvidenceQuery, terms: readonly (readonly [string, number])[], notes: string[]): Promise<{ mode: SearchMode; ranked: Ranked[] }> {
    const lexical = this.mode === 'dense' ? Promise.resolve([]) : this.lexical(terms, query.signal);
    lexical.catch(() => undefined);
    if (this.mode === 'lexical') return { mode: 'lexical', ranked: await lexical };
    let dense: Ranked[];
    try {
      const [vector] = await (this.options.encoder as Encoder).embedder.embed([query.text], 'query', query.signal);
      dense = await this.dense(vector, query.signal);
    } catch (error) {
      query.signal?.throwIfAborted();
      notes.push(`Ranked by words alone: the search by meaning failed (${(error as Error).message}).`);
      // The hybrid search's words are asked already; a dense one asks for them now.
      return { mode: 'lexical', ranked: await (this.mode === 'dense' ? this.lexical(terms, query.signal) : lexical) };
    }
    if (this.mode === 'dense') return { mode: 'dense', ranked: dense };
    return { mode: 'hybrid', ranked: standardisedFusion(await lexical, dense, FUSION.denseWeight) };
  }

  /** BM25 over Attest's terms, as its own index weighs them: each term by its count in the claim, the title at a fifth. */
  private async lexical(terms: readonly (readonly [string, number])[], signal?: AbortSignal): Promise<Ranked[]> {
    if (terms.length === 0) return [];
    const clauses = terms.flatMap(([term, count]) => [`text_terms:${luceneTerm(term)}^${count}`, `title_terms:${luceneTerm(term)}^${count * TITLE_WEIGHT}`]);
    const { docs } = await this.solr.select({ q: `{!lucene q.op=OR}${clauses.join(' ')}`, fq: 'kind:paper', fl: 'id,score', rows: String(FUSION.depth) }, signal);
    return scored(docs);
  }

  private async dense(vector: Float32Array, signal?: AbortSignal): Promise<Ranked[]> {
    const { docs } = await this.solr.select(
      { q: `{!knn f=vector topK=${FUSION.depth}}[${solrVector(vector).join(',')}]`, fq: 'kind:paper', fl: 'id,score', rows: String(FUSION.depth) },
      signal,
    );
    return scored(docs);
  }

  /** The idf of each query term in the collection, to choose each paper's sentence to show as the local library does. */
  private async termWeights(terms: readonly string[], signal?: AbortSignal): Promise<Map<string, number>> {
    if (terms.length === 0) return new Map();
    const [frequencies, { numFound }] = await Promise.all([this.solr.documentFrequencies('text_terms', terms, signal), this.solr.select({ q: 'kind:paper', rows: '0' }, signal)]);
    return new Map(terms.map((term) => [term, luceneIdf(frequencies.get(term) ?? 0, numFound)]));
  }

  /** The papers of `ranked`, read from Solr in growing slices, until `wanted` distinct works (open access, if asked) are found. */
  private async distinctPapers(ranked: readonly Ranked[], wanted: number, query: EvidenceQuery): Promise<RankedPaper[]> {
    const papers = new Map<string, Paper>();
    for (let depth = Math.max(2 * wanted, 20); ; depth *= 4) {
      const missing = ranked.slice(0, depth).filter(({ id }) => !papers.has(id));
      const { docs } = await this.solr.get(
        missing.map(({ id }) => id),
        PAPER_FIELDS,
        query.signal,
      );
      for (const doc of docs) {
        const paper = paperOf(doc);
        if (paper !== undefined) papers.set(paper.id, paper);
      }
      const withPapers = ranked.slice(0, depth).flatMap(({ id, score }) => {
        const paper = papers.get(id);
        return paper === undefined ? [] : [{ id, score, paper }];
      });
      const kept = firstWorks(withPapers, wanted, query.openAccessOnly);
      if (kept.length >= wanted || depth >= ranked.length) return kept;
    }
  }
}

function scored(docs: readonly { readonly [field: string]: unknown }[]): Ranked[] {
  return docs.flatMap(({ id, score }) => (typeof id === 'string' && typeof score === 'number' ? [{ id, score }] : []));
}

/** What was typed as the collection's completion words are made: lower-cased, accents taken off, split at whatever is not a letter or digit. */
function typedWords(typed: string): string[] {
  const words = typed
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .split(/[^\p{L}\p{N}]+/u);
  return words.filter((word) => word !== '').slice(0, MAX_TYPED_WORDS);
}

/** A term as the lucene parser reads it literally: its special characters escaped. */
function luceneTerm(term: string): string {
  return term.replace(/[+\-!(){}[\]^"~*?:\\/&|\s]/g, '\\$&');
}

/** Lucene's BM25 idf, as Attest's own index computes it (`bm25.ts`). */
function luceneIdf(documentFrequency: number, documentCount: number): number {
  if (!(documentFrequency > 0) || !(documentCount > 0)) return 0;
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}
