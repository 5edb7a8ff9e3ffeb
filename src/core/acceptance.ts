import type { BibEntry } from './bibliography/types';
import { FINDING_CATEGORIES } from './findingCategories';
import type { Finding, FindingCode } from './findings';
import type { ManuscriptLanguage } from './manuscript/types';

/*
 * Findings the writer accepted in the source, one rule set for the editor and the CLI:
 * `% attest-ignore <code> [reason]` in a LaTeX comment, `<!-- attest-ignore <code> [reason] -->` in
 * Markdown, on the finding's line or alone on the line above it; on a .bib entry, an
 * `attest-ignore = {<code> [reason]; …}` field or a `% attest-ignore …` comment line directly above
 * it, which accepts the code for that key wherever it is reported (the entry and its citations).
 * `.attest/ignore.json` (`verify/ignore.ts`) keeps the verdicts set aside in the editor by sentence;
 * these are written in the files themselves, where co-authors and CI see them.
 */

export const IGNORE_MARK = 'attest-ignore';

export interface Acceptance {
  readonly code: FindingCode;
  /** Why the writer accepts it, as written after the code. */
  readonly reason?: string;
}

/** The acceptances a check's files hold. */
export interface Acceptances {
  /** By file, then 0-based line: the acceptances that hold for findings starting on that line. */
  readonly lines: ReadonlyMap<string, ReadonlyMap<number, readonly Acceptance[]>>;
  /** By key: a .bib entry's, which hold for that key's findings wherever they are. */
  readonly keys: ReadonlyMap<string, readonly Acceptance[]>;
}

export const NO_ACCEPTANCES: Acceptances = { lines: new Map(), keys: new Map() };

/** A finding a writer accepted, kept for reports (the JSON's `accepted`). */
export interface AcceptedFinding {
  readonly finding: Finding;
  readonly reason?: string;
}

/** The acceptance that holds for a finding, if any. */
export function acceptanceOf(finding: Finding, acceptances: Acceptances): Acceptance | undefined {
  const matches = (list: readonly Acceptance[] | undefined): Acceptance | undefined => list?.find((a) => a.code === finding.code);
  return matches(acceptances.lines.get(finding.file)?.get(finding.range.start.line)) ?? (finding.key === undefined ? undefined : matches(acceptances.keys.get(finding.key)));
}

/** A result's findings without those accepted, and those apart. */
export function withoutAccepted<T extends { readonly findings: readonly Finding[]; readonly acceptances?: Acceptances }>(
  result: T,
): T & { readonly accepted: readonly AcceptedFinding[] } {
  const acceptances = result.acceptances ?? NO_ACCEPTANCES;
  const findings: Finding[] = [];
  const accepted: AcceptedFinding[] = [];
  for (const finding of result.findings) {
    const acceptance = acceptanceOf(finding, acceptances);
    if (acceptance) accepted.push({ finding, ...(acceptance.reason !== undefined && { reason: acceptance.reason }) });
    else findings.push(finding);
  }
  return { ...result, findings, accepted };
}

/** Builds `Acceptances` from the texts of a check's manuscript files and bibliographies. */
export class AcceptanceCollector {
  private readonly lines = new Map<string, Map<number, Acceptance[]>>();
  private readonly keys = new Map<string, Acceptance[]>();

  /** A manuscript file's directives, by line. */
  addManuscript(file: string, text: string, language: ManuscriptLanguage): void {
    const byLine = lineDirectives(text, language);
    if (byLine.size > 0) this.lines.set(file, byLine);
  }

  /** A .bib file's directives, by the key of the entry they stand on or above. */
  addBibliography(text: string, entries: readonly BibEntry[]): void {
    const starts = text.includes(IGNORE_MARK) ? lineStartsOf(text) : undefined;
    for (const entry of entries) {
      const found = [...fieldDirectives(entry.attestIgnore), ...(starts ? commentsAbove(text, starts, entry.range.start.line) : [])];
      if (found.length > 0) this.keys.set(entry.key, [...(this.keys.get(entry.key) ?? []), ...found]);
    }
  }

  get acceptances(): Acceptances {
    return { lines: this.lines, keys: this.keys };
  }
}

/**
 * Each line's directives: in a LaTeX comment (after an unescaped `%`) or a Markdown HTML comment; a
 * line holding nothing but the comment holds it for the next line too. Linear: each line's comment
 * start and end are found once, and each directive's text runs at most to the next mark.
 */
function lineDirectives(text: string, language: ManuscriptLanguage): Map<number, Acceptance[]> {
  const byLine = new Map<number, Acceptance[]>();
  const add = (line: number, acceptance: Acceptance): void => {
    byLine.set(line, [...(byLine.get(line) ?? []), acceptance]);
  };
  let line = 0;
  let lineStart = 0;
  let scanned = 0;
  let lineEnd = -1;
  let comment = -1;
  let previousEnd = 0;
  for (let at = text.indexOf(IGNORE_MARK); at !== -1; at = text.indexOf(IGNORE_MARK, at + IGNORE_MARK.length)) {
    for (; scanned < at; scanned++) {
      if (text.charCodeAt(scanned) === 10) {
        line++;
        lineStart = scanned + 1;
      }
    }
    if (lineEnd < at) {
      lineEnd = text.indexOf('\n', at);
      if (lineEnd === -1) lineEnd = text.length;
      comment = language === 'latex' ? commentStart(text, lineStart, at) : -1;
      previousEnd = lineStart;
    }
    const next = text.indexOf(IGNORE_MARK, at + IGNORE_MARK.length);
    const bodyEnd = next !== -1 && next < lineEnd ? next : lineEnd;
    let body = text.slice(at + IGNORE_MARK.length, bodyEnd);
    let alone: boolean;
    if (language === 'latex') {
      if (comment === -1) continue;
      alone = text.slice(lineStart, comment).trim() === '';
    } else {
      const open = text.lastIndexOf('<!--', at);
      const close = body.indexOf('-->');
      if (open < previousEnd || text.slice(open + 4, at).trim() !== '' || close === -1) continue;
      alone = text.slice(lineStart, open).trim() === '' && text.slice(at + IGNORE_MARK.length + close + 3, lineEnd).trim() === '';
      body = body.slice(0, close);
      previousEnd = at + IGNORE_MARK.length + close;
    }
    const acceptance = parseDirective(body.replace(/%+\s*$/, ''));
    if (!acceptance) continue;
    add(line, acceptance);
    if (alone) add(line + 1, acceptance);
  }
  return byLine;
}

/** Where a LaTeX comment starts between `from` and `to`: the first `%` not escaped by an odd run of backslashes; -1 for none. */
function commentStart(text: string, from: number, to: number): number {
  let backslashes = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 && backslashes % 2 === 0) return i;
    backslashes = c === 92 ? backslashes + 1 : 0;
  }
  return -1;
}

/** `<code> [reason]`, after the mark; undefined for a code Attest does not report. */
function parseDirective(body: string): Acceptance | undefined {
  const match = /^\s+([a-z-]+)(?:\s+([^]*))?$/.exec(body.trimEnd());
  if (!match || !Object.hasOwn(FINDING_CATEGORIES, match[1])) return undefined;
  const reason = match[2]?.trim();
  return { code: match[1] as FindingCode, ...(reason && { reason }) };
}

/** The `attest-ignore` field: directives separated by `;`. */
function fieldDirectives(field: string | undefined): Acceptance[] {
  if (field === undefined) return [];
  return field.split(';').flatMap((part) => parseDirective(` ${part.trim()}`) ?? []);
}

/** The `% attest-ignore` lines among the comment lines directly above an entry's first line. */
function commentsAbove(text: string, starts: readonly number[], entryLine: number): Acceptance[] {
  const found: Acceptance[] = [];
  for (let line = entryLine - 1; line >= 0; line--) {
    const content = text.slice(starts[line], line + 1 < starts.length ? starts[line + 1] : text.length).trim();
    if (!content.startsWith('%')) break;
    const at = content.indexOf(IGNORE_MARK);
    const acceptance = at === -1 ? undefined : parseDirective(content.slice(at + IGNORE_MARK.length));
    if (acceptance) found.push(acceptance);
  }
  return found;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Where a quick fix writes a directive, and what: inserted at `line`, `character`. */
export interface DirectiveInsertion {
  readonly line: number;
  readonly character: number;
  readonly text: string;
}

/**
 * The directive accepting a finding, as the writer would type it: at the end of the finding's line
 * in LaTeX (` % attest-ignore CODE`, after a space so the comment joins no words) and Markdown (an
 * inline HTML comment: one on a line of its own would end the paragraph), and in a .bib on a comment
 * line of its own above the entry's line, which BibTeX and biber skip.
 */
export function directiveFor(code: FindingCode, language: ManuscriptLanguage | 'bibtex', line: number, lineText: string): DirectiveInsertion {
  if (language === 'bibtex') return { line, character: 0, text: `% ${IGNORE_MARK} ${code}\n` };
  const end = lineText.trimEnd().length;
  return { line, character: end, text: language === 'markdown' ? ` <!-- ${IGNORE_MARK} ${code} -->` : ` % ${IGNORE_MARK} ${code}` };
}
