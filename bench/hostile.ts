/**
 * Hostile inputs for the manuscript and bibliography parsers, and for the readers of full texts: each
 * a pattern repeated to a size, shaped after what makes a scanner or a regular expression go
 * quadratic (long runs, deep nesting, openers never closed); and a PDF that inflates a thousandfold.
 * Shared by the benchmark and the unit tests.
 */
import { createDeflate } from 'node:zlib';
import { PDFDocument, PDFName } from 'pdf-lib';

export interface HostileInput {
  readonly name: string;
  readonly parser: 'latex' | 'markdown' | 'bibtex' | 'ris';
  /** The input of about `size` characters. */
  readonly make: (size: number) => string;
}

function fill(unit: string, size: number): string {
  return unit.repeat(Math.max(1, Math.floor(size / unit.length)));
}

/** `open` n times, then `close` n times: nesting as deep as the size allows. */
function nested(open: string, middle: string, close: string, size: number): string {
  const n = Math.floor((size - middle.length) / (open.length + close.length));
  return open.repeat(n) + middle + close.repeat(n);
}

export const HOSTILE_INPUTS: readonly HostileInput[] = [
  { name: '% !TEX root with a long run of spaces', parser: 'latex', make: (n) => `% !TEX root = a${' '.repeat(n)}b\n` },
  { name: '% !TEX root with a long line', parser: 'latex', make: (n) => `% !TEX root = ${fill('a ', n)}\n` },
  { name: 'one long comment line', parser: 'latex', make: (n) => `%${fill(' !TeX', n)}` },
  { name: 'unclosed \\cite{', parser: 'latex', make: (n) => fill('\\cite{', n) },
  { name: 'unclosed \\citep[', parser: 'latex', make: (n) => fill('\\citep[', n) },
  { name: 'one \\cite with many keys', parser: 'latex', make: (n) => `\\cite{${fill('a,', n)}}` },
  { name: 'nested braces and brackets', parser: 'latex', make: (n) => nested('{[', '', ']}', n) },
  { name: 'unclosed braces then closers', parser: 'latex', make: (n) => fill('{[', n / 2) + fill('}', n / 2) },
  { name: 'unclosed accents', parser: 'latex', make: (n) => fill("\\'{", n) },
  { name: 'unclosed environments', parser: 'latex', make: (n) => fill('\\begin{', n) },
  { name: 'unclosed verbatim', parser: 'latex', make: (n) => fill('\\begin{verbatim}', n) },
  { name: 'unclosed \\verb', parser: 'latex', make: (n) => fill('\\verb|', n) },
  { name: 'unclosed \\iffalse', parser: 'latex', make: (n) => fill('\\iffalse ', n) },
  { name: 'stray dollars', parser: 'latex', make: (n) => fill('a$b ', n) },
  { name: 'display math openers', parser: 'latex', make: (n) => fill('\\[ $$ ', n) },
  { name: 'backslashes', parser: 'latex', make: (n) => fill('\\', n) },
  { name: 'unclosed \\input{', parser: 'latex', make: (n) => fill('\\input{', n) },
  { name: 'unclosed \\bibliography{', parser: 'latex', make: (n) => fill('\\bibliography{', n) },
  { name: 'abbreviations without end', parser: 'latex', make: (n) => fill('e.g. ', n) },
  { name: 'one sentence with no full stop', parser: 'latex', make: (n) => fill('word \\cite{k} ', n) },
  { name: 'blank lines of spaces', parser: 'latex', make: (n) => fill('\n          ', n) },
  { name: 'doubling \\newcommand definitions', parser: 'latex', make: (n) => doublingMacros(Math.floor(n / 30)) },
  { name: 'a long macro used again and again', parser: 'latex', make: (n) => `\\newcommand{\\m}{${fill('word ', 9000)}}\n${fill('\\m ', n)}` },

  { name: 'nested brackets without @', parser: 'markdown', make: (n) => nested('[', 'x', ']', n) },
  { name: 'nested brackets around one @key', parser: 'markdown', make: (n) => nested('[', '@key', ']', n) },
  { name: 'nested brackets around e-mail addresses', parser: 'markdown', make: (n) => nested('[', fill('a@b ', n / 2), ']', n / 2) },
  { name: 'nested links', parser: 'markdown', make: (n) => nested('[', 'x', '](u)', n) },
  { name: 'nested images', parser: 'markdown', make: (n) => nested('![', 'x', '](u)', n) },
  { name: 'unclosed brackets with keys', parser: 'markdown', make: (n) => fill('[@a ', n) },
  { name: 'unclosed code spans', parser: 'markdown', make: (n) => fill('` a ', n) },
  { name: 'backtick runs', parser: 'markdown', make: (n) => fill('`', n) },
  { name: 'unclosed inline math', parser: 'markdown', make: (n) => fill('$a ', n) },
  { name: 'dollars', parser: 'markdown', make: (n) => fill('$', n) },
  { name: 'unclosed raw LaTeX', parser: 'markdown', make: (n) => fill('\\x{', n) },
  { name: 'unclosed images', parser: 'markdown', make: (n) => fill('![', n) },
  { name: 'unclosed HTML comments', parser: 'markdown', make: (n) => fill('<!--', n) },
  { name: 'at-signs', parser: 'markdown', make: (n) => fill('@', n) },
  { name: 'in-text keys with unclosed locators', parser: 'markdown', make: (n) => fill('@a [', n) },
  { name: 'unclosed front matter', parser: 'markdown', make: (n) => `---\n${fill('a: [b\n', n)}` },
  { name: 'front matter of nested flow collections', parser: 'markdown', make: (n) => `---\na: ${nested('[', '', ']', n)}\n---\nText.` },
  { name: 'front matter of nested block sequences', parser: 'markdown', make: (n) => `---\n${fill('- ', n)}x\n---\nText.` },
  { name: 'unclosed fences', parser: 'markdown', make: (n) => fill('```\n', n) },
  { name: 'list and quote markers', parser: 'markdown', make: (n) => fill('> - 1. ', n) },
  { name: 'emphasis markers', parser: 'markdown', make: (n) => fill('*_', n) },
  { name: 'unclosed inline footnotes', parser: 'markdown', make: (n) => fill('^[', n) },
  { name: 'nested inline footnotes', parser: 'markdown', make: (n) => nested('^[', '@k', ']', n) },
  { name: 'nested footnote references', parser: 'markdown', make: (n) => nested('[^', 'x', ']', n) },
  { name: 'footnote definitions', parser: 'markdown', make: (n) => fill('[^1]: a^[b]\n', n) },
  {
    name: 'front matter nested deep behind quoted brackets',
    parser: 'markdown',
    make: (n) => `---\nx: ${fill("[']',", Math.min(n / 2, 60_000))}\n---\n${fill('Text [@k]. ', n / 2)}`,
  },

  { name: 'at-signs', parser: 'bibtex', make: (n) => fill('@', n) },
  { name: 'unclosed entries', parser: 'bibtex', make: (n) => fill('@a{', n) },
  { name: 'one long entry type without a brace', parser: 'bibtex', make: (n) => `@${fill('a', n)}\n@b` },
  { name: 'an entry type then spaces without a brace', parser: 'bibtex', make: (n) => `@article${' '.repeat(n)}x\n` },
  { name: 'entries at line starts, unclosed', parser: 'bibtex', make: (n) => fill('@a{k,\n', n) },
  { name: 'deep braces in a field', parser: 'bibtex', make: (n) => `@article{k, title = ${nested('{', 'x', '}', n)}}` },
  { name: 'unclosed quote', parser: 'bibtex', make: (n) => `@article{k, title = "${fill('{', n)}}` },
  { name: 'many fields', parser: 'bibtex', make: (n) => `@article{k,${fill('a=b,', n)}}` },
  { name: 'a long author list', parser: 'bibtex', make: (n) => `@article{k, author = {${fill('Doe, J. and ', n)}X}}` },
  { name: 'a long concatenation', parser: 'bibtex', make: (n) => `@string{s = "ab"}\n@article{k, title = ${fill('s # ', n)}s}` },
  { name: 'an @string expansion bomb', parser: 'bibtex', make: (n) => bomb(Math.floor(n / 30)) },
  { name: 'a crossref chain', parser: 'bibtex', make: (n) => crossrefChain(Math.floor(n / 40)) },
  { name: 'backslashes in a title', parser: 'bibtex', make: (n) => `@article{k, title = {${fill('\\', n)}}}` },
  { name: 'accents in a title', parser: 'bibtex', make: (n) => `@article{k, title = {${fill("\\'{e}", n)}}}` },
  { name: 'math in a title', parser: 'bibtex', make: (n) => `@article{k, title = {${fill('$x^2$ ', n)}}}` },
  { name: 'comments between tokens', parser: 'bibtex', make: (n) => `@article{k, title = ${fill('%\n', n)} {x}}` },

  { name: 'a tag repeated in one record', parser: 'ris', make: (n) => `TY  - JOUR\nTI  - T\n${fill('AU  - Doe, J.\n', n)}ER  - \n` },
  { name: 'an abstract wrapped onto many lines', parser: 'ris', make: (n) => `TY  - JOUR\nTI  - T\nAB  - Start\n${fill('more words\n', n)}ER  - \n` },
];

/** A full text as a service sends it, for the reader of its format. */
export interface HostileFullText {
  readonly name: string;
  /** Europe PMC's JATS, arXiv's LaTeXML HTML, CORE's plain `fullText`. */
  readonly format: 'jats' | 'latexml' | 'plain';
  readonly make: (size: number) => string;
}

const JATS_SECTION = (content: string): string => `<article><body><sec><title>Results</title><p>${content}</p></sec></body></article>`;
const LATEXML_SECTION = (content: string): string =>
  `<article class="ltx_document"><section class="ltx_section"><h2 class="ltx_title">1 Results</h2><p class="ltx_p">${content}</p></section></article>`;

export const HOSTILE_FULL_TEXTS: readonly HostileFullText[] = [
  { name: 'nested <i>', format: 'jats', make: (n) => JATS_SECTION(nested('<i>', 'x', '</i>', n)) },
  { name: 'unclosed <italic>', format: 'jats', make: (n) => JATS_SECTION(fill('<italic>a ', n)) },
  { name: 'stray end tags under nesting', format: 'jats', make: (n) => JATS_SECTION(`${'<b>'.repeat(200)}${fill('</i>', n)}`) },
  { name: 'nested <span>', format: 'latexml', make: (n) => LATEXML_SECTION(nested('<span>', 'x', '</span>', n)) },
  { name: 'unclosed <div>', format: 'latexml', make: (n) => LATEXML_SECTION(fill('<div>a ', n)) },
  { name: 'stray end tags under nesting', format: 'latexml', make: (n) => LATEXML_SECTION(`${'<span>'.repeat(200)}${fill('</b>', n)}`) },
  { name: 'one paragraph of short lines', format: 'plain', make: (n) => fill('a few words\n', n) },
  { name: 'one paragraph of hyphenated lines', format: 'plain', make: (n) => fill('the regu-\n', n) },
];

/** A page whose content stream inflates to `inflatedBytes` zero bytes (pdf.js reads zeros as spaces): a Flate bomb, a thousand times smaller than it inflates. */
export async function makeFlateBomb(inflatedBytes: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const compressed = await deflatedZeros(inflatedBytes);
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(compressed, { Filter: 'FlateDecode' })));
  return doc.save();
}

/** Deflated zero bytes, a megabyte at a time: a bomb of gigabytes is never whole in memory here. */
async function deflatedZeros(bytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 1 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const megabyte = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= megabyte.length) {
    if (!deflate.write(megabyte.subarray(0, Math.min(left, megabyte.length)))) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  return Buffer.concat(chunks);
}

function bomb(levels: number): string {
  let text = '@string{s0 = "ab"}\n';
  for (let i = 1; i <= levels; i++) text += `@string{s${i} = s${i - 1} # s${i - 1}}\n`;
  return `${text}@article{k, title = s${levels}}\n`;
}

function crossrefChain(entries: number): string {
  const lines = ['@proceedings{e0, title = {Root}}'];
  for (let i = 1; i < entries; i++) lines.push(`@inproceedings{e${i}, crossref = {e${i - 1}}}`);
  return lines.join('\n');
}

/** Each macro prints the one before it twice: 2^levels copies of the first, unbounded. */
function doublingMacros(levels: number): string {
  let text = '\\newcommand{\\ma}{lol}\n';
  let previous = 'ma';
  for (let i = 1; i <= levels; i++) {
    const name = `m${i.toString(26).replace(/./g, (digit) => String.fromCharCode(0x61 + parseInt(digit, 26)))}z`;
    text += `\\newcommand{\\${name}}{\\${previous}\\${previous}}\n`;
    previous = name;
  }
  return `${text}It is known \\${previous} that X holds \\cite{k}.\n`;
}
