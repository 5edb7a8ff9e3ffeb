import type { LineIndex, Range } from '../text/positions';
import { doubled } from '../text/doubled';
import type { PlainText } from './plainText';
import { sentenceIndexAt, sentenceSpans } from './sentences';
import type { Citation, Claim, ParsedSource } from './types';

/** What a scanner found in a file besides its citations and sentences. */
export type SourceFacts = Omit<ParsedSource, 'citations' | 'claims'>;

/**
 * A parsed file as a few strings and typed arrays: what the parser thread sends, its arrays
 * transferred rather than copied. A 10 MB manuscript has hundreds of thousands of citations and
 * sentences; as objects, copying them between threads and collecting them held the receiving thread
 * for seconds. `unpackSource` gives them back as objects that read these arrays when asked.
 */
export interface PackedSource extends SourceFacts {
  /** The file's prose as plain text; each claim is a slice of it. */
  readonly plainText: string;
  /** The source offset of each UTF-16 unit of `plainText`. */
  readonly offsets: Uint32Array;
  /** Per claim: its start and end in `plainText`. */
  readonly claimSpans: Uint32Array;
  /** Per claim: the start line, start character, end line and end character of its source range. */
  readonly claimRanges: Uint32Array;
  /** The distinct keys, which `keyIndexes` name: a manuscript cites a few hundred works many times. */
  readonly keys: readonly string[];
  readonly keyIndexes: Uint32Array;
  /** The distinct commands, which `commandIndexes` name. */
  readonly commands: readonly string[];
  readonly commandIndexes: Uint32Array;
  /** Per citation: the start line, start character, end line and end character of its key. */
  readonly citationRanges: Uint32Array;
  /** Per citation: 1 + the index of its claim, or 0 when it makes none. */
  readonly citationClaims: Uint32Array;
}

/**
 * The citations a scanner finds, kept in columns as it finds them. A file of a megabyte can hold half
 * a million citations; one object each, kept alive until packing, was most of the parse in collection.
 */
export class ScannedCitations {
  private readonly keys = new DistinctValues();
  private readonly commands = new DistinctValues();
  /** Per citation: the source start and end of its key, and 1 + its plain-text anchor (0 when it makes no claim). */
  private spans: Uint32Array = new Uint32Array(3 * 64);
  private size = 0;

  get length(): number {
    return this.size;
  }

  /** `anchor` is the plain-text position that finds the citation's sentence; undefined for citations that make no claim. */
  push(key: string, command: string, start: number, end: number, anchor: number | undefined): void {
    if (3 * this.size === this.spans.length) this.spans = doubled(this.spans);
    this.keys.put(this.size, key);
    this.commands.put(this.size, command);
    this.spans[3 * this.size] = start;
    this.spans[3 * this.size + 1] = end;
    this.spans[3 * this.size + 2] = anchor === undefined ? 0 : anchor + 1;
    this.size++;
  }

  /** The keys of the citations from the `first` on. */
  keysFrom(first: number): string[] {
    const keys: string[] = [];
    for (let i = first; i < this.size; i++) keys.push(this.keys.valueAt(i));
    return keys;
  }

  /** Gives each citation its range and its claim, and packs them. */
  pack(lines: LineIndex, spans: Uint32Array): Pick<PackedSource, 'keys' | 'keyIndexes' | 'commands' | 'commandIndexes' | 'citationRanges' | 'citationClaims'> {
    const citationRanges = new Uint32Array(this.size * 4);
    const citationClaims = new Uint32Array(this.size);
    for (let i = 0; i < this.size; i++) {
      putRange(citationRanges, i, lines, this.spans[3 * i], this.spans[3 * i + 1]);
      const anchor = this.spans[3 * i + 2];
      const claim = anchor === 0 ? undefined : sentenceIndexAt(spans, anchor - 1);
      citationClaims[i] = claim === undefined ? 0 : claim + 1;
    }
    return {
      keys: this.keys.values(),
      keyIndexes: this.keys.indexes(this.size),
      commands: this.commands.values(),
      commandIndexes: this.commands.indexes(this.size),
      citationRanges,
      citationClaims,
    };
  }
}

/** Splits the plain text into claims, gives each scanned citation its range and its claim, and packs it all. */
export function packSource(facts: SourceFacts, plain: PlainText, scanned: ScannedCitations, lines: LineIndex): PackedSource {
  const claimSpans = sentenceSpans(plain);
  const claimRanges = new Uint32Array(claimSpans.length * 2);
  for (let i = 0; i < claimSpans.length / 2; i++) {
    putRange(claimRanges, i, lines, plain.offsets[claimSpans[2 * i]], plain.offsets[claimSpans[2 * i + 1] - 1] + 1);
  }
  return {
    ...facts,
    plainText: plain.text,
    offsets: plain.offsets,
    claimSpans,
    claimRanges,
    ...scanned.pack(lines, claimSpans),
  };
}

/** The buffers a packed file can hand over to another thread instead of copying them. */
export function transferablesOf(packed: PackedSource): ArrayBuffer[] {
  return [packed.offsets, packed.claimSpans, packed.claimRanges, packed.keyIndexes, packed.commandIndexes, packed.citationRanges, packed.citationClaims].map(
    (a) => a.buffer as ArrayBuffer,
  );
}

/**
 * The parsed file. Its claims and citations, an object each, are made from the packed arrays when
 * first read: finding a manuscript's root and files reads only the includes and bibliographies of
 * files whose citations nobody asks for, and a file of a megabyte can hold half a million citations,
 * whose objects cost more to make (the collector copying them) than parsing the file did.
 */
export function unpackSource(packed: PackedSource): ParsedSource {
  const parts = new UnpackedParts(packed);
  return {
    file: packed.file,
    language: packed.language,
    get citations() {
      return parts.citations;
    },
    get claims() {
      return parts.claims;
    },
    includes: packed.includes,
    bibliographies: packed.bibliographies,
    bibitems: packed.bibitems,
    citesAll: packed.citesAll,
    texRoot: packed.texRoot,
    ...(packed.frontMatterProblem && { frontMatterProblem: packed.frontMatterProblem }),
    ...(packed.macroProblems && { macroProblems: packed.macroProblems }),
    macros: packed.macros,
    undefinedCommands: packed.undefinedCommands,
  };
}

/** A packed file's claims and citations, each list made when first asked for; every citation reads its claim here. */
class UnpackedParts {
  #claims?: readonly Claim[];
  #citations?: readonly Citation[];

  constructor(readonly packed: PackedSource) {}

  get claims(): readonly Claim[] {
    if (this.#claims === undefined) {
      const claims: PackedClaim[] = new Array(this.packed.claimSpans.length / 2);
      for (let i = 0; i < claims.length; i++) claims[i] = new PackedClaim(this.packed, i);
      this.#claims = claims;
    }
    return this.#claims;
  }

  get citations(): readonly Citation[] {
    if (this.#citations === undefined) {
      const citations: PackedCitation[] = new Array(this.packed.keyIndexes.length);
      for (let i = 0; i < citations.length; i++) citations[i] = new PackedCitation(this, i);
      this.#citations = citations;
    }
    return this.#citations;
  }
}

/** Strings that repeat, each kept once, and for each item the index of its own. */
class DistinctValues {
  private items: Uint32Array = new Uint32Array(64);
  private readonly index = new Map<string, number>();
  private readonly distinct: string[] = [];

  put(item: number, value: string): void {
    let at = this.index.get(value);
    if (at === undefined) {
      at = this.distinct.length;
      this.index.set(value, at);
      this.distinct.push(value);
    }
    if (item >= this.items.length) this.items = doubled(this.items, item + 1);
    this.items[item] = at;
  }

  valueAt(item: number): string {
    return this.distinct[this.items[item]];
  }

  /** The index of each of the first `count` items' value, in an array of its own to hand to another thread. */
  indexes(count: number): Uint32Array {
    return this.items.slice(0, count);
  }

  values(): readonly string[] {
    return this.distinct;
  }
}

/** Writes the range from source offset `start` to `end` as the `index`th four numbers of `into`. */
function putRange(into: Uint32Array, index: number, lines: LineIndex, start: number, end: number): void {
  lines.writePosition(start, into, 4 * index);
  lines.writePosition(end, into, 4 * index + 2);
}

function rangeAt(from: Uint32Array, index: number): Range {
  return { start: { line: from[4 * index], character: from[4 * index + 1] }, end: { line: from[4 * index + 2], character: from[4 * index + 3] } };
}

/** A sentence whose text is its own, and whose range and offsets are read from the packed arrays when asked. */
class PackedClaim implements Claim {
  readonly text: string;
  readonly #packed: PackedSource;
  readonly #index: number;

  constructor(packed: PackedSource, index: number) {
    this.text = packed.plainText.slice(packed.claimSpans[2 * index], packed.claimSpans[2 * index + 1]);
    this.#packed = packed;
    this.#index = index;
  }

  get range(): Range {
    return rangeAt(this.#packed.claimRanges, this.#index);
  }

  get sourceOffsets(): Uint32Array {
    const spans = this.#packed.claimSpans;
    return this.#packed.offsets.subarray(spans[2 * this.#index], spans[2 * this.#index + 1]);
  }

  /** What `JSON.stringify` writes: the values a reader of the claim sees, which are not all its own properties. */
  toJSON(): { text: string; range: Range } {
    return { text: this.text, range: this.range };
  }
}

/**
 * A citation that reads all it has from the packed file when asked. Two fields, not one per value: a
 * file of a megabyte has half a million citations, and what their objects hold is what the collector
 * copies while they are made.
 */
class PackedCitation implements Citation {
  readonly #source: UnpackedParts;
  readonly #index: number;

  constructor(source: UnpackedParts, index: number) {
    this.#source = source;
    this.#index = index;
  }

  get key(): string {
    const { packed } = this.#source;
    return packed.keys[packed.keyIndexes[this.#index]];
  }

  get command(): string {
    const { packed } = this.#source;
    return packed.commands[packed.commandIndexes[this.#index]];
  }

  get file(): string {
    return this.#source.packed.file;
  }

  get range(): Range {
    return rangeAt(this.#source.packed.citationRanges, this.#index);
  }

  get claim(): Claim | undefined {
    const claim = this.#source.packed.citationClaims[this.#index];
    return claim === 0 ? undefined : this.#source.claims[claim - 1];
  }

  /** What `JSON.stringify` writes: the values a reader of the citation sees, which are not its own properties. */
  toJSON(): Citation {
    return { key: this.key, command: this.command, file: this.file, range: this.range, claim: this.claim };
  }
}
