import * as path from 'node:path';
import { withLoneCrAsLf } from '../text/lineBreaks';
import { LineIndex } from '../text/positions';
import { isCrossReference, REFERENCE_PLACEHOLDER } from './crossReference';
import { DelimiterIndex } from './delimiters';
import { renderMath } from './math';
import { PlainTextBuilder } from './plainText';
import { packSource, ScannedCitations, unpackSource, type PackedSource } from './packed';
import type { FileReference, FrontMatterProblem, ParsedSource } from './types';

/**
 * A pandoc citation key: starts with a letter, digit or `_`; may contain `:.#$%&-+?<>~/` between
 * word characters, so trailing punctuation ("see @smith2020.") is not part of the key.
 */
const KEY = /(?:\{([^{}\s]+)\}|([\p{L}\p{N}_](?:[\p{L}\p{N}_]|[:.#$%&\-+?<>~/](?=[\p{L}\p{N}_]))*))/uy;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?=\s|$)/;
const LIST_ITEM = /^ {0,3}(?:[*+-]|\d{1,9}[.)])(?=\s)/;
const BLOCK_QUOTE = /^ {0,3}> ?/;
/** A footnote's definition, `[^id]: text`, whose text is a sentence context of its own. */
const FOOTNOTE_DEFINITION = /^ {0,3}\[\^[^\]\s]+\]:[ \t]?/;

/** The YAML reader, loaded when a file first has front matter: the editor starts sooner without it. */
function yaml(): typeof import('yaml') {
  return require('yaml') as typeof import('yaml');
}

/** Parses a Markdown, R Markdown or Quarto file: pandoc citations, YAML `bibliography:`, sentences. */
export function parseMarkdown(text: string, file: string): ParsedSource {
  return unpackSource(packMarkdown(text, file));
}

/** `parseMarkdown`, packed to be sent to another thread. */
export function packMarkdown(text: string, file: string): PackedSource {
  return new MarkdownScanner(withLoneCrAsLf(text), file).scan();
}

class MarkdownScanner {
  private readonly out: PlainTextBuilder;
  private readonly lines: LineIndex;
  private readonly delimiters: DelimiterIndex;
  private readonly dir: string;
  private readonly citations = new ScannedCitations();
  private readonly bibliographies: FileReference[] = [];
  private citesAll = false;
  private frontMatterProblem: FrontMatterProblem | undefined;
  /** Keys that may open a citation in brackets, by the offset of their `@`; found once, on the first bracket. */
  private bracketKeyStarts?: BracketKey[];
  /**
   * Links and images whose text is being scanned, by the offset of their closing `]`: there, the
   * target is skipped (and an image's caption ends). Kept here rather than on the call stack, so that
   * links nested thousands deep cannot overflow it. One mark per offset of the text (`LINK_CLOSE` or
   * `IMAGE_CLOSE`), made when the first link is found: a map of a hundred thousand nested links kept the
   * collector busy.
   */
  private linkCloses?: Uint8Array;
  /** Where a bracketed span's `]` is, and how much from it (the `]` and its attributes) is not prose. */
  private readonly spanCloses = new Map<number, number>();
  /**
   * Inline footnotes (`^[…]`) of the current paragraph, by the span of their text: read when the
   * paragraph ends, as sentences of their own, so the sentence they interrupt reads on whole.
   */
  private readonly footnotes: { readonly from: number; readonly to: number }[] = [];
  /** The last paragraph break found, and from where it was looked for. */
  private paragraphBreak?: { readonly from: number; readonly start: number; readonly end: number };

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {
    this.out = new PlainTextBuilder(text.length);
    this.lines = new LineIndex(text);
    this.delimiters = new DelimiterIndex(text, { latexComments: false });
    this.dir = path.dirname(file);
  }

  scan(): PackedSource {
    const bodyStart = this.frontMatter();
    this.blocks(bodyStart);
    const facts = {
      file: this.file,
      language: 'markdown' as const,
      includes: [],
      bibliographies: this.bibliographies,
      bibitems: [],
      citesAll: this.citesAll,
      macros: new Map<string, string>(),
      undefinedCommands: [],
      ...(this.frontMatterProblem && { frontMatterProblem: this.frontMatterProblem }),
    };
    return packSource(facts, this.out.build(), this.citations, this.lines);
  }

  /** Reads YAML front matter for `bibliography:` and `nocite:`; returns where the body starts. */
  private frontMatter(): number {
    const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(this.text);
    if (!match) return 0;
    const yamlStart = match[0].indexOf('\n') + 1;
    const unreadable = whyYamlUnreadable(match[1]);
    if (unreadable !== undefined) {
      this.frontMatterProblem = { reason: `${unreadable}, so it was not read`, range: this.lines.rangeOf(0, 3) };
      return match[0].length;
    }
    const { isMap, isScalar, parseDocument } = yaml();
    const doc = parseDocument(match[1], { uniqueKeys: false });
    const [error] = doc.errors;
    if (error) this.frontMatterProblem = { reason: `is not valid YAML (${error.message.split('\n')[0]}), which pandoc refuses`, range: this.lines.rangeOf(0, 3) };
    // `bibliography: *refs` names what the anchor `&refs` stands for, as pandoc reads it; its range is the anchor's.
    let targets: Map<unknown, unknown> | undefined;
    const resolved = (node: unknown): unknown => {
      if (!yaml().isAlias(node)) return node;
      targets ??= aliasTargets(doc);
      const target = targets.get(node);
      if (target === undefined)
        this.frontMatterProblem ??= { reason: `is not valid YAML (the alias *${node.source} names no anchor), which pandoc refuses`, range: this.lines.rangeOf(0, 3) };
      return target;
    };
    if (isMap(doc.contents)) {
      this.yamlBibliography(doc.contents.get('bibliography', true), yamlStart, resolved);
      const nocite = resolved(doc.contents.get('nocite', true));
      if (isScalar(nocite) && typeof nocite.value === 'string' && nocite.range) {
        this.nocite(nocite.value, nocite.range[0] + yamlStart);
      }
    }
    return match[0].length;
  }

  private yamlBibliography(value: unknown, offset: number, resolved: (node: unknown) => unknown): void {
    const { isScalar, isSeq } = yaml();
    const node = resolved(value);
    const items: unknown[] = isSeq(node) ? node.items.map(resolved) : [node];
    for (const item of items) {
      if (!isScalar(item) || typeof item.value !== 'string' || !item.range) continue;
      const name = item.value.trim();
      const raw = this.text.slice(item.range[0] + offset, item.range[1] + offset);
      const at = item.range[0] + offset + Math.max(0, raw.indexOf(name));
      this.bibliographies.push({ name, path: path.resolve(this.dir, name), range: this.lines.rangeOf(at, at + name.length) });
    }
  }

  /** `nocite: "@a, @b"` in the front matter; `@*` includes every entry. */
  private nocite(value: string, approximateOffset: number): void {
    for (const match of value.matchAll(/@(\*|[\p{L}\p{N}_][^\s,;]*)/gu)) {
      if (match[1] === '*') this.citesAll = true;
      else {
        const at = this.text.indexOf(match[0], approximateOffset);
        this.citations.push(match[1], 'nocite', at + 1, at + match[0].length, undefined);
      }
    }
  }

  /** Walks the body line by line for block structure; prose lines go to the inline scanner. */
  private blocks(bodyStart: number): void {
    const { text } = this;
    let lineStart = bodyStart;
    let previousBlank = true;
    let inList = false;
    while (lineStart < text.length) {
      const lineEnd = endOfLine(text, lineStart);
      const line = text.slice(lineStart, lineEnd);
      const next = Math.min(lineEnd + 1, text.length);
      if (line.trim().length === 0) {
        this.endParagraph();
        previousBlank = true;
        lineStart = next;
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) {
        this.endParagraph();
        lineStart = this.skipFence(next, fence[1]);
        previousBlank = false;
        continue;
      }
      if (previousBlank && !inList && /^(?: {4}|\t)/.test(line)) {
        // An indented code block: only after a blank line and outside lists, as pandoc reads it.
        lineStart = next;
        continue;
      }
      let contentStart = lineStart;
      // Each prefix starts with a character of its own, so a line has one at most: each is tried once.
      const heading = HEADING.exec(line);
      const quote = heading ? null : BLOCK_QUOTE.exec(line);
      const item = heading || quote ? null : (LIST_ITEM.exec(line) ?? FOOTNOTE_DEFINITION.exec(line));
      const prefix = heading ?? quote ?? item;
      if (prefix) {
        this.endParagraph();
        contentStart += prefix[0].length;
        // A footnote's indented paragraphs, like a list item's, continue it rather than being code.
        if (item) inList = true;
        else if (heading) inList = false;
      } else if (previousBlank && !/^\s/.test(line)) {
        inList = false;
      }
      const continued = this.inline(contentStart, lineEnd);
      if (heading) this.out.breakSentence();
      else this.out.appendSpace(lineEnd);
      previousBlank = false;
      lineStart = continued > next ? continued : next;
    }
    this.endParagraph();
  }

  /** Ends the sentence at a block's end, then reads the block's inline footnotes, each a context of its own. */
  private endParagraph(): void {
    this.out.breakSentence();
    // A footnote inside a footnote joins the queue while it is read.
    for (let n = 0; n < this.footnotes.length; n++) {
      this.inlineRange(this.footnotes[n].from, this.footnotes[n].to);
      this.out.breakSentence();
    }
    this.footnotes.length = 0;
  }

  private skipFence(from: number, marker: string): number {
    const { text } = this;
    const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
    let lineStart = from;
    while (lineStart < text.length) {
      const lineEnd = endOfLine(text, lineStart);
      if (closing.test(text.slice(lineStart, lineEnd))) return Math.min(lineEnd + 1, text.length);
      lineStart = lineEnd + 1;
    }
    return text.length;
  }

  /**
   * Scans inline content from `from` to the end of its line. Returns where scanning stopped when a
   * construct (display math, an HTML comment) ran past the line, so the block walker resumes there.
   */
  private inline(from: number, lineEnd: number): number {
    let i = from;
    let stop = lineEnd;
    while (i < stop) {
      i = this.inlineOne(i);
      if (i > stop) stop = endOfLine(this.text, i);
    }
    return i;
  }

  /** Reads the inline content of a script, whose few characters bound the nesting. */
  private inlineRange(from: number, to: number): void {
    for (let j = from; j < to;) j = this.inlineOne(j);
  }

  /** Reads one inline construct or character at `i`; returns where the next one starts. */
  private inlineOne(i: number): number {
    const { text } = this;
    const ch = text[i];
    switch (ch) {
      case '\\':
        return i + 1 < text.length ? this.escapeOrCommand(i) : i + 1;
      case '`':
        return this.codeSpan(i);
      case '$':
        return this.math(i);
      case '[':
        return this.bracket(i);
      case ']':
        if (this.linkCloses?.[i]) return this.linkEnd(i);
        if (this.spanCloses.has(i)) {
          const skipped = this.spanCloses.get(i) ?? 1;
          this.spanCloses.delete(i);
          return i + skipped;
        }
        break;
      case '@':
        return this.inTextCitation(i);
      case '*':
        return i + 1;
      case '^':
        if (text[i + 1] === '[') return this.inlineFootnote(i);
        return this.script(i);
      case '~':
        return this.script(i);
    }
    if (ch === '{') {
      // A pandoc attribute block (`## Methods {#sec-methods}`, `![x](a.png){#fig-a width=50%}`) is not prose.
      const attributes = ATTRIBUTES.exec(text.slice(i, i + 300));
      if (attributes) return i + attributes[0].length;
    }
    if (ch === '<' && text.startsWith('<!--', i)) {
      const close = text.indexOf('-->', i + 4);
      return close < 0 ? text.length : close + 3;
    }
    if (ch === '!' && text[i + 1] === '[') return this.image(i);
    // `_` marks emphasis only at a word boundary; inside snake_case it is a character.
    if (ch !== '_' || isWordChar(text[i - 1]) === isWordChar(text[i + 1])) this.out.appendChar(ch, i);
    return i + 1;
  }

  private escapeOrCommand(i: number): number {
    const { text } = this;
    const next = text[i + 1];
    if (!/[a-zA-Z]/.test(next)) {
      this.out.appendChar(next, i + 1);
      return i + 2;
    }
    // Raw LaTeX in Markdown (`\autoref{fig:x}`, `\label{…}`) is not prose.
    let j = i + 1;
    while (j < text.length && /[a-zA-Z]/.test(text[j])) j++;
    if (text[j] === '{') {
      const close = this.delimiters.closeOf(j);
      if (close > 0) return close + 1;
    }
    return j;
  }

  private codeSpan(i: number): number {
    const { text } = this;
    let run = 0;
    while (text[i + run] === '`') run++;
    const fence = '`'.repeat(run);
    let search = i + run;
    const paragraphBreak = this.paragraphBreakFrom(i);
    const limit = paragraphBreak.end <= i + MAX_CODE_SPAN ? paragraphBreak.start : i + MAX_CODE_SPAN;
    while (true) {
      const close = text.indexOf(fence, search);
      if (close < 0 || close > limit) {
        this.out.append(fence, i);
        return i + run;
      }
      if (text[close + run] !== '`') return close + run;
      search = close + run;
      while (text[search] === '`') search++;
    }
  }

  /**
   * The first paragraph break (`\n`, blank space, `\n`) at or after `from`. The last one found answers
   * every later question before it, so a line of a hundred thousand backticks does not search its
   * whole paragraph once per backtick.
   */
  private paragraphBreakFrom(from: number): { readonly start: number; readonly end: number } {
    const known = this.paragraphBreak;
    if (known && known.from <= from && from <= known.start) return known;
    PARAGRAPH_BREAK.lastIndex = from;
    const match = PARAGRAPH_BREAK.exec(this.text);
    const found = match ? { from, start: match.index, end: match.index + match[0].length } : { from, start: Infinity, end: Infinity };
    this.paragraphBreak = found;
    return found;
  }

  private math(i: number): number {
    const { text } = this;
    const display = text[i + 1] === '$';
    const delimiter = display ? '$$' : '$';
    const close = text.indexOf(delimiter, i + delimiter.length);
    const body = close < 0 ? '' : text.slice(i + delimiter.length, close);
    // pandoc: inline math may not start or end with a space, and neither may cross a blank line.
    const valid = close >= 0 && !/\n[ \t]*\n/.test(body) && (display || (!/^\s/.test(body) && !/\s$/.test(body)));
    if (!valid) {
      this.out.appendChar('$', i);
      return i + 1;
    }
    if (!display) for (const piece of renderMath(text, i + 1, close)) this.out.appendReplacement(piece.text, piece.offset);
    return close + delimiter.length;
  }

  /**
   * pandoc's `~subscript~` and `^superscript^` (no unescaped spaces inside) read as text: "J~max~" is
   * "Jmax", "10^6^" is "10^6". `~~` is strikeout, whose text stays.
   */
  private script(i: number): number {
    const { text } = this;
    const mark = text[i];
    if (mark === '~' && text[i + 1] === '~') return i + 2;
    // Looking no further than a script can reach keeps a line of stray marks linear.
    const end = SCRIPT_END[mark].exec(text.slice(i + 1, i + 1 + MAX_SCRIPT_LENGTH));
    if (!end || end[0] !== mark || end.index === 0) {
      this.out.appendChar(mark, i);
      return i + 1;
    }
    if (mark === '^') this.out.appendChar('^', i);
    this.inlineRange(i + 1, i + 1 + end.index);
    return i + 2 + end.index;
  }

  /** A bracketed citation group `[see @a, p. 3; -@b]`, or an ordinary bracket or link. */
  private bracket(i: number): number {
    const { text } = this;
    const close = this.delimiters.closeOf(i);
    if (close < 0) {
      this.out.appendChar('[', i);
      return i + 1;
    }
    // A footnote reference `[^1]` prints a mark, not words of the sentence.
    if (text[i + 1] === '^' && isFootnoteLabel(text, i + 2, close)) return close + 1;
    const after = text[close + 1];
    const keys = after === '(' || after === '[' ? [] : this.bracketKeys(i + 1, close);
    if (keys.length > 0) {
      const anchor = this.out.anchor();
      for (const k of keys) if (!isCrossReference(k.key)) this.citations.push(k.key, k.command, k.start, k.end, anchor);
      // `[@fig-a; @fig-b]` prints figure numbers, which are part of the sentence.
      if (keys.some((k) => isCrossReference(k.key))) this.out.appendReplacement(REFERENCE_PLACEHOLDER, i);
      return close + 1;
    }
    const span = after === '{' ? ATTRIBUTES.exec(text.slice(close + 1, close + 301)) : null;
    if (span) {
      // A bracketed span with attributes (`[new]{.smallcaps}`): its text is prose, read on from here; `]` and the attributes are skipped at `close`.
      this.spanCloses.set(close, 1 + span[0].length);
      return i + 1;
    }
    if (after === '(') {
      // A link: its text is prose, read on from here; its target is not, skipped at `close`.
      this.markLinkClose(close, LINK_CLOSE);
      return i + 1;
    }
    this.out.appendChar('[', i);
    return i + 1;
  }

  /**
   * The keys of a bracketed citation group between `from` and `to`. Whether an `@` can start a key
   * does not depend on the bracket around it, so every such `@` of the text is found once and each
   * bracket looks up its own: nested brackets cost a binary search each, not a scan.
   */
  private bracketKeys(from: number, to: number): BracketKey[] {
    const starts = (this.bracketKeyStarts ??= findBracketKeys(this.text));
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (starts[mid].at < from) low = mid + 1;
      else high = mid;
    }
    const found: BracketKey[] = [];
    for (let k = low; k < starts.length && starts[k].at < to; k++) found.push(starts[k]);
    return found;
  }

  /** `^[…]`: its text is read when the paragraph ends; the sentence around it reads on. */
  private inlineFootnote(i: number): number {
    const close = this.delimiters.closeOf(i + 1);
    if (close < 0) return this.script(i);
    this.footnotes.push({ from: i + 2, to: close });
    return close + 1;
  }

  /** An image's alt text is a caption: a sentence context of its own. */
  private image(i: number): number {
    const { text } = this;
    const close = this.delimiters.closeOf(i + 1);
    if (close < 0 || text[close + 1] !== '(') {
      this.out.appendChar('!', i);
      return i + 1;
    }
    this.out.breakSentence();
    this.markLinkClose(close, IMAGE_CLOSE);
    return i + 2;
  }

  private markLinkClose(close: number, mark: number): void {
    (this.linkCloses ??= new Uint8Array(this.text.length))[close] = mark;
  }

  /** The `]` of a link or image whose text was read: skips its target. */
  private linkEnd(close: number): number {
    if (this.linkCloses?.[close] === IMAGE_CLOSE) this.out.breakSentence();
    this.markLinkClose(close, 0);
    const target = this.text.indexOf(')', close);
    return target < 0 ? close + 1 : target + 1;
  }

  /** `@key` in running text, unless it is part of a word such as an e-mail address. */
  private inTextCitation(i: number): number {
    const { text } = this;
    if (isWordChar(text[i - 1]) || JOINS_AT.test(text[i - 1] ?? '')) {
      this.out.appendChar('@', i);
      return i + 1;
    }
    const key = matchKey(text, i + 1);
    if (!key) {
      this.out.appendChar('@', i);
      return i + 1;
    }
    if (isCrossReference(key.key)) {
      this.out.appendReplacement(REFERENCE_PLACEHOLDER, i);
      return key.end;
    }
    // An in-text key is part of its sentence: it attaches where its placeholder starts.
    this.citations.push(key.key, '@', key.start, key.end, this.out.length);
    // The key stands in the sentence as its subject ("@smith2020 showed…"), so the claim keeps a placeholder.
    this.out.appendReplacement('[', i);
    this.out.appendReplacement(key.key, i);
    this.out.appendReplacement(']', i);
    // `@smith2020 [p. 33]`: the locator belongs to the citation.
    return locatorEnd(text, key.end) ?? key.end;
  }
}

/**
 * The YAML library nests by recursion: about a thousand nested collections (`- - - … x`, `[[[…]]]`,
 * 2 KB of text) exhaust the stack, and V8 then aborts the whole process (the extension host, or the
 * CLI) instead of throwing. It has no limit of its own on depth (`maxAliasCount` bounds only the
 * conversion to JavaScript, which is not used here). A manuscript's front matter is a few settings
 * nested a few levels deep; one this large or deep is not read.
 */
const MAX_FRONT_MATTER_CHARS = 64 * 1024;
const MAX_NESTING = 128;
/** Tokens that open a block or compact collection: `- `, `? `, `: `. */
const BLOCK_INDICATORS = new Set(['seq-item-ind', 'explicit-key-ind', 'map-value-ind']);

/**
 * Why front matter is not handed to the YAML library, or undefined when it can be. The depth is
 * counted on the library's own lexer, which is a loop, not a recursion: a `[` or `- ` inside a quoted
 * scalar or a comment is text, so it neither hides a real bracket nor counts as one.
 */
function whyYamlUnreadable(source: string): string | undefined {
  if (source.length > MAX_FRONT_MATTER_CHARS) return `is larger than ${MAX_FRONT_MATTER_CHARS / 1024} KB`;
  const { CST, Lexer } = yaml();
  // A flow collection that a less indented line ends, an error, stays counted: only a closer takes it off.
  let flow = 0;
  let block = 0;
  let lineStart = true;
  for (const token of new Lexer().lex(source)) {
    const type = CST.tokenType(token);
    if (type === 'flow-seq-start' || type === 'flow-map-start') flow++;
    else if ((type === 'flow-seq-end' || type === 'flow-map-end') && flow > 0) flow--;
    else if (type === 'newline') block = 0;
    else if (type === 'space' && lineStart) block = token.length;
    else if (type !== null && BLOCK_INDICATORS.has(type)) block++;
    lineStart = type === 'newline';
    if (flow > MAX_NESTING || block > MAX_NESTING) return `is nested more than ${MAX_NESTING} levels deep`;
  }
  return undefined;
}

/**
 * What each alias of a document stands for: the node of the last anchor of its name before it. The
 * library's `Alias.resolve` walks the document for each alias, so a list of thousands of aliases took
 * quadratic time; this is one walk.
 */
function aliasTargets(doc: import('yaml').Document): Map<unknown, unknown> {
  const { isAlias, visit } = yaml();
  const latest = new Map<string, unknown>();
  const targets = new Map<unknown, unknown>();
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) targets.set(node, latest.get(node.source));
      else if (node.anchor) latest.set(node.anchor, node);
    },
  });
  return targets;
}

interface BracketKey {
  /** The offset of the `@`. */
  readonly at: number;
  readonly key: string;
  readonly command: string;
  readonly start: number;
  readonly end: number;
}

/** Every `@` that starts a key in a citation group: after a space, `;`, `[` or `-`, as pandoc reads them. */
function findBracketKeys(text: string): BracketKey[] {
  const found: BracketKey[] = [];
  for (let j = text.indexOf('@'); j >= 0; j = text.indexOf('@', j + 1)) {
    const suppress = text[j - 1] === '-';
    const lead = suppress ? text[j - 2] : text[j - 1];
    if (!BRACKET_KEY_LEAD.test(lead ?? '')) continue;
    const key = matchKey(text, j + 1);
    if (!key) continue;
    found.push({ at: suppress ? j - 1 : j, key: key.key, command: suppress ? '[-@]' : '[@]', start: key.start, end: key.end });
    j = key.end - 1;
  }
  return found;
}

const ATTRIBUTES = /^\{[#.][^{}\n]*\}/;
const PARAGRAPH_BREAK = /\n[ \t]*\n/g;
/** How far a code span may reach, which keeps a run of unclosed backticks linear. */
const MAX_CODE_SPAN = 20_000;

/** Where a sub- or superscript ends: its closing mark, unless whitespace comes first. */
const SCRIPT_END: Record<string, RegExp> = { '~': /(?<!\\)~|\s/, '^': /(?<!\\)\^|\s/ };
const MAX_SCRIPT_LENGTH = 100;
const LINK_CLOSE = 1;
const IMAGE_CLOSE = 2;
/** How far after an in-text key its locator may reach. */
const MAX_LOCATOR_REACH = 200;
/** A character before `@` that makes it part of a word, as in an e-mail address. */
const JOINS_AT = /[.\-+@]/;
const BRACKET_KEY_LEAD = /[\s;\[]/;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

function matchKey(text: string, at: number): { key: string; start: number; end: number } | undefined {
  KEY.lastIndex = at;
  const match = KEY.exec(text);
  if (!match) return undefined;
  if (match[1] !== undefined) return { key: match[1], start: at + 1, end: at + 1 + match[1].length };
  return { key: match[2], start: at, end: at + match[2].length };
}

/** Whether `from` to `to` is a footnote's label: no spaces or brackets. Stops at the first that is not. */
function isFootnoteLabel(text: string, from: number, to: number): boolean {
  let j = from;
  while (j < to && !/[\s[\]]/.test(text[j])) j++;
  return j === to && to > from;
}

function endOfLine(text: string, from: number): number {
  const at = text.indexOf('\n', from);
  return at < 0 ? text.length : at;
}

/**
 * The end of a locator ` [p. 33]` that starts at `from`: an optional space, then `[…]` without `]`,
 * `@` or a line break inside, not followed by `(` or `[`, all within 200 characters of `from`.
 * Undefined when there is none. Read by hand, as a regular expression would need the text sliced.
 */
function locatorEnd(text: string, from: number): number | undefined {
  const limit = Math.min(text.length, from + MAX_LOCATOR_REACH);
  let j = from;
  if (text.charCodeAt(j) === 0x20) j++;
  if (j >= limit || text.charCodeAt(j) !== 0x5b) return undefined;
  for (j++; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5d) break;
    if (c === 0x40 || c === 0x0a) return undefined;
  }
  if (j >= limit) return undefined;
  const after = j + 1 < limit ? text.charCodeAt(j + 1) : undefined;
  return after === 0x28 || after === 0x5b ? undefined : j + 1;
}

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD_CHAR.test(ch);
}
