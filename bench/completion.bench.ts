import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { KeyCompleter, type KeyCandidate } from '../src/core/completion/citationKeys';
import { ms } from './stats';

const SHARED = path.resolve(__dirname, '../../../shared/data');

/**
 * Citation completion at 5,000 entries (the BEIR SciFact corpus's titles, keys made as writers make
 * them: first title word and a number): time to build the index, and per keystroke (target < 30 ms).
 */
export async function benchCompletion(): Promise<void> {
  const lines = (await fs.readFile(path.join(SHARED, 'beir-scifact/corpus.jsonl'), 'utf8')).split('\n').filter((l) => l.trim());
  const candidates: KeyCandidate[] = lines.slice(0, 5000).map((line, i) => {
    const doc = JSON.parse(line) as { _id: string; title: string };
    const word = (/[A-Za-z]{3,}/.exec(doc.title)?.[0] ?? 'paper').toLowerCase();
    return { key: `${word}${2000 + (i % 25)}${i}`, title: doc.title, authors: '', year: 2000 + (i % 25) };
  });
  const started = performance.now();
  const completer = new KeyCompleter(candidates);
  const built = performance.now() - started;
  const typed = ['a', 'vit', 'vitamin d', 'microrna cancer', 'alzheim', 'stem cel diff', 'covid 2019', ''];
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const query of typed) {
      const t = performance.now();
      completer.complete(query);
      times.push(performance.now() - t);
    }
  }
  times.sort((a, b) => a - b);
  console.log(
    `  completion, ${candidates.length} entries: index built in ${ms(built)}; per keystroke median ${ms(times[Math.floor(times.length / 2)])}, ` +
      `max ${ms(times[times.length - 1])} (target < 30 ms)`,
  );
}
