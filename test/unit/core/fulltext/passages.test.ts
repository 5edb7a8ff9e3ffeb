import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { passagesFromJats } from '../../../../src/core/fulltext/jats';
import { passagesFromLatexml } from '../../../../src/core/fulltext/latexml';
import { pickPassages } from '../../../../src/core/fulltext/pick';
import { joinLines, passagesFromPlainText } from '../../../../src/core/fulltext/prose';
import { passagePlace, type Passage } from '../../../../src/core/fulltext/types';

const FIXTURES = path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'fulltext');
const fixture = (name: string): Promise<string> => fs.readFile(path.join(FIXTURES, name), 'utf8');

function passagesOf(result: { passages: Passage[] } | { reason: string }): Passage[] {
  if ('reason' in result) assert.fail(`expected passages, got: ${result.reason}`);
  return result.passages;
}

describe('full texts as sections and passages', () => {
  it('reads a JATS body into passages under their top-level headings, without figures, tables, formulas or citation numbers', async () => {
    const passages = passagesOf(passagesFromJats(await fixture('jats-article.xml')));
    assert.deepEqual(
      passages.map((p) => p.section),
      ['Introduction', 'Materials and methods', 'Results', 'Results', 'Discussion'],
    );
    assert.equal(passages[0].text, 'Influenza causes seasonal epidemics with substantial mortality. Cytokines such as IL-6 have been proposed as markers of severity.');
    assert.equal(passages[2].text, 'Serum IL-6 concentrations were threefold higher in patients who died than in survivors (median 48 vs 16 pg/mL, p < 0.001; Fig 1).');
    const all = passages.map((p) => p.text).join(' ');
    for (const left of ['Box plots', 'Baseline characteristics', 'Taubenberger', 'We thank', 'We measured']) assert.ok(!all.includes(left), left);
  });

  it('gives a reason for JATS without a body, and for text that is no JATS', async () => {
    assert.deepEqual(passagesFromJats(await fixture('jats-front-only.xml')), { reason: 'the JATS full text has no body (only the front matter is open)' });
    assert.ok('reason' in passagesFromJats('<html><body>not found</body></html>'.replace('<html>', '<x>')));
    assert.ok('reason' in passagesFromJats('\u0000\u0001 binary junk <<<'));
  });

  it('reads LaTeXML HTML by section, with formulas as their TeX and without tags, footnotes, tables, abstract or references', async () => {
    const passages = passagesOf(passagesFromLatexml(await fixture('latexml-paper.html')));
    assert.deepEqual(
      passages.map((p) => p.section),
      ['Introduction', 'Experiments'],
    );
    assert.equal(passages[0].text, 'Transformers scale quadratically with sequence length.');
    assert.equal(passages[1].text, 'On the Long Range Arena our model reaches an accuracy of 61.4\\% while using four times less memory than full attention.');
  });

  it('gives a reason for HTML without sections or without a LaTeXML document', () => {
    const flat = '<article class="ltx_document"><div class="ltx_para"><p class="ltx_p">One paragraph.</p></div></article>';
    assert.deepEqual(passagesFromLatexml(flat), { reason: 'the arXiv HTML has no sections' });
    assert.deepEqual(passagesFromLatexml('<html><body><p>Page not found</p></body></html>'), { reason: 'the arXiv HTML has no LaTeXML document in it' });
  });

  it('reads plain full text: headings, paragraphs, words hyphenated across lines, and stops at the references', () => {
    const text = [
      'Introduction',
      'Caching is old.',
      '',
      '2. RESULTS',
      'The cache cut median latency by forty per-',
      'cent in the COVID-',
      '19 workload.',
      '',
      'References',
      '1. Smith J. Latency and caching. 2001.',
    ].join('\n');
    const passages = passagesOf(passagesFromPlainText(text));
    assert.deepEqual(passages, [
      { section: 'Introduction', text: 'Caching is old.' },
      { section: 'Results', text: 'The cache cut median latency by forty percent in the COVID- 19 workload.' },
    ]);
  });

  it('keeps a hyphen that belongs to the word', () => {
    assert.equal(joinLines(['a non-', 'Hodgkin lymphoma']), 'a non- Hodgkin lymphoma');
    assert.equal(joinLines(['the regu-', 'lation of']), 'the regulation of');
  });

  it('splits a long paragraph into passages of whole sentences', () => {
    const sentence = 'The treatment group showed a marked improvement in every measured outcome at twelve weeks.';
    const passages = passagesOf(passagesFromPlainText(`Results\n${Array(20).fill(sentence).join(' ')}`));
    assert.ok(passages.length >= 2);
    for (const p of passages) {
      assert.ok(p.text.split(' ').length <= 90);
      assert.ok(p.text.endsWith('weeks.'));
    }
  });

  it("picks the passages that share the claim's terms, best first", async () => {
    const passages = passagesOf(passagesFromJats(await fixture('jats-article.xml')));
    const picked = pickPassages('Serum IL-6 was threefold higher in patients who died', passages, 2);
    assert.equal(picked.length, 2);
    assert.equal(picked[0].section, 'Results');
    assert.ok(picked[0].score >= picked[1].score);
    assert.deepEqual(pickPassages('glacier retreat in the Alps', passages), []);
  });

  it('names where a passage is', () => {
    assert.equal(passagePlace({ section: 'Results', page: 6 }), 'Results, p. 6');
    assert.equal(passagePlace({ section: 'Methods' }), 'Methods');
    assert.equal(passagePlace({ section: '', page: 2 }), 'p. 2');
    assert.equal(passagePlace({ section: '' }), 'full text');
  });
});
