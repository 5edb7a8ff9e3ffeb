import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { DEFAULT_PDF_LIMITS, readPdf } from '../src/core/fulltext/pdf';
import { PassagePicker, pickPassages } from '../src/core/fulltext/pick';
import type { Passage } from '../src/core/fulltext/types';
import { cleanClaim } from './claims';
import { PeakMemory } from './stats';

const DATA = process.env.ATTEST_EVAL_DATA ?? path.resolve(__dirname, '../../../shared/data');
/** Other papers' passages put beside the cited one's: about the paragraphs of one long paper. */
const OTHER_PAPERS = 14;

interface Row {
  readonly claim: string;
  readonly doc: string;
  /** Indices of the cited document's passages annotated as the evidence. */
  readonly evidence: ReadonlySet<number>;
}

/**
 * Passage picking on Citation-Integrity dev: each citing sentence's cited passages are mixed with
 * those of other papers into one "full text", and the picker should keep an annotated evidence
 * passage in its top 3 (what is judged) or top 5. Then the cost of picking for many claims citing one
 * long paper, with its index built once or (as before) for each claim. Then PDF reading speed and
 * memory on generated two-column papers.
 */
export async function benchFullText(): Promise<void> {
  const data = await citationIntegrity();
  if (data) {
    await passagePicking(data);
    oneCitedPaper(data);
  }
  await pdfSpeed(30);
  await pdfSpeed(300);
}

interface CitationIntegrity {
  /** Each document's sentences, by id. */
  readonly docs: Map<string, string[]>;
  readonly rows: Row[];
}

async function citationIntegrity(): Promise<CitationIntegrity | undefined> {
  const dir = path.join(DATA, 'citation-integrity', 'processed');
  let corpusText: string;
  let claimsText: string;
  try {
    [corpusText, claimsText] = await Promise.all([fs.readFile(path.join(dir, 'corpus.jsonl'), 'utf8'), fs.readFile(path.join(dir, 'claims_dev.jsonl'), 'utf8')]);
  } catch {
    console.log(`  passage picking: skipped, no Citation-Integrity data in ${dir} (set ATTEST_EVAL_DATA)`);
    return undefined;
  }
  const docs = new Map<string, string[]>();
  for (const line of corpusText.split('\n')) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as { doc_id: number; abstract: string[] };
    docs.set(String(doc.doc_id), doc.abstract);
  }
  const rows: Row[] = [];
  for (const line of claimsText.split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as { claim: string; evidence: Record<string, { sentences: number[] }[]> };
    const claim = cleanClaim(row.claim);
    for (const [doc, sets] of Object.entries(row.evidence)) {
      const evidence = new Set(sets.flatMap((s) => s.sentences));
      if (docs.has(doc) && evidence.size > 0) rows.push({ claim, doc, evidence });
    }
  }
  return { docs, rows };
}

async function passagePicking({ docs, rows }: CitationIntegrity): Promise<void> {
  const ids = [...docs.keys()];
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const hits = { 1: 0, 3: 0, 5: 0 };
  const chance = { 3: 0, 5: 0 };
  let passages = 0;
  const started = performance.now();
  for (const row of rows) {
    const fullText: (Passage & { evidence: boolean })[] = (docs.get(row.doc) ?? []).map((text, i) => ({ section: 'cited', text, evidence: row.evidence.has(i) }));
    for (let n = 0; n < OTHER_PAPERS; n++) {
      const other = ids[Math.floor(random() * ids.length)];
      if (other === row.doc) continue;
      for (const text of docs.get(other) ?? []) fullText.push({ section: 'other', text, evidence: false });
    }
    passages += fullText.length;
    const picked = pickPassages(row.claim, fullText, 5).map((p) => fullText.find((f) => f.text === p.text && f.section === p.section));
    for (const k of [1, 3, 5] as const) if (picked.slice(0, k).some((p) => p?.evidence)) hits[k]++;
    const evidenceCount = fullText.filter((p) => p.evidence).length;
    for (const k of [3, 5] as const) chance[k] += 1 - choose(fullText.length - evidenceCount, k) / choose(fullText.length, k);
  }
  const perClaim = (performance.now() - started) / rows.length;
  const pct = (n: number): string => `${((100 * n) / rows.length).toFixed(1)}%`;
  console.log(
    `  passage picking, Citation-Integrity dev: ${rows.length} (claim, cited paper) pairs, ${Math.round(passages / rows.length)} passages each on average: ` +
      `evidence in top 1 ${pct(hits[1])}, top 3 ${pct(hits[3])}, top 5 ${pct(hits[5])} (chance: top 3 ${pct(chance[3])}, top 5 ${pct(chance[5])}); ${perClaim.toFixed(2)} ms per claim`,
  );
}

/** Claims citing one paper in a manuscript: the most of one paper's citations a long review has. */
const CLAIMS_CITING_ONE_PAPER = 200;
/** Passages of one long paper: the paragraphs and sentence groups of a 30-page article. */
const PASSAGES_OF_ONE_PAPER = 600;

/**
 * A manuscript citing one long paper from many claims: each claim's passages picked from one BM25
 * index of the paper, as a check does, against an index built afresh for every claim.
 */
function oneCitedPaper({ docs, rows }: CitationIntegrity): void {
  const passages: Passage[] = [];
  for (const sentences of docs.values()) {
    for (const text of sentences) if (passages.length < PASSAGES_OF_ONE_PAPER) passages.push({ section: 'Results', text });
  }
  const claims = rows.slice(0, CLAIMS_CITING_ONE_PAPER).map((row) => row.claim);
  const time = (pick: (claim: string) => void): number => {
    const started = performance.now();
    for (const claim of claims) pick(claim);
    return performance.now() - started;
  };
  // Warmed up first, so that neither way pays for compiling the code.
  for (const claim of claims.slice(0, 10)) new PassagePicker(passages).pick(claim);
  const perClaim = time((claim) => new PassagePicker(passages).pick(claim));
  const once = time((claim) => pickPassages(claim, passages));
  console.log(
    `  passage picking, ${claims.length} claims citing one paper of ${passages.length} passages: index built once ${once.toFixed(0)} ms ` +
      `(${(once / claims.length).toFixed(2)} ms per claim), built for each claim ${perClaim.toFixed(0)} ms (${(perClaim / claims.length).toFixed(2)} ms per claim), ${(perClaim / once).toFixed(0)}x`,
  );
}

/** n choose k as a float, for the chance of drawing an evidence passage. */
function choose(n: number, k: number): number {
  if (k > n) return 0;
  let result = 1;
  for (let i = 0; i < k; i++) result = (result * (n - i)) / (i + 1);
  return result;
}

const LINE = 'The treatment reduced the primary outcome in every subgroup we exam-';
const NEXT = 'ined, and the effect held after adjustment for age and sex.';

/** A generated two-column paper of `pages` pages, a heading every few columns, a running header and page numbers. */
async function paper(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const headings = ['1. Introduction', '2. Methods', '3. Results', '4. Discussion'];
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Journal of Generated Results ${p + 1} (2024)`, { x: 50, y: 760, size: 8, font });
    page.drawText(String(p + 1), { x: 303, y: 30, size: 8, font });
    for (const x of [50, 320]) {
      let y = 730;
      if (x === 50 && p % 3 === 0) {
        page.drawText(headings[(p / 3) % headings.length], { x, y, size: 10, font });
        y -= 14;
      }
      for (let line = 0; y > 60; line++, y -= 11) {
        if (line % 9 === 8) continue;
        page.drawText(line % 2 === 0 ? LINE.slice(0, 44) : NEXT.slice(0, 44), { x, y, size: 8, font });
      }
    }
  }
  return doc.save();
}

async function pdfSpeed(pages: number): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bench-pdf-'));
  try {
    const file = path.join(dir, `paper-${pages}.pdf`);
    await fs.writeFile(file, await paper(pages));
    const memory = new PeakMemory();
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const result = await readPdf(file, { ...DEFAULT_PDF_LIMITS, timeoutMs: 600_000 });
    const seconds = (performance.now() - started) / 1000;
    const peak = memory.stop();
    const passages = 'fullText' in result ? result.fullText.passages.length : 0;
    console.log(
      `  PDF reading, ${pages} generated two-column pages (${((await fs.stat(file)).size / 1024).toFixed(0)} KB): ${(pages / seconds).toFixed(1)} pages/s (${seconds.toFixed(1)} s, worker start included), ` +
        `${passages} passages, peak RSS ${peak} (${(before / 1024 / 1024).toFixed(0)} MB before)${'reason' in result ? `; ${result.reason}` : ''}`,
    );
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
