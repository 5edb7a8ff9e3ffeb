/**
 * Find Evidence over the paper library: the papers imported or found so far, searched by their words
 * and, with a sentence encoder, by their meaning; optionally the open sources are searched for the
 * claim first and what they find joins the library.
 *
 *   const { library, messages } = await PaperLibrary.open(dir, { encoder: { model: 'bge-small-en-v1.5', embedder } });
 *   await library.add(papersFromBibliography(bib).papers);       // embedded, indexed and saved
 *   await library.embedMissing();                                // papers saved before the encoder was
 *   await library.find({ text: claim, limit: 10 })               // { mode, results, notes }
 */
import type { Evidence, EvidenceFinder, EvidenceQuery, EvidenceResults, SearchMode } from '../evidence';
import type { Embedder } from '../models/embedder';
import { modelName } from '../models/identity';
import type { Reranker } from '../models/reranker';
import { paperFromRecord, type Paper } from '../papers/paper';
import type { PaperSource } from '../sources/types';
import { firstWorks } from './distinctWorks';
import { rankPapers, type Ranked } from './hybrid';
import { passageText } from './passages';
import { loadedReranker, rerankedOrAsIs } from './rerank';
import { PaperStore, type VectorBatch } from './store/store';

/** The setting that names the encoder, for notes that tell the user how to get more than words. */
export const ENCODER_SETTING = 'attest.retrieval.encoder.model';
export const NO_ENCODER_NOTE = `Ranked by words alone: no sentence encoder is configured (${ENCODER_SETTING}).`;
export const ENCODER_NOT_DOWNLOADED_NOTE = `Ranked by words alone: the sentence encoder set in ${ENCODER_SETTING} is not downloaded yet (Attest: Download the Sentence Encoder).`;

/** A paper of a ranking, read from the store. */
interface RankedPaper extends Ranked {
  readonly paper: Paper;
}

export interface Encoder {
  /**
   * The model's key, kept with the vectors so that one model's are never compared with another's: its
   * name and the digest of its content (`models/identity.ts`), shown by its name (`modelName`).
   */
  readonly model: string;
  readonly embedder: Embedder;
}

export interface LibraryOptions {
  /** Without one, search is lexical and `find` says so. */
  readonly encoder?: Encoder;
  /** Why there is no encoder, for `find` to say: none is configured (the default), or it is not downloaded yet. */
  readonly missingEncoder?: 'not-configured' | 'not-downloaded';
  /** How `find` ranks: by default hybrid with an encoder, lexical without; dense and hybrid need an encoder. */
  readonly mode?: SearchMode;
  /** Searched for each claim before the library; the papers they find are added to it, and so kept. */
  readonly liveSources?: readonly PaperSource[];
  /** Gives the reranker that reorders the top of each ranking (see `index/rerank.ts`), asked for at each search; none, none is used. */
  readonly reranker?: () => Promise<Reranker | undefined>;
}

export interface AddOptions {
  readonly signal?: AbortSignal;
  /** Papers embedded and saved so far, of `total`. */
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Papers an import reads, indexes and saves together: each batch is a segment of the library, and an
 * import that stops keeps the batches saved before it. At 100,000 papers, ten segments, and memory for one.
 */
export const IMPORT_BATCH = 10_000;
/** Papers embedded and saved together, so an import that stops halfway keeps what it did. */
const EMBED_CHUNK = 512;
/** How deep each ranking goes before fusion: recall@100 is what the benchmark measures. */
const DEPTH = 100;

export class PaperLibrary implements EvidenceFinder {
  private readonly mode: SearchMode;

  constructor(
    readonly store: PaperStore,
    private readonly options: LibraryOptions = {},
  ) {
    this.mode = options.mode ?? (options.encoder ? 'hybrid' : 'lexical');
    if (this.mode !== 'lexical' && !options.encoder) throw new Error(`A ${this.mode} search needs a sentence encoder (${ENCODER_SETTING}).`);
  }

  /** The library in `dir`, with what had to be repaired there (see `PaperStore.open`). */
  static async open(dir: string, options: LibraryOptions = {}): Promise<{ library: PaperLibrary; messages: readonly string[] }> {
    const { store, messages } = await PaperStore.open(dir);
    return { library: new PaperLibrary(store, options), messages };
  }

  /**
   * Adds papers (replacing those with the same ids), embedding them when there is an encoder, and
   * saves; with `embedLater`, saves them unembedded for `embedMissing`, so that a search or an import
   * waiting on the add need not wait for the encoder (about ten abstracts a second on two cores).
   * A paper whose text changed is embedded at once all the same: its vector is of its old text, and
   * `embedMissing` embeds only papers without one.
   */
  async add(papers: readonly Paper[], options: AddOptions & { readonly embedLater?: boolean } = {}): Promise<void> {
    const { encoder } = this.options;
    if (encoder && !options.embedLater) {
      await this.embedInChunks(encoder, papers, (chunk, batch) => this.store.add(chunk, batch), options);
      return;
    }
    options.signal?.throwIfAborted();
    const changed = encoder ? new Set(papers.filter((paper) => this.textChanged(paper)).map((paper) => paper.id)) : new Set<string>();
    await this.store.add(changed.size === 0 ? papers : papers.filter((paper) => !changed.has(paper.id)));
    if (encoder && changed.size > 0) {
      await this.embedInChunks(
        encoder,
        papers.filter((paper) => changed.has(paper.id)),
        (chunk, batch) => this.store.add(chunk, batch),
        { signal: options.signal },
      );
    }
    options.onProgress?.(papers.length, papers.length);
  }

  /** Whether the library holds `paper` already, with other text to embed. */
  private textChanged(paper: Paper): boolean {
    const held = this.store.get(paper.id);
    return held !== undefined && passageText(held) !== passageText(paper);
  }

  /**
   * Embeds the papers that have no vector from this library's encoder: those added without one, or
   * all of them after a change of encoder. Returns how many it embedded.
   */
  async embedMissing(options: AddOptions = {}): Promise<number> {
    const { encoder } = this.options;
    if (!encoder) return 0;
    const missing = this.store.withoutVectors(encoder.model);
    // The size of the work before its first chunk (512 papers, about a minute on two cores), for the progress shown.
    if (missing.length > 0) options.onProgress?.(0, missing.length);
    // A paper replaced with other text while its chunk was embedded keeps no vector of its old text.
    await this.embedInChunks(encoder, missing, (chunk, batch) => this.store.add([], this.stillCurrent(chunk, batch)), options);
    return missing.length;
  }

  /** How many papers have no vector from this library's encoder; undefined without one. */
  unembedded(): number | undefined {
    const { encoder } = this.options;
    return encoder ? this.store.countWithoutVectors(encoder.model) : undefined;
  }

  /** `batch`, the vectors of `chunk`, without those of papers whose text the library no longer holds. */
  private stillCurrent(chunk: readonly Paper[], batch: VectorBatch): VectorBatch {
    const current = chunk.map((paper) => !this.textChanged(paper));
    if (current.every(Boolean)) return batch;
    return { ...batch, ids: batch.ids.filter((_, at) => current[at]), vectors: batch.vectors.filter((_, at) => current[at]) };
  }

  /**
   * With live sources, the library is ranked as it stands while they are searched, for
   * `query.onLibraryResults`: in the order of the ranking alone, since the reranker would make it wait
   * about a third of a second more. Meanwhile the reranker scores the library's best papers, so the
   * final ranking, once the papers the sources found have joined, scores only theirs; it reuses the
   * query's vector too.
   */
  async find(query: EvidenceQuery): Promise<EvidenceResults> {
    query.signal?.throwIfAborted();
    const notes: string[] = [];
    const work = new SearchWork();
    if (this.options.liveSources?.length) {
      // Set once every source has answered, before their papers join the library, where a ranking would meet them.
      let answered = false;
      const searched = this.searchSources(query, notes, () => (answered = true));
      // Rejects only once the search is cancelled, which the first list then meets too.
      searched.catch(() => undefined);
      if (query.onLibraryResults) {
        // A first list that fails says nothing the final one will not: it is left out.
        const first = await this.ranked(query, [], work, { rerank: false }).catch(() => {
          query.signal?.throwIfAborted();
          return undefined;
        });
        if (first && first.results.length > 0 && !answered) {
          query.onLibraryResults(first);
          // Only for the scores it leaves in `work`; the final ranking scores what it did not finish, or failed at. It ranks
          // the library again, which at 100,000 papers takes about 40 ms, while the sources take seconds.
          if (this.options.reranker) this.ranked(query, [], work).catch(() => undefined);
        }
      }
      await searched;
    }
    return this.ranked(query, notes, work);
  }

  /**
   * The library's best papers for the claim as it stands, with `notes` and those the ranking adds;
   * without `rerank`, in the ranking's own order, and without loading the reranker, which would take
   * the cores from the ranking.
   */
  private async ranked(query: EvidenceQuery, notes: string[], work: SearchWork, { rerank = true } = {}): Promise<EvidenceResults> {
    const { signal } = query;
    // The reranker loads (at the first search) while the query is embedded, which the encoder does in a thread of its own.
    const loading = rerank ? loadedReranker(this.options.reranker) : Promise.resolve({});
    const ranking = await this.rankingFor(query, notes, work);
    const { reranker, problem }: { reranker?: Reranker; problem?: string } = await loading;
    if (problem !== undefined) notes.push(problem);
    const deep = reranker === undefined ? query : { ...query, limit: Math.max(query.limit, reranker.depth) };
    const { mode, ranked } = await this.rankOrFallBack(deep, ranking, notes);
    signal?.throwIfAborted();
    const reordered = reranker === undefined ? ranked : (await rerankedOrAsIs(work.remembering(reranker), query.text, ranked, notes, query.signal)).slice(0, query.limit);
    const results = reordered.map(({ paper, score }): Evidence => {
      const sentence = paper.abstract === undefined ? undefined : this.store.lexical.bestSentence(query.text, paper.abstract)?.text;
      return { paper, score, ...(sentence !== undefined && { sentence }) };
    });
    return { mode, results, notes };
  }

  private async embedInChunks(
    encoder: Encoder,
    papers: readonly Paper[],
    save: (chunk: readonly Paper[], batch: VectorBatch) => Promise<void>,
    { signal, onProgress }: AddOptions,
  ): Promise<void> {
    // Chunks follow the papers' order, not their lengths (the encoder sorts each chunk's texts itself):
    // each holds the collection's mix of lengths, so the progress reported moves at an even pace.
    const chunks: Paper[][] = [];
    for (let start = 0; start < papers.length; start += EMBED_CHUNK) chunks.push(papers.slice(start, start + EMBED_CHUNK));
    const embed = (chunk: readonly Paper[]): Promise<Float32Array[]> => {
      const vectors = encoder.embedder.embed(chunk.map(passageText), 'passage', signal);
      // A chunk stopped or failed while the one before is saved is awaited only after that save: unhandled until
      // then, its rejection would end the library's thread, and the searches waiting on it.
      vectors.catch(() => undefined);
      return vectors;
    };
    let next = chunks.length > 0 ? embed(chunks[0]) : undefined;
    let done = 0;
    for (const [at, chunk] of chunks.entries()) {
      const vectors = await (next as Promise<Float32Array[]>);
      // Vectors that came in while the chunk before was saved are not saved after a stop that came meanwhile:
      // once a stop has reached this thread, what the library holds no longer changes.
      signal?.throwIfAborted();
      // The next chunk is embedded while this one is saved: the encoder's workers never wait for the store.
      next = at + 1 < chunks.length ? embed(chunks[at + 1]) : undefined;
      try {
        await save(chunk, { model: encoder.model, ids: chunk.map((p) => p.id), vectors });
      } catch (error) {
        await next?.catch(() => undefined);
        throw error;
      }
      done += chunk.length;
      onProgress?.(done, papers.length);
    }
  }

  /** The mode this search can keep to, and the query's vector when it needs one. */
  private async rankingFor(query: EvidenceQuery, notes: string[], work: SearchWork): Promise<{ mode: SearchMode; vector?: Float32Array }> {
    const { encoder } = this.options;
    if (!encoder) {
      // Asked for by name, lexical search needs no excuse.
      if (this.options.mode === undefined) notes.push(this.options.missingEncoder === 'not-downloaded' ? ENCODER_NOT_DOWNLOADED_NOTE : NO_ENCODER_NOTE);
      return { mode: 'lexical' };
    }
    if (this.mode === 'lexical') return { mode: 'lexical' };
    const unembedded = this.store.countWithoutVectors(encoder.model);
    if (unembedded === this.store.size) {
      if (unembedded > 0) notes.push(`Ranked by words alone: no paper of the library is embedded with ${modelName(encoder.model)} yet.`);
      return { mode: 'lexical' };
    }
    if (unembedded > 0) {
      const effect = this.mode === 'dense' ? 'a search by meaning alone cannot find them' : 'they are ranked by their words alone';
      notes.push(`${unembedded} of ${this.store.size} papers are not embedded with ${modelName(encoder.model)} yet; ${effect}.`);
    }
    // The vectors are read from disk while the query is encoded; a failed read is the search's to report.
    this.store.dense().catch(() => undefined);
    return { mode: this.mode, vector: await work.queryVector(() => encoder.embedder.embed([query.text], 'query', query.signal)) };
  }

  /**
   * A search by meaning that fails (ONNX Runtime could not be loaded, vectors of another size than
   * the encoder's) still answers, by words, and says why.
   */
  private async rankOrFallBack(query: EvidenceQuery, ranking: { mode: SearchMode; vector?: Float32Array }, notes: string[]): Promise<{ mode: SearchMode; ranked: RankedPaper[] }> {
    try {
      return { mode: ranking.mode, ranked: await this.rank(query, ranking.mode, ranking.vector) };
    } catch (error) {
      if (ranking.mode === 'lexical') throw error;
      query.signal?.throwIfAborted();
      notes.push(`Ranked by words alone: the search by meaning failed (${(error as Error).message}).`);
      return { mode: 'lexical', ranked: await this.rank(query, 'lexical', undefined) };
    }
  }

  /**
   * The best `limit` papers, each work once; with `openAccessOnly`, rankings go deeper until enough
   * open-access papers are found or the library has no more.
   */
  private async rank(query: EvidenceQuery, mode: SearchMode, vector: Float32Array | undefined): Promise<RankedPaper[]> {
    // The vectors are read at the first search by meaning, never for one by words.
    const indexes = { lexical: this.store.lexical, dense: mode === 'lexical' ? undefined : await this.store.dense() };
    for (let depth = Math.max(DEPTH, query.limit); ; depth *= 4) {
      const ranked = await rankPapers(indexes, { text: query.text, vector }, mode, depth);
      const kept = firstWorks(this.withPapers(ranked), query.limit, query.openAccessOnly);
      if (kept.length >= query.limit || depth >= this.store.size) return kept;
    }
  }

  /** Each ranked paper read from the store as it is asked for, once: a paper on disk costs a read. */
  private *withPapers(ranked: readonly Ranked[]): Generator<RankedPaper> {
    for (const { id, score } of ranked) yield { id, score, paper: this.store.get(id) as Paper };
  }

  /**
   * Of what the sources answered, in their order, the papers that join the library: each one it lacks,
   * or a fuller one (with an abstract) than a source before or the library has.
   */
  private joining(answers: readonly (readonly Paper[] | undefined)[]): Map<string, Paper> {
    const found = new Map<string, Paper>();
    for (const paper of answers.flatMap((papers) => papers ?? [])) {
      const known = found.get(paper.id) ?? this.store.get(paper.id);
      if (paper.title.trim() !== '' && (known === undefined || (known.abstract === undefined && paper.abstract !== undefined))) found.set(paper.id, paper);
    }
    return found;
  }

  /** Adds what the sources find for the claim; a source that fails is noted, never fatal. */
  private async searchSources(query: EvidenceQuery, notes: string[], onAnswered: () => void): Promise<void> {
    const sources = this.options.liveSources ?? [];
    const early = new EarlyVectors(this.options.encoder, query.signal);
    const answered: (readonly Paper[] | undefined)[] = sources.map(() => undefined);
    let waiting = sources.length;
    const answers = await Promise.allSettled(
      sources.map(async (source, at) => {
        const papers = (await source.search({ title: query.text, limit: query.limit }, { signal: query.signal })).map(paperFromRecord);
        answered[at] = papers;
        // Embedded while the slower sources are awaited: a search would otherwise wait for the sources, then the
        // encoder. Only the papers that would join as the answers stand, with the sources before this one that
        // answered; none after the last answer, when the papers chosen are embedded.
        if (--waiting > 0) {
          const joining = this.joining(answered.slice(0, at + 1));
          early.embed(papers.filter((paper) => joining.get(paper.id) === paper));
        }
        return papers;
      }),
    );
    onAnswered();
    query.signal?.throwIfAborted();
    answers.forEach((answer, at) => {
      if (answer.status === 'rejected') notes.push(`${sources[at].name} could not be searched: ${(answer.reason as Error).message}`);
    });
    try {
      const papers = [...this.joining(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : undefined))).values()];
      const { encoder } = this.options;
      if (papers.length > 0) await this.store.add(papers, encoder && { model: encoder.model, ids: papers.map((p) => p.id), vectors: await early.of(papers) });
    } catch (error) {
      query.signal?.throwIfAborted();
      notes.push(`The papers the sources found could not be added to the library: ${(error as Error).message}`);
    }
  }
}

/**
 * The vectors of the papers a live search finds, embedded as each source answers while the slower
 * ones are awaited, and kept by text: a paper two sources found is embedded once, and one a later
 * source found with other text is embedded at the end.
 */
class EarlyVectors {
  private embedding: Promise<void> = Promise.resolve();
  private readonly byText = new Map<string, Float32Array>();

  constructor(
    private readonly encoder: Encoder | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {}

  embed(papers: readonly Paper[]): void {
    if (this.encoder === undefined || papers.length === 0) return;
    const { embedder } = this.encoder;
    // What is not embedded yet once the embedding before it is done, so that no text is embedded twice.
    // A failure here is met again, and reported, when the vectors are asked for.
    this.embedding = this.embedding
      .then(() => {
        const texts = this.notYet(papers);
        return texts.length > 0 ? this.keep(texts, embedder) : undefined;
      })
      .catch(() => undefined);
  }

  /** The vectors of `papers`, in order; those not embedded yet are embedded now. */
  async of(papers: readonly Paper[]): Promise<Float32Array[]> {
    await this.embedding;
    const texts = this.notYet(papers);
    if (this.encoder !== undefined && texts.length > 0) await this.keep(texts, this.encoder.embedder);
    return papers.map((paper) => this.byText.get(passageText(paper)) as Float32Array);
  }

  private notYet(papers: readonly Paper[]): string[] {
    return [...new Set(papers.map(passageText))].filter((text) => !this.byText.has(text));
  }

  private async keep(texts: readonly string[], embedder: Encoder['embedder']): Promise<void> {
    const vectors = await embedder.embed(texts, 'passage', this.signal);
    texts.forEach((text, at) => this.byText.set(text, vectors[at]));
  }
}

/** What one search works out that both of its rankings need: the query's vector, and the reranker's scores by passage. */
class SearchWork {
  private vector: Promise<Float32Array> | undefined;
  /** Scores being worked out count as known: a ranking that needs one meanwhile waits for it. */
  private readonly scores = new Map<string, Promise<number>>();

  queryVector(embed: () => Promise<Float32Array[]>): Promise<Float32Array> {
    const vector = (this.vector ??= embed().then(([first]) => first));
    // A failure is this ranking's: the next one asks again.
    vector.catch(() => {
      if (this.vector === vector) this.vector = undefined;
    });
    return vector;
  }

  /** `reranker`, scoring only the passages it has not scored for this search before. */
  remembering(reranker: Reranker): Reranker {
    const { scores } = this;
    return {
      depth: reranker.depth,
      weight: reranker.weight,
      async score(claim, passages, signal) {
        for (let attempt = 0; ; attempt++) {
          const fresh = [...new Set(passages.filter((passage) => !scores.has(passage)))];
          const scoring = fresh.length > 0 ? reranker.score(claim, fresh, signal) : undefined;
          if (scoring !== undefined) {
            fresh.forEach((passage, at) => {
              const score = scoring.then((all) => all[at]);
              // A failure is forgotten, for the next ranking to score the passage again, and is the scoring's to report.
              score.catch(() => scores.get(passage) === score && scores.delete(passage));
              scores.set(passage, score);
            });
          }
          // Taken now: a scoring waited for that fails meanwhile is forgotten, and must reject here, not go missing.
          const known = passages.map((passage) => scores.get(passage) as Promise<number>);
          await scoring;
          try {
            return await Promise.all(known);
          } catch (error) {
            // The scoring of a ranking before this one, waited for, failed: this one scores those passages itself, once.
            if (attempt > 0 || signal?.aborted) throw error;
          }
        }
      },
      dispose: () => reranker.dispose(),
    };
  }
}
