/**
 * DBLP's XML dump as a local source: a generated dump of ATTEST_DBLP_BENCH_RECORDS publications
 * (default 200,000; the real dump has about 7.5 million) in DBLP's format, indexed plain and gzipped,
 * then searched by title. Prints the index's build time, publications a second, the peak resident
 * memory while building, the index's size on disk, the time to open it, and the latency of a title
 * search (p50/p95) with how often the cited publication came first.
 *
 * Titles draw their words from a vocabulary of 100,000 with Zipf's law (a few words in most titles,
 * most words rare, as in DBLP's), authors' names carry dblp.dtd's entities, and one record in ten is
 * a person's home page, which is skipped. The dumps are kept in ATTEST_DBLP_BENCH_DIR (default:
 * attest-dblp-bench in the system's temporary folder) and reused; the index is built afresh each run.
 */
import { createWriteStream, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { DblpDumpSource } from '../src/core/sources/dblpDump/source';
import { ms, median, PeakMemory, percentile, seededRandom } from './stats';

const DEFAULT_RECORDS = 200_000;
const QUERIES = 300;
const VOCABULARY = 100_000;
const COMMON =
  'learning network deep neural model data analysis system graph image detection optimization algorithm efficient robust adaptive distributed secure multi scalable'.split(' ');
const SYLLABLES = 'ka lo mi ne ru sa te vi zo ba de fi gu ho ja ki lu ma no pe qui ra si to'.split(' ');
const GIVEN = ['J&uuml;rgen', 'Andr&eacute;', 'Maria', 'Wei', 'Ji-Hoon', 'Fran&ccedil;ois', 'Ana', 'Olaf', 'Priya', 'S&oslash;ren'];
const FAMILY = ['M&uuml;ller', 'Garc&iacute;a', 'Wang', 'Kim', 'Smith', 'Nakamura', 'Rossi', 'Dubois', 'Kowalski', 'Andersen'];
const VENUES = ['CVPR', 'NeurIPS', 'ICML', 'SIGMOD Conference', 'IEEE Trans. Pattern Anal. Mach. Intell.', 'Commun. ACM', 'CoRR', 'VLDB J.'];

export async function benchDblpDump(): Promise<void> {
  const records = Number(process.env.ATTEST_DBLP_BENCH_RECORDS ?? DEFAULT_RECORDS);
  const root = process.env.ATTEST_DBLP_BENCH_DIR ?? path.join(os.tmpdir(), 'attest-dblp-bench');
  await fs.mkdir(root, { recursive: true });
  const plain = path.join(root, `dblp-${records}.xml`);
  const gzipped = `${plain}.gz`;
  if (!(await exists(plain))) await writeDump(plain, records);
  if (!(await exists(gzipped))) await pipeline((await fs.open(plain)).createReadStream(), createGzip(), createWriteStream(gzipped));
  console.log(`DBLP's dump as a local source: ${records.toLocaleString('en')} generated publications`);
  for (const file of [plain, gzipped]) await benchFile(file, root, records);
}

async function benchFile(file: string, root: string, records: number): Promise<void> {
  const folder = path.join(root, 'index');
  await fs.rm(folder, { recursive: true, force: true });
  const size = (await fs.stat(file)).size;
  const before = process.memoryUsage().rss;
  const memory = new PeakMemory();
  const start = performance.now();
  const cpu = process.cpuUsage();
  await new DblpDumpSource({ file, folder }).prepare();
  const seconds = (performance.now() - start) / 1000;
  const cpuSeconds = process.cpuUsage(cpu).user / 1e6;
  const peak = memory.stop();
  const indexBytes = (await Promise.all((await fs.readdir(folder)).map(async (name) => (await fs.stat(path.join(folder, name))).size))).reduce((a, b) => a + b, 0);
  console.log(
    `  ${path.basename(file)} (${mb(size)}): indexed in ${seconds.toFixed(1)} s (${cpuSeconds.toFixed(1)} s of CPU), ${Math.round(records / seconds).toLocaleString('en')} records/s, peak RSS ${peak} (${mb(before)} before), index ${mb(indexBytes)}`,
  );

  const openStart = performance.now();
  const source = new DblpDumpSource({ file, folder });
  await source.prepare();
  const openMs = performance.now() - openStart;
  const times: number[] = [];
  let first = 0;
  for (let q = 0; q < QUERIES; q++) {
    const doc = (q * 7919) % records;
    if (isPersonPage(doc)) continue;
    const started = performance.now();
    const found = await source.search({ title: titleOf(doc) });
    times.push(performance.now() - started);
    if (found[0]?.id === keyOf(doc)) first++;
  }
  console.log(`    open ${ms(openMs)}; title search p50 ${ms(median(times))}, p95 ${ms(percentile(times, 95))}; the cited publication first for ${first}/${times.length}`);
}

async function writeDump(file: string, records: number): Promise<void> {
  const out = createWriteStream(file, { encoding: 'latin1' });
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  await write('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE dblp SYSTEM "dblp.dtd">\n<dblp>\n');
  for (let doc = 0; doc < records; doc++) await write(recordOf(doc));
  await write('</dblp>\n');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

function recordOf(doc: number): string {
  const random = seededRandom(doc);
  if (isPersonPage(doc)) return `<www mdate="2024-01-01" key="homepages/${doc}"><author>${name(random)}</author><title>Home Page</title></www>\n`;
  const authors = Array.from({ length: 1 + Math.floor(random() * 5) }, () => `<author>${name(random)}</author>`).join('\n');
  const venue = VENUES[Math.floor(random() * VENUES.length)];
  const kind = venue.includes('.') || venue === 'CoRR' ? 'article' : 'inproceedings';
  const venueTag = kind === 'article' ? 'journal' : 'booktitle';
  const ee = random() < 0.7 ? `<ee>https://doi.org/10.1000/bench.${doc}</ee>\n` : '';
  return `<${kind} mdate="2024-01-01" key="${keyOf(doc)}">\n${authors}\n<title>${titleOf(doc)}.</title>\n<year>${1990 + (doc % 35)}</year>\n<${venueTag}>${venue}</${venueTag}>\n${ee}</${kind}>\n`;
}

function isPersonPage(doc: number): boolean {
  return doc % 10 === 9;
}

function keyOf(doc: number): string {
  return `conf/bench/P${doc}`;
}

/** Publication `doc`'s title: 6 to 12 words, the common ones often, the rest by Zipf's law. */
function titleOf(doc: number): string {
  const random = seededRandom(doc * 2 + 1);
  const words = Array.from({ length: 6 + Math.floor(random() * 7) }, () => (random() < 0.3 ? COMMON[Math.floor(random() * COMMON.length)] : rareWord(random)));
  return words.join(' ').replace(/^./, (c) => c.toUpperCase());
}

function rareWord(random: () => number): string {
  let rank = Math.floor(Math.exp(random() * Math.log(VOCABULARY)));
  let word = '';
  do {
    word += SYLLABLES[rank % SYLLABLES.length];
    rank = Math.floor(rank / SYLLABLES.length);
  } while (rank > 0);
  return word;
}

function name(random: () => number): string {
  return `${GIVEN[Math.floor(random() * GIVEN.length)]} ${FAMILY[Math.floor(random() * FAMILY.length)]}`;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

if (require.main === module) {
  benchDblpDump().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
