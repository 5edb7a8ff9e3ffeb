import { parseBibliography } from '../src/core/bibliography/parse';
import { HOSTILE_INPUTS } from './hostile';

const MB = 1_000_000;

/** A small deterministic generator, so every run reads the same bibliography. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const TITLE_PARTS = [
  'Schr\\"{o}dinger\'s',
  '$\\alpha$-stable',
  '{GAN}s',
  'for',
  '\\emph{na\\"ive}',
  'data',
  'on',
  'the',
  '{B}ayesian',
  'inference',
  'of',
  '$O(n \\log n)$',
  'algorithms',
  'in',
  "{\\'E}cole",
  "Poincar\\'e",
  'maps',
  '--',
  'a',
  'survey',
  'with',
  '$\\mathcal{L}^2$',
  'norms',
  '\\textit{in vivo}',
  'G{\\"o}del',
  'and',
  'Erd\\H{o}s',
  'graphs',
  '{\\AA}ngstr{\\"o}m-scale',
  'models',
  'of',
  '$H_0$',
  'tension',
  '{DNA}',
  'M\\o{}ller',
  'scattering',
  '\\&',
  'ca{\\c{c}}a',
  'fast',
  '{\\v{S}}koda',
  'learning',
];
const NAMES = [
  "{\\'E}mile Durkheim",
  'M{\\"u}ller, Hans',
  'van der Berg, Jan',
  'Paul Erd\\H{o}s',
  'Smith, John A.',
  "Garc{\\'\\i}a M\\'arquez, Gabriel",
  'Kurt G\\"{o}del',
  'Doe, Jane',
  'Li, Wei',
  "de la Cruz, Mar{\\'\\i}a",
  'Nguyen, Thi',
  'Jean-Pierre Serre',
  '{\\O}ksendal, Bernt',
  'Zhang, San',
  '{World Health Organization}',
];

/**
 * An ordinary bibliography of `size` characters: many entries whose titles and author lists carry
 * accents, math and macros, each entry's text its own (so no conversion is a repeat of another's),
 * as a user's library exported from a reference manager.
 */
export function ordinaryBibliography(size: number, seed = 1): string {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const words = Array.from({ length: 6 + Math.floor(next() * 8) }, () => pick(TITLE_PARTS));
    const authors = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(NAMES));
    const entry = [
      `@article{key${seed}x${i},`,
      `  title = {${words.join(' ')} {${i}}},`,
      `  author = {${authors.join(' and ')}},`,
      `  journal = {Journal of {\\"O}konomie ${i % 97}},`,
      `  year = {${1950 + (i % 75)}},`,
      `  volume = {${i % 300}}, pages = {${i}--${i + 12}},`,
      `  doi = {10.1000/j.${seed}.${i}},`,
      i % 4 === 0 ? `  abstract = {We study ${words.slice(0, 4).join(' ')} and show that $x^2$ grows; see also ${pick(TITLE_PARTS)}.},` : '',
      '}\n',
    ].join('\n');
    parts.push(entry);
    length += entry.length;
  }
  return parts.join('');
}

/** CPU and wall time of `work`, the best of `runs`: what it costs, not what a loaded machine added. */
function best(runs: number, work: (run: number) => void): { cpu: number; wall: number } {
  let cpu = Infinity;
  let wall = Infinity;
  for (let run = 0; run < runs; run++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    work(run);
    wall = Math.min(wall, performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu = Math.min(cpu, (used.user + used.system) / 1000);
  }
  return { cpu, wall };
}

function line(name: string, chars: number, time: { cpu: number; wall: number }): string {
  const perMb = (value: number): string => (value / (chars / MB)).toFixed(0).padStart(5);
  return `  ${name.padEnd(48)} ${perMb(time.cpu)} ms/MB CPU ${perMb(time.wall)} ms/MB wall`;
}

/**
 * Ordinary bibliographies of 1 MB and 10 MB, read the first time (every value new) and again (the
 * editor's case: the file re-read after an edit, its values converted before), and the hostile
 * BibTeX inputs at 1 MB; CPU time, best of 3. `ATTEST_BENCH_BIB=hostile|ordinary` runs one half.
 */
export function benchBibliography(): void {
  const only = process.env.ATTEST_BENCH_BIB;
  console.log('bibliography parsing: ms per MB, CPU and wall, best of 3');
  parseBibliography(ordinaryBibliography(MB / 10, 999), '/warm.bib');
  if (only !== 'hostile') {
    for (const size of [MB, 10 * MB]) {
      const texts = [1, 2, 3].map((seed) => ordinaryBibliography(size, seed + size));
      const entries = parseBibliography(texts[0], '/count.bib').entries.length;
      const label = `ordinary ${size / MB} MB (${entries} entries)`;
      const first = best(3, (run) => parseBibliography(texts[run], '/ordinary.bib'));
      console.log(line(`${label}, first read`, texts[0].length, first));
      const again = best(3, () => parseBibliography(texts[0], '/ordinary.bib'));
      console.log(line(`${label}, read again`, texts[0].length, again));
    }
  }
  if (only !== 'ordinary') {
    for (const input of HOSTILE_INPUTS.filter((i) => i.parser === 'bibtex')) {
      const texts = [MB, MB + 6, MB + 12].map((size) => input.make(size));
      parseBibliography(input.make(10_000), '/warm.bib');
      console.log(
        line(
          `hostile: ${input.name}`,
          texts[0].length,
          best(3, (run) => parseBibliography(texts[run], '/hostile.bib')),
        ),
      );
    }
  }
}

if (require.main === module) benchBibliography();
