import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Log } from 'sarif';
import { parseBibliography } from '../../../src/core/bibliography/parse';
import { categoryOf, FINDING_CATEGORIES } from '../../../src/core/findingCategories';
import type { Finding, FindingCode } from '../../../src/core/findings';
import { compareEntryToRecord } from '../../../src/core/verify/match';
import { referenceFindings } from '../../../src/core/verify/references';
import { formatSarif } from '../../../src/cli/sarif';
import { REPO_ROOT } from '../support/helpers';
import { RESNET } from '../support/records';

/** The metadata-mismatch finding of an entry against RESNET, found by its DOI. */
function mismatchOf(fields: string): Finding {
  const [entry] = parseBibliography(
    `@inproceedings{he2016, title={Deep Residual Learning for Image Recognition}, booktitle={CVPR}, doi={10.1109/cvpr.2016.90}, ${fields}}`,
    '/p/refs.bib',
  ).entries;
  const { differences } = compareEntryToRecord(entry, RESNET);
  const verdict = { status: 'metadata-mismatch' as const, record: RESNET, via: 'doi' as const, differences };
  const [finding] = referenceFindings(new Map([[entry.key, { entry, verdict }]]), [], false);
  assert.equal(finding?.code, 'metadata-mismatch');
  return finding;
}

describe("findings' categories under the conferences' rules", () => {
  it('calls a real work with a wrong year an error to report, and one with authors mostly not its own hallucinated', () => {
    assert.equal(categoryOf(mismatchOf('author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian}, year={2012}')), 'error-to-report');
    assert.equal(
      categoryOf(mismatchOf('author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian and Doe, Jane}, year={2016}')),
      'error-to-report',
      'one name too many is an error',
    );
    assert.equal(categoryOf(mismatchOf('author={He, Kaiming and Smith, Alex and Jones, Bea and Brown, Carl}, year={2016}')), 'hallucinated');
  });

  it("says each code's category in the README's findings table as the code does", async () => {
    const readme = await fs.readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const rows = new Map([...readme.matchAll(/^\| `([a-z-]+)` \| [^|]+ \| ([^|]+) \|/gm)].map((m) => [m[1], m[2].trim()]));
    const words = { hallucinated: /^hallucinated$/, 'error-to-report': /^error to report$/, 'by-fields': /^hallucinated \(.*\) or error to report$/, neither: /^—$/ };
    for (const [code, category] of Object.entries(FINDING_CATEGORIES)) {
      assert.match(rows.get(code) ?? '(no row)', words[category], code);
    }
  });

  it('gives SARIF rules their category as a property and a tag, and each result its own', () => {
    const finding = mismatchOf('author={He, Kaiming and Smith, Alex and Jones, Bea and Brown, Carl}, year={2016}');
    const log = JSON.parse(formatSarif([{ root: '/p/main.tex', bibliographies: [], citations: [], findings: [finding] }], '/p', '0.0.0')) as Log;
    const rules = new Map((log.runs[0].tool.driver.rules ?? []).map((r) => [r.id as FindingCode, r.properties]));
    assert.deepEqual(rules.get('doi-title-conflict'), { category: 'hallucinated', tags: ['hallucinated-reference'] });
    assert.deepEqual(rules.get('not-found')?.tags, ['hallucinated-reference']);
    assert.deepEqual(rules.get('suspicious-metadata')?.tags, ['reference-error']);
    assert.deepEqual(rules.get('metadata-mismatch')?.tags, ['hallucinated-reference', 'reference-error']);
    assert.equal(rules.get('missing-key'), undefined);
    assert.equal(log.runs[0].results?.[0].properties?.category, 'hallucinated');
  });
});
