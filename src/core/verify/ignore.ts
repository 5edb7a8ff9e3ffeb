import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { UnreadableFileError } from '../text/decode';
import { readTextFile } from '../text/readFile';

/** One verdict the user judged wrong: a citation of `key` in the sentence with this text. */
export interface IgnoredVerdict {
  readonly key: string;
  /** SHA-256 of the claim's text: editing the sentence brings the verdict back, moving it does not. */
  readonly claim: string;
  /** The sentence as it was, for a person reading the file. */
  readonly text: string;
  /** What is ignored: absent for the support verdict, `retraction` for a work cited knowing it was retracted (or under concern, corrected, withdrawn). */
  readonly about?: IgnoredAbout;
  /** Why the writer cites it all the same, kept for whoever reads the manuscript's ignore list. */
  readonly reason?: string;
}

export type IgnoredAbout = 'retraction';

/** What identifies a verdict: the cited key and the sentence citing it. */
export interface VerdictSubject {
  readonly key: string;
  readonly claim?: { readonly text: string };
}

/** The file: entries that are not verdicts, and fields beside `version` and `ignored`, are the user's and kept. */
interface IgnoreFile {
  readonly version: 1;
  readonly ignored: unknown[];
}

/** Where a manuscript's ignored verdicts live, beside it, so that the editor and the CLI share them. */
export function ignoreFileFor(root: string): string {
  return path.join(path.dirname(root), '.attest', 'ignore.json');
}

/** Far more than any list of ignored verdicts a person could make. */
const MAX_IGNORE_FILE_BYTES = 16 * 1024 * 1024;

/** The ignore list exists but cannot be used; the file is left as it is for the user to repair. */
export class IgnoreFileError extends Error {
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(`${file} ${why}; fix or delete it (it lists the verdicts you chose to ignore).`);
    this.name = 'IgnoreFileError';
  }
}

export class IgnoreList {
  /** `claimHash + key` of every entry: the hash has a fixed length, so the pair is unambiguous. */
  private readonly subjects: Set<string>;

  private constructor(
    readonly file: string,
    /** The file as the user has it, fields and entries Attest does not know included, so that adding keeps them. */
    private readonly content: IgnoreFile,
  ) {
    this.subjects = new Set(content.ignored.filter(isIgnoredVerdict).map((e) => subjectOf(e.key, e.claim, e.about)));
  }

  /** Reads the list; a missing file is an empty list, a damaged one an `IgnoreFileError` naming the file. */
  static async load(file: string): Promise<IgnoreList> {
    let text: string | undefined;
    try {
      text = (await readTextFile(file, MAX_IGNORE_FILE_BYTES))?.text;
    } catch (error) {
      if (error instanceof UnreadableFileError) throw new IgnoreFileError(file, `cannot be read (${error.message})`);
      throw error;
    }
    if (text === undefined) return new IgnoreList(file, { version: 1, ignored: [] });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new IgnoreFileError(file, `is not valid JSON (${(error as Error).message})`);
    }
    if (!isIgnoreFile(parsed)) throw new IgnoreFileError(file, 'is not an Attest ignore list (a JSON object with "version": 1 and an "ignored" array)');
    return new IgnoreList(file, parsed);
  }

  /** Whether the citation's support verdict is ignored, or with `about`, what it says of the work's retraction. */
  has(citation: VerdictSubject, about?: IgnoredAbout): boolean {
    return citation.claim !== undefined && this.subjects.has(subjectOf(citation.key, claimHash(citation.claim.text), about));
  }

  /**
   * Adds a citation's verdict and writes the file atomically (temp file, then rename). A retraction is
   * ignored with the writer's reason, which is kept.
   */
  async add(citation: VerdictSubject, ignore?: { readonly about: IgnoredAbout; readonly reason: string }): Promise<void> {
    if (!citation.claim || this.has(citation, ignore?.about)) return;
    const entry: IgnoredVerdict = { key: citation.key, claim: claimHash(citation.claim.text), text: citation.claim.text, ...ignore };
    this.content.ignored.push(entry);
    this.subjects.add(subjectOf(entry.key, entry.claim, entry.about));
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(temp, `${JSON.stringify(this.content, null, 2)}\n`);
    await fs.rename(temp, this.file);
  }
}

function isIgnoreFile(value: unknown): value is IgnoreFile {
  return typeof value === 'object' && value !== null && (value as IgnoreFile).version === 1 && Array.isArray((value as IgnoreFile).ignored);
}

function isIgnoredVerdict(value: unknown): value is IgnoredVerdict {
  if (typeof value !== 'object' || value === null) return false;
  const { key, claim, about } = value as Record<string, unknown>;
  // An entry about something this version does not know ignores nothing it reports.
  return typeof key === 'string' && typeof claim === 'string' && (about === undefined || about === 'retraction');
}

/** The hash has a fixed length and the prefix a fixed set of values, so the string is unambiguous. */
function subjectOf(key: string, claim: string, about: IgnoredAbout | undefined): string {
  return `${about ?? ''}:${claim}${key}`;
}

function claimHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
