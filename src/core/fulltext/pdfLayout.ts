/**
 * A PDF's text pieces put back into reading order: pieces on one baseline joined into line fragments
 * (split where a column gutter runs between them), running headers, footers and page numbers dropped,
 * two-column pages read left column then right, and paragraph breaks found from the gaps between
 * lines and first-line indents. A paragraph that runs on into the next column or page stays one.
 */
import type { PdfPage, PdfPassages, PdfTextItem } from './pdfProtocol';
import { passagesFromLines, type ProseLine } from './prose';

interface Fragment {
  text: string;
  readonly x0: number;
  x1: number;
  readonly y: number;
  readonly size: number;
}

/** Headers and footers live in the top and bottom margins. */
const MARGIN = 0.1;

/** A page with fewer characters than this has no text layer to speak of: a scan, or only figures. */
const MIN_CHARS_PER_PAGE = 20;

/** A PDF's passages from its pages' text pieces (in the PDF worker: a long paper's lines are many). */
export function passagesOfPdf(pages: readonly PdfPage[]): PdfPassages {
  const characters = pages.reduce((sum, page) => sum + page.items.reduce((n, item) => n + item.text.trim().length, 0), 0);
  if (characters < MIN_CHARS_PER_PAGE * Math.max(1, pages.length)) return { passages: [], hasTextLayer: false };
  const { passages: all } = passagesFromLines(linesOfPdf(pages));
  // Before the first heading stand the title, the authors and their addresses: not what a claim cites.
  const firstSection = all.findIndex((p) => p.section !== '');
  return { passages: firstSection > 0 ? all.slice(firstSection) : all, hasTextLayer: true };
}

/** The lines of a PDF in reading order, with their pages and paragraph breaks. */
export function linesOfPdf(pages: readonly PdfPage[]): ProseLine[] {
  const fragmentsByPage = pages.map((page) => fragmentsOf(page.items));
  const running = runningLines(pages, fragmentsByPage);
  const lines: ProseLine[] = [];
  fragmentsByPage.forEach((fragments, p) => {
    const page = pages[p];
    const body = fragments.filter((f) => !(inMargin(f, page) && (running.has(normalise(f.text)) || isPageNumber(f.text))));
    for (const line of readingOrder(body, page, p + 1)) lines.push(line);
  });
  return lines;
}

/** Pieces on one baseline, joined left to right; a gap wider than a gutter starts a new fragment. */
function fragmentsOf(items: readonly PdfTextItem[]): Fragment[] {
  const sorted = [...items].sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: PdfTextItem[][] = [];
  for (const item of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(row[0].y - item.y) <= Math.max(1, 0.3 * Math.min(row[0].size, item.size))) row.push(item);
    else rows.push([item]);
  }
  const fragments: Fragment[] = [];
  for (const row of rows) {
    row.sort((a, b) => a.x - b.x);
    let current: Fragment | undefined;
    for (const item of row) {
      const gap = current ? item.x - current.x1 : Infinity;
      if (current && gap < 1.5 * item.size) {
        const space = gap > 0.15 * item.size && !current.text.endsWith(' ') && !item.text.startsWith(' ');
        current.text += (space ? ' ' : '') + item.text;
        current.x1 = Math.max(current.x1, item.x + item.width);
      } else {
        current = { text: item.text, x0: item.x, x1: item.x + item.width, y: item.y, size: item.size };
        fragments.push(current);
      }
    }
  }
  return fragments.map((f) => ({ ...f, text: f.text.replace(/\s+/g, ' ').trim() })).filter((f) => f.text !== '');
}

function inMargin(fragment: Fragment, page: PdfPage): boolean {
  return fragment.y > page.height * (1 - MARGIN) || fragment.y < page.height * MARGIN;
}

/** Text as it repeats from page to page: page numbers and years change, the words do not. */
function normalise(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

function isPageNumber(text: string): boolean {
  return /^(page\s*)?[-–]?\s*\d{1,4}\s*[-–]?(\s*(of|\/)\s*\d{1,4})?$/i.test(text.trim());
}

/** Margin lines that recur on at least half the pages (and on two at least): running heads and feet. */
function runningLines(pages: readonly PdfPage[], fragmentsByPage: readonly Fragment[][]): Set<string> {
  const counts = new Map<string, number>();
  fragmentsByPage.forEach((fragments, p) => {
    const seen = new Set(fragments.filter((f) => inMargin(f, pages[p])).map((f) => normalise(f.text)));
    for (const text of seen) counts.set(text, (counts.get(text) ?? 0) + 1);
  });
  const needed = Math.max(2, Math.ceil(pages.length / 2));
  return new Set([...counts].filter(([, n]) => n >= needed).map(([text]) => text));
}

/**
 * A page's fragments in reading order. Top to bottom, a fragment that crosses the page's middle
 * (a title, a wide figure caption) stands alone; the fragments between two such are columns, the
 * left one read before the right.
 */
function readingOrder(fragments: readonly Fragment[], page: PdfPage, number: number): ProseLine[] {
  const middle = page.width / 2;
  const sorted = [...fragments].sort((a, b) => b.y - a.y || a.x0 - b.x0);
  const twoColumns = sorted.filter((f) => f.x1 <= middle + 2).length >= 3 && sorted.filter((f) => f.x0 >= middle - 2).length >= 3;
  const ordered: Fragment[][] = [];
  let band: { left: Fragment[]; right: Fragment[] } | undefined;
  const closeBand = (): void => {
    if (band) ordered.push(band.left, band.right);
    band = undefined;
  };
  for (const fragment of sorted) {
    const wide = !twoColumns || (fragment.x0 < middle - 2 && fragment.x1 > middle + 2);
    if (wide) {
      closeBand();
      ordered.push([fragment]);
    } else {
      band ??= { left: [], right: [] };
      (fragment.x0 < middle ? band.left : band.right).push(fragment);
    }
  }
  closeBand();
  return ordered.flatMap((column) => withBreaks(column, number));
}

/** A column's lines, with a break before a line after a wide gap or with a first-line indent. */
function withBreaks(column: readonly Fragment[], page: number): ProseLine[] {
  if (column.length === 0) return [];
  const gaps = column
    .slice(1)
    .map((f, i) => column[i].y - f.y)
    .filter((g) => g > 0)
    .sort((a, b) => a - b);
  const spacing = gaps.length > 0 ? gaps[Math.floor(gaps.length / 2)] : column[0].size * 1.2;
  const left = column.reduce((min, f) => Math.min(min, f.x0), Infinity);
  return column.map((f, i) => {
    const gap = i === 0 ? 0 : column[i - 1].y - f.y;
    const indented = f.x0 - left > 0.8 * f.size && f.x0 - left < 4 * f.size;
    return { text: f.text, page, breakBefore: gap > 1.5 * spacing || indented };
  });
}
