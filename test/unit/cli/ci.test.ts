import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type { Log } from 'sarif';
import { FIXTURES, REPO_ROOT } from '../support/helpers';
import { attest } from '../support/cli';
import { makeTempDir } from '../support/tempDir';

// The CLI as a paper repository's CI runs it: whole folders, SARIF for code scanning, help and
// versions that scripts rely on, and exit 2 for input it cannot read.

interface Report {
  file: string;
  findings: { code: string; severity: string; file: string; line: number; column: number; endLine: number; endColumn: number; message: string }[];
}

const MANUSCRIPTS = path.join(FIXTURES, 'manuscripts');
const EXAMPLE = path.join(REPO_ROOT, 'examples/paper.tex');

/** The SARIF 2.1.0 schema as OASIS published it, from the npm package Microsoft's SARIF SDK ships it in. */
function sarifValidator(): (log: unknown) => string[] {
  const schema = JSON.parse(readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;
  // The schema's language pattern is not valid as a Unicode regular expression.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (log) => (validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`));
}

describe('attest check in CI', () => {
  let cache: string;
  let remove: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: cache, remove } = await makeTempDir());
  });
  afterEach(() => remove());

  describe('a folder', () => {
    it('checks every root manuscript under it once, not the files they include', async () => {
      const run = await attest('check', MANUSCRIPTS, '--format', 'json', '--offline', '--cache', cache);
      const report = JSON.parse(run.out) as { folder: string; manuscripts: Report[] };
      assert.equal(report.folder, MANUSCRIPTS);
      assert.deepEqual(
        report.manuscripts.map((m) => path.relative(MANUSCRIPTS, m.file)),
        ['astro_celerite/paper/ms.tex', 'control_dynonet/doc/paper/ms.tex', 'md_joss_gmr/paper/paper.md'],
      );
      // control_dynonet's ms.bib has an entry that does not parse.
      assert.equal(run.code, 1);
      const text = await attest('check', MANUSCRIPTS, '--offline', '--cache', cache);
      assert.equal(text.out.split('\n').filter((l) => /: \d+ citations of \d+ keys/.test(l)).length, 3);
    });

    it('takes a chapter with a TeX root comment or an \\input as part of its document', async () => {
      await fs.mkdir(path.join(cache, 'paper/chapters'), { recursive: true });
      await fs.writeFile(path.join(cache, 'paper/main.tex'), '\\documentclass{article}\n\\begin{document}\n\\input{chapters/one}\n\\bibliography{refs}\n\\end{document}\n');
      await fs.writeFile(path.join(cache, 'paper/chapters/one.tex'), '% \\documentclass is not here\nKnown \\cite{a}.\n');
      await fs.writeFile(path.join(cache, 'paper/refs.bib'), '@article{a, title={A}, year={2020}}\n');
      await fs.writeFile(path.join(cache, 'README.md'), 'Mail @someone about it.\n');
      const run = await attest('check', path.join(cache, 'paper'), '--format', 'json', '--offline', '--cache', cache);
      const report = JSON.parse(run.out) as { manuscripts: Report[] };
      assert.deepEqual(
        report.manuscripts.map((m) => path.basename(m.file)),
        ['main.tex'],
      );
      assert.equal(run.code, 0, run.out);
    });

    it('exits 2 when the folder holds no manuscript', async () => {
      await fs.writeFile(path.join(cache, 'notes.txt'), 'nothing\n');
      const run = await attest('check', cache, '--offline', '--cache', cache);
      assert.equal(run.code, 2);
      assert.match(run.err, /no manuscript under/);
    });
  });

  describe('SARIF', () => {
    const validate = sarifValidator();

    it('is valid SARIF 2.1.0, one result per finding, located as the JSON report locates it', async () => {
      const json = JSON.parse((await attest('check', EXAMPLE, '--format', 'json', '--offline', '--cache', cache, '--min-severity', 'warning')).out) as Report;
      const run = await attest('check', EXAMPLE, '--format', 'sarif', '--offline', '--cache', cache);
      assert.equal(run.code, 1);
      const log = JSON.parse(run.out) as Log;
      assert.deepEqual(validate(log), []);
      const results = log.runs[0].results ?? [];
      assert.equal(results.length, json.findings.length);
      const missing = results.find((r) => r.ruleId === 'missing-key');
      const finding = json.findings.find((f) => f.code === 'missing-key');
      assert.ok(missing && finding);
      assert.equal(missing.level, 'error');
      const location = missing.locations?.[0]?.physicalLocation;
      // Relative to the working directory, as code scanning resolves it against the repository.
      assert.equal(location?.artifactLocation?.uri, path.relative(process.cwd(), EXAMPLE).split(path.sep).join('/'));
      assert.deepEqual(location?.region, { startLine: finding.line, startColumn: finding.column, endLine: finding.endLine, endColumn: finding.endColumn });
      assert.equal(log.runs[0].tool.driver.rules?.[missing.ruleIndex ?? -1]?.id, 'missing-key');
    });

    it('is valid for a folder too, with notes as SARIF notes when asked for', async () => {
      const log = JSON.parse((await attest('check', MANUSCRIPTS, '--format', 'sarif', '--offline', '--cache', cache, '--min-severity', 'hint')).out) as Log;
      assert.deepEqual(validate(log), []);
      const levels = new Set((log.runs[0].results ?? []).map((r) => r.level));
      assert.deepEqual([...levels].sort(), ['error', 'note', 'warning']);
    });

    it('is caught by the schema when it is not SARIF (so the check above can fail)', () => {
      assert.notDeepEqual(validate({ version: '2.1.0', runs: [{ tool: { driver: {} } }] }), []);
    });
  });

  describe('usage', () => {
    it("prints each command's usage for --help and exits 0", async () => {
      for (const command of ['check', 'verify', 'index', 'search', 'suggest']) {
        const run = await attest(command, '--help');
        assert.equal(run.code, 0, command);
        assert.match(run.out, new RegExp(`^Usage: attest ${command} `), command);
        assert.equal(run.err, '');
      }
    });

    it('says a mistake in one line and where the usage is, instead of under the whole usage', async () => {
      const mistakes = [['check', EXAMPLE, '--format', 'xml'], ['check'], ['verify'], ['index', 'add'], ['search', '--store', 'x'], ['suggest']];
      for (const args of mistakes) {
        const run = await attest(...args);
        assert.equal(run.code, 2, args.join(' '));
        const lines = run.err.trimEnd().split('\n');
        assert.equal(lines.length, 2, `${args.join(' ')}:\n${run.err}`);
        assert.match(lines[0], new RegExp(`^attest ${args[0]}: \\S`));
        assert.equal(lines[1], `Run \`attest help ${args[0]}\` for usage.`);
      }
    });

    it("prints one command's usage for `attest help COMMAND`, and every one's for `attest help`", async () => {
      for (const command of ['check', 'verify', 'index', 'search', 'suggest']) {
        const run = await attest('help', command);
        assert.equal(run.code, 0, command);
        assert.deepEqual(run.out.match(/^Usage: attest \S+/gm), [`Usage: attest ${command}`], command);
      }
      const all = await attest('help');
      assert.equal(all.code, 0);
      assert.deepEqual(all.out.match(/^Usage: attest \S+/gm), [
        'Usage: attest <command>',
        'Usage: attest check',
        'Usage: attest verify',
        'Usage: attest index',
        'Usage: attest search',
        'Usage: attest suggest',
      ]);
      const unknown = await attest('help', 'frobnicate');
      assert.equal(unknown.code, 2);
      assert.match(unknown.err, /^attest help: unknown command 'frobnicate'\n/);
    });

    it('prints the version of package.json for --version', async () => {
      const manifest = JSON.parse(await fs.readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
      const run = await attest('--version');
      assert.deepEqual([run.code, run.out], [0, `${manifest.version}\n`]);
    });

    it('names the option a mistyped one most likely meant', async () => {
      const run = await attest('check', EXAMPLE, '--frmat', 'json');
      assert.equal(run.code, 2);
      assert.match(run.err, /^attest check: unknown option --frmat; did you mean --format\?\n/);
      const far = await attest('check', EXAMPLE, '--xyzzy');
      assert.equal(far.err, 'attest check: unknown option --xyzzy\nRun `attest help check` for usage.\n');
      assert.match((await attest('check', EXAMPLE, '--min-sev', 'error')).err, /did you mean --min-severity\?/);
    });

    it('refuses an unknown severity or format, naming the ones there are', async () => {
      assert.match((await attest('check', EXAMPLE, '--min-severity', 'fatal')).err, /--min-severity must be error, warning, information or hint, not 'fatal'/);
      assert.match((await attest('check', EXAMPLE, '--format', 'xml')).err, /--format must be text, json or sarif/);
    });
  });

  describe('input it cannot read', () => {
    it('exits 2 on a missing --bib file instead of reporting it as a finding', async () => {
      const run = await attest('check', EXAMPLE, '--bib', path.join(cache, 'absent.bib'), '--offline', '--cache', cache);
      assert.equal(run.code, 2);
      assert.match(run.err, /cannot read --bib file .*absent\.bib: no such file/);
      assert.equal(run.out, '');
    });

    it('exits 2 on a --bib that is a folder, and on a missing folder or .bib', async () => {
      assert.match((await attest('check', EXAMPLE, '--bib', cache, '--offline', '--cache', cache)).err, /not a file/);
      for (const absent of ['absent-folder', 'absent.bib']) {
        const run = await attest('check', path.join(cache, absent), '--offline', '--cache', cache);
        assert.equal(run.code, 2, absent);
        assert.match(run.err, /no such file/);
      }
    });

    it('exits 2 on a binary .bib given alone', async () => {
      const file = path.join(cache, 'refs.bib');
      await fs.writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
      const run = await attest('check', file, '--offline', '--cache', cache);
      assert.equal(run.code, 2);
      assert.match(run.err, /binary/);
    });
  });
});
