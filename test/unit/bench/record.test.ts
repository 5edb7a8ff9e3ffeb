import assert from 'node:assert/strict';
import { LAST_RUN_END, LAST_RUN_START, screenText, withLastRun, type RunRecord } from '../../../bench/record';

const run = (output: string): RunRecord => ({
  finished: new Date('2026-11-29T15:04:00Z'),
  minutes: 94.4,
  commit: 'abc1234',
  cores: 2,
  load: [1.25, 2, 3.5],
  output,
});

describe("npm run bench's record in docs/measurements.md", () => {
  it('adds the last run at the end of a document that has none, saying when, where and how loaded', () => {
    const updated = withLastRun('# Measurements\n\nProse.\n', run('lexical p50 0.2 ms\n'));
    assert.ok(updated.startsWith('# Measurements\n\nProse.\n\n' + LAST_RUN_START), updated);
    assert.match(updated, /Finished 2026-11-29 15:04 UTC after 94 minutes, on commit abc1234, 2 cores, load average 1\.3 \/ 2\.0 \/ 3\.5 at the end\./);
    assert.match(updated, /```text\nlexical p50 0\.2 ms\n```\n<!-- End of the last npm run bench\. -->\n$/);
  });

  it('replaces the last run and leaves the prose on both sides as it was', () => {
    const first = withLastRun('# Measurements\n\nProse.\n', run('old figure\n'));
    const document = `${first}\nA note written after it.\n`;
    const updated = withLastRun(document, run('new figure\n'));
    assert.ok(!updated.includes('old figure'));
    assert.ok(updated.includes('new figure'));
    assert.ok(updated.startsWith('# Measurements\n\nProse.\n\n'));
    assert.ok(updated.endsWith(`${LAST_RUN_END}\n\nA note written after it.\n`));
    assert.equal(updated.split(LAST_RUN_START).length, 2, 'one section');
  });

  it('refuses a section whose end marker was lost rather than cut the document short', () => {
    assert.throws(() => withLastRun(`# M\n\n${LAST_RUN_START}\n## The last\n\nProse after.\n`, run('x')), /mend it by hand/);
  });

  it('keeps what a terminal would show of progress lines and colours, and a fence no output can close', () => {
    assert.equal(screenText('  indexed 5,000\r  indexed 55,000\r  grew to 100,000\n\x1b[32mok\x1b[0m\r\n'), '  grew to 100,000\nok');
    const updated = withLastRun('# M\n', run('a ```` fence\n'));
    assert.match(updated, /`````text\na ```` fence\n`````/);
  });
});
