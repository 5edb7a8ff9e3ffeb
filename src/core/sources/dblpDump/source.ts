/**
 * DBLP answered from its XML dump on this machine (`attest.sources.dblp.dumpFile`), for writers who
 * cannot wait on its API's rate: the same source, `dblp`, with the records the search API gives
 * (`dblpRecord`), so the existence check treats them alike, and one field's index as online
 * (`partialCoverage`). Asked nothing over the network, it answers when Attest is offline too.
 *
 * The dump is indexed once (`dumpIndex.ts`): by the host before a check (`prepare`, with its progress
 * and cancellation), else by the first search, which waits for it. While a build runs, other searches
 * fail saying so; a dump that cannot be read fails every search with the reason until the source is
 * made again (settings changed, a new run), so a damaged file is not read again at each lookup. A
 * failure is never an answer about a reference.
 */
import * as path from 'node:path';
import { dblpRecord } from '../dblp';
import { notAsked } from '../normalize';
import type { BibliographicQuery, PaperSource, PrepareOptions, RequestOptions, SourceRecord } from '../types';
import { SourceError } from '../types';
import { DamagedIndex, DblpDumpIndex, dumpIdentity } from './dumpIndex';
import { buildInThread } from './indexThread';
import { DblpDumpError } from './xml';

const DEFAULT_LIMIT = 5;

export interface DblpDumpSettings {
  /** The dump: `dblp.xml` or `dblp.xml.gz`. */
  readonly file: string;
  /** Where its index is kept: a folder of the host's storage. */
  readonly folder: string;
}

export class DblpDumpSource implements PaperSource {
  readonly id = 'dblp';
  readonly name = 'DBLP';
  readonly partialCoverage = true;
  private index?: DblpDumpIndex;
  private failure?: SourceError;
  /** The first look for a current index, shared by every search that comes meanwhile. */
  private opening?: Promise<void>;
  private preparing?: Promise<void>;
  private building = false;

  constructor(private readonly settings: DblpDumpSettings) {}

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    if (options.signal?.aborted) throw new SourceError('cancelled', 'The lookup was cancelled.', this.id);
    if (!/[\p{L}\p{N}]/u.test(query.title)) throw notAsked(this.id, 'the title has no word to search for');
    await this.openOnce();
    // Without a host to build it, the first search does, and waits.
    if (this.index === undefined && this.failure === undefined && !this.building) await this.prepare().catch(() => undefined);
    if (this.failure) throw this.failure;
    const index = this.index;
    if (index === undefined) {
      throw new SourceError('unavailable', `DBLP's dump ${path.basename(this.settings.file)} is being indexed; DBLP answers once that is done.`, this.id);
    }
    try {
      return index.search(query.title, query.limit ?? DEFAULT_LIMIT).map(dblpRecord);
    } catch (error) {
      if (!(error instanceof DamagedIndex)) throw error;
      // Looked for, and built, again at the next search.
      this.index = undefined;
      this.opening = undefined;
      throw new SourceError('unavailable', `The index of DBLP's dump in ${this.settings.folder} is damaged (${error.message}); it is built again.`, this.id);
    }
  }

  /** Opens the dump's index, building it first where it is missing or of another dump or version. */
  prepare(options: PrepareOptions = {}): Promise<void> {
    this.preparing ??= (async () => {
      await this.openOnce();
      if (this.failure) throw this.failure;
      if (this.index) return;
      this.building = true;
      try {
        this.index = await this.build(options);
      } catch (error) {
        this.failure = failureOf(error, this.settings, options.signal);
        throw this.failure;
      } finally {
        this.building = false;
      }
    })().finally(() => (this.preparing = undefined));
    return this.preparing;
  }

  private openOnce(): Promise<void> {
    this.opening ??= (async () => {
      try {
        this.index = await DblpDumpIndex.open(this.settings.folder, await dumpIdentity(this.settings.file));
      } catch (error) {
        this.failure = failureOf(error, this.settings, undefined);
      }
    })();
    return this.opening;
  }

  private async build({ signal, onProgress }: PrepareOptions): Promise<DblpDumpIndex> {
    const { file, folder } = this.settings;
    const task = `Indexing DBLP's dump ${path.basename(file)}`;
    await buildInThread(file, folder, {
      signal,
      onProgress: (progress) => onProgress?.({ task, fraction: progress.totalBytes > 0 ? progress.bytesRead / progress.totalBytes : 0, records: progress.publications }),
    });
    const index = await DblpDumpIndex.open(folder, await dumpIdentity(file));
    if (index === undefined) throw new DblpDumpError(`The index of DBLP's dump was built in ${folder} but cannot be opened: the dump changed while it was read.`);
    return index;
  }
}

function failureOf(error: unknown, { file, folder }: DblpDumpSettings, signal: AbortSignal | undefined): SourceError {
  if (signal?.aborted) {
    return new SourceError('unavailable', `Indexing DBLP's dump ${file} was cancelled; it is indexed when Attest's settings change or it starts again.`, 'dblp');
  }
  if (error instanceof DblpDumpError) return new SourceError('unavailable', error.message, 'dblp');
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new SourceError('unavailable', `DBLP's dump could not be indexed in ${folder} (${code}); check that the folder can be written and has room.`, 'dblp');
}
