import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { KeyCompleter } from '../src/core/completion/citationKeys';
import type { BibEntry } from '../src/core/bibliography/types';
import type { Paper } from '../src/core/papers/paper';
import { ms } from './stats';

const SHARED = path.resolve(__dirname, '../../../shared/data');

/** What a writer types after `\cite{`, keystroke after keystroke: each is one completion query. */
const TYPED = ['vitamin d', 'microrna cancer', 'alzheim', 'stem cel diff', 'covid 2019', 'macroph infl', 'p53'].flatMap((words) =>
  [...words].map((_, i) => words.slice(0, i + 1)).filter((typed) => !typed.endsWith(' ')),
);

/**
 * Citation completion at 5,000 entries (the BEIR SciFact corpus's titles, keys made as writers and
 * reference managers make them: a word, the year, a title word, a letter where two are the same),
 * alone and as 2,500 entries with 2,500 library papers: the
 * index built ahead (as the editor does once a check has parsed the bibliography), then the first
 * search after it and the median and slowest per keystroke, typing seven queries letter by letter
 * (target < 30 ms).
 */
export async function benchCompletion(): Promise<void> {
  const lines = (await fs.readFile(path.join(SHARED, 'beir-scifact/corpus.jsonl'), 'utf8')).split('\n').filter((l) => l.trim());
  const taken = new Set<string>();
  const docs = lines.slice(0, 5000).map((line, i) => {
    const doc = JSON.parse(line) as { _id: string; title: string };
    const [first = 'paper', second = ''] = (doc.title.match(/[A-Za-z]{3,}/g) ?? []).map((w) => w.toLowerCase());
    const year = 2000 + (i % 25);
    const base = `${first}${year}${second}`;
    let key = base;
    for (let n = 0; taken.has(key); n++) key = base + String.fromCharCode(98 + (n % 25)).repeat(1 + Math.floor(n / 25));
    taken.add(key);
    return { id: doc._id, key, title: doc.title, year };
  });
  const entries = docs.map((d): BibEntry => {
    const at = { line: 0, character: 0 };
    return { key: d.key, type: 'article', file: 'refs.bib', range: { start: at, end: at }, keyRange: { start: at, end: at }, title: d.title, authors: [], year: d.year };
  });
  const papers = docs.map((d): Paper => ({ id: `scifact:${d.id}`, title: d.title, authors: [{ family: d.key.replace(/\d+/g, '') }], year: d.year }));
  await measure('5,000 entries', entries, []);
  await measure('2,500 entries + 2,500 library papers', entries.slice(0, 2500), papers.slice(2500));
}

async function measure(what: string, entries: readonly BibEntry[], papers: readonly Paper[]): Promise<void> {
  const completer = new KeyCompleter();
  // The longest the thread is held while the index is built: the gap between two turns of a 1 ms ticker.
  let longest = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await completer.setEntries(entries);
  await completer.addPapers(papers);
  completer.complete('warm searches');
  const built = performance.now() - started;
  clearInterval(ticker);
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const query of TYPED) {
      const t = performance.now();
      completer.complete(query);
      times.push(performance.now() - t);
    }
  }
  // The first query the index answers: "v" lists keys, "vi" is the first search.
  const first = times[1];
  times.sort((a, b) => a - b);
  console.log(
    `  completion, ${what}: index built ahead in ${ms(built)}, holding the thread at most ${ms(longest)}; first search ${ms(first)}, per keystroke median ${ms(times[Math.floor(times.length / 2)])}, ` +
      `max ${ms(times[times.length - 1])} (target < 30 ms)`,
  );
}
