import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import type { Citation } from '../../../../src/core/manuscript/types';
import { parseArxivFeed } from '../../../../src/core/sources/arxiv';
import { parseCrossrefWork } from '../../../../src/core/sources/crossref';
import { parseEuropePmcResult } from '../../../../src/core/sources/europepmc';
import { parseOpenAlexWork } from '../../../../src/core/sources/openalex';
import { compareTitles } from '../../../../src/core/verify/match';
import { IgnoreList } from '../../../../src/core/verify/ignore';
import { referenceFindings, VerdictCache, verifyEntries } from '../../../../src/core/verify/references';
import type { Finding } from '../../../../src/core/findings';
import { SimulatedSources, updated, type SimulatedWork } from '../../support/retractionWorld';
import { sendJson, sendText } from '../../support/server';
import { makeTempDir } from '../../support/tempDir';

const RETRACTION = { DOI: '10.1016/s0140-6736(20)31324-6', type: 'retraction', label: 'Retraction', source: 'publisher', updated: updated(2020, 6, 5) };
const RETRACTION_WATCH = { ...RETRACTION, source: 'retraction-watch', label: 'Retraction', 'record-id': 31432, updated: updated(2020, 6, 4) };

describe('retraction signals in the sources’ answers', () => {
  it('reads one notice from Crossref’s duplicated publisher and Retraction Watch entries, with its date and link', () => {
    const record = parseCrossrefWork({
      DOI: '10.1016/S0140-6736(20)31180-6',
      title: ['RETRACTED: Hydroxychloroquine or chloroquine with or without a macrolide'],
      'updated-by': [RETRACTION, RETRACTION_WATCH],
    });
    assert.deepEqual(record.updates, {
      notices: [
        {
          type: 'retraction',
          doi: '10.1016/s0140-6736(20)31324-6',
          url: 'https://doi.org/10.1016/s0140-6736(20)31324-6',
          date: '2020-06-05',
          label: 'Retraction',
          source: 'crossref',
        },
      ],
    });
  });

  it('reads every Crossref notice type, both spellings of an expression of concern, and ignores other updates', () => {
    const types = [
      'retraction',
      'partial_retraction',
      'withdrawal',
      'removal',
      'expression_of_concern',
      'expression-of-concern',
      'correction',
      'erratum',
      'corrigendum',
      'new_version',
    ];
    const record = parseCrossrefWork({ DOI: '10.1000/w', title: ['W'], 'updated-by': types.map((type, i) => ({ DOI: `10.1000/n${i}`, type, source: 'publisher' })) });
    assert.deepEqual(
      record.updates?.notices.map((n) => n.type),
      ['retraction', 'partial-retraction', 'withdrawal', 'removal', 'expression-of-concern', 'expression-of-concern', 'correction', 'correction', 'correction'],
    );
  });

  it('takes a Crossref record whose notice points at itself for no notice about it, and says so', () => {
    const selfPointing = { DOI: '10.1155/2023/9780170', type: 'retraction', label: 'Retraction', updated: updated(2023, 10, 11) };
    const record = parseCrossrefWork({ DOI: '10.1155/2023/9780170', title: ['Retracted: Analysis of Sports Training'], 'update-to': [selfPointing], 'updated-by': [selfPointing] });
    assert.deepEqual(record.updates, { notices: [], updatesItself: true });
  });

  it('reads OpenAlex’s is_retracted only when the answer has it', () => {
    const base = { id: 'https://openalex.org/W3034349539', title: 'RETRACTED: Hydroxychloroquine' };
    assert.deepEqual(parseOpenAlexWork({ ...base, is_retracted: true }).updates, { notices: [], retracted: true });
    assert.deepEqual(parseOpenAlexWork({ ...base, is_retracted: false }).updates, { notices: [] });
    assert.equal(parseOpenAlexWork(base).updates, undefined);
  });

  it('reads Europe PMC’s publication types and comment-and-correction links', () => {
    const record = parseEuropePmcResult({
      id: '32450107',
      source: 'MED',
      pmid: '32450107',
      title: 'Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19.',
      pubTypeList: { pubType: ["Research Support, Non-U.S. Gov't", 'Journal Article', 'Retracted Publication'] },
      commentCorrectionList: {
        commentCorrection: [
          { id: '32479773', source: 'MED', reference: 'Lancet. 2020 Jun 13;395(10240):1820', type: 'Expression of concern in', orderIn: 1 },
          { id: '32511943', source: 'MED', reference: 'Lancet. 2020 Jun 13;395(10240):1820', type: 'Retraction in', orderIn: 2 },
          { id: '32511943', source: 'MED', reference: 'Lancet. 2020 Jun 13;395(10240):1820', type: 'Retraction in', orderIn: 3 },
          { id: '32450108', source: 'MED', reference: 'Lancet. 2020;395:1676', type: 'Comment in', orderIn: 4 },
        ],
      },
    });
    assert.equal(record.updates?.retracted, true);
    assert.deepEqual(
      record.updates?.notices.map((n) => [n.type, n.url, n.date]),
      [
        ['expression-of-concern', 'https://europepmc.org/article/MED/32479773', '2020'],
        ['retraction', 'https://europepmc.org/article/MED/32511943', '2020'],
      ],
    );
    const notice = parseEuropePmcResult({
      id: '32511943',
      source: 'MED',
      title: 'Retraction',
      pubTypeList: { pubType: ['Retraction of Publication'] },
      commentCorrectionList: { commentCorrection: [{ id: '32450107', source: 'MED', type: 'Retraction of' }] },
    });
    assert.equal(notice.updates?.isNotice, true);
  });

  it('reads an arXiv comment that withdraws the e-print, and not one that only mentions a withdrawal', () => {
    const feed = (comment: string, pdf: boolean): string =>
      `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"><entry><id>http://arxiv.org/abs/1001.0001v2</id><title>T</title><arxiv:comment>${comment}</arxiv:comment>${pdf ? '<link title="pdf" href="http://arxiv.org/pdf/1001.0001v2"/>' : ''}</entry></feed>`;
    assert.equal(
      parseArxivFeed(feed('This paper has been withdrawn by the author due to a crucial error in equation 2', false))[0].updates?.withdrawn,
      'This paper has been withdrawn by the author due to a crucial error in equation 2',
    );
    assert.equal(parseArxivFeed(feed('Withdrawn', false))[0].updates?.withdrawn, 'Withdrawn');
    assert.equal(parseArxivFeed(feed('12 pages; replaces the withdrawn 0912.0001', true))[0].updates?.withdrawn, undefined);
  });

  it('compares titles without the retraction mark, in plain text or markup', () => {
    const title = 'Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis';
    for (const marked of [`RETRACTED: ${title}`, `RETRACTED ARTICLE: ${title}`, `<i>Retracted:</i> ${title}`, `<jats:italic>RETRACTED</jats:italic>: ${title}`]) {
      assert.equal(compareTitles(title, marked).field.status, 'agree', marked);
    }
    assert.equal(compareTitles(title, `Retraction notice to: ${title}`).field.status, 'differ');
  });
});

const CITED = `@article{mehra2020, title={Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis}, author={Mehra, Mandeep R.}, journal={The Lancet}, year={2020}, doi={10.1016/S0140-6736(20)31180-6}}
@article{partial2019, title={Gene expression in zebrafish fins after amputation injury}, author={Partial, Paula}, journal={Development}, year={2019}, doi={10.1242/dev.1}}
@article{withdrawal2015, title={Catalytic conversion of lignin in ionic liquids}, author={Withdrawer, Will}, journal={Fuel}, year={2015}, doi={10.1016/j.fuel.2015.1}}
@article{removal2012, title={Removed study of soil microbial communities}, author={Removed, Rita}, journal={Soil Biology}, year={2012}, doi={10.1016/j.soil.2012.1}}
@article{concern2021, title={Ivermectin for the treatment of COVID-19 outpatients}, author={Concerned, Carl}, journal={Research Square}, year={2021}, doi={10.21203/rs.3.rs-100956}}
@article{corrected2018, title={Global burden of childhood asthma in low income countries}, author={Corrected, Cora}, journal={Thorax}, year={2018}, doi={10.1136/thorax.2018.1}}
@article{correctedthenretracted2016, title={Stimulus triggered acquisition of pluripotency}, author={Obokata, Haruko}, journal={Nature}, year={2016}, doi={10.1038/nature12968}}
@article{untouched2017, title={Attention mechanisms for neural machine translation of rare words}, author={Untouched, Uma}, journal={ACL}, year={2017}, doi={10.18653/v1/p17-1}}
@article{notice2020, title={Retraction—Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19}, author={Editors, The Lancet}, journal={The Lancet}, year={2020}, doi={10.1016/S0140-6736(20)31324-6}}
@article{selfnotice2023, title={Retracted: Analysis of Sports Training Based on Big Data}, author={Journal, Health}, journal={Journal of Healthcare Engineering}, year={2023}, doi={10.1155/2023/9780170}}
@article{pubmedonly2005, title={Vaccination and regressive autism in young children}, author={Pubmedian, Pat}, journal={Lancet}, year={1998}, pmid={9500320}}
@article{titleonly2011, title={Chronic fatigue syndrome and a murine retrovirus in blood cells}, author={Lombardi, Vincent}, journal={Science}, year={2009}}
@article{inplace2013, title={Arsenic-based life in a mono lake bacterium}, author={Inplace, Ida}, journal={Science}, year={2013}, doi={10.1126/science.inplace}}
@article{titlemark2019, title={Serum biomarkers of sleep quality in shift workers}, author={Marked, Mara}, journal={Sleep Medicine}, year={2019}, doi={10.1016/j.sleep.2019.1}}
@misc{withdrawnpreprint, title={A proof of the Riemann hypothesis via spectral flows}, author={Prover, Pia}, year={2019}, eprint={1901.00001}, archiveprefix={arXiv}}`;

function notice(DOI: string, type: string, date: Record<string, unknown>): Record<string, unknown> {
  return { DOI, type, source: 'publisher', updated: date };
}

const WORKS: readonly SimulatedWork[] = [
  {
    doi: '10.1016/s0140-6736(20)31180-6',
    title: 'Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis',
    crossrefTitle: 'RETRACTED: Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis',
    openAlexTitle: 'RETRACTED: Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis',
    family: 'Mehra',
    given: 'Mandeep R.',
    year: 2020,
    journal: 'The Lancet',
    updatedBy: [RETRACTION, RETRACTION_WATCH],
    isRetracted: true,
  },
  {
    doi: '10.1242/dev.1',
    title: 'Gene expression in zebrafish fins after amputation injury',
    family: 'Partial',
    given: 'Paula',
    year: 2019,
    journal: 'Development',
    updatedBy: [{ DOI: '10.1242/dev.2', type: 'partial_retraction', source: 'publisher', updated: updated(2021, 3, 1) }],
    isRetracted: false,
  },
  {
    doi: '10.1016/j.fuel.2015.1',
    title: 'Catalytic conversion of lignin in ionic liquids',
    family: 'Withdrawer',
    given: 'Will',
    year: 2015,
    journal: 'Fuel',
    crossrefTitle: 'WITHDRAWN: Catalytic conversion of lignin in ionic liquids',
    updatedBy: [{ DOI: '10.1016/j.fuel.2015.2', type: 'withdrawal', source: 'publisher', updated: updated(2016, 1, 2) }],
  },
  {
    doi: '10.1016/j.soil.2012.1',
    title: 'Removed study of soil microbial communities',
    family: 'Removed',
    given: 'Rita',
    year: 2012,
    journal: 'Soil Biology',
    updatedBy: [{ DOI: '10.1016/j.soil.2012.2', type: 'removal', source: 'retraction-watch', 'record-id': 9, updated: updated(2013, 5, 6) }],
  },
  {
    doi: '10.21203/rs.3.rs-100956',
    title: 'Ivermectin for the treatment of COVID-19 outpatients',
    family: 'Concerned',
    given: 'Carl',
    year: 2021,
    journal: 'Research Square',
    updatedBy: [{ DOI: '10.21203/rs.3.rs-100957', type: 'expression-of-concern', source: 'publisher', updated: updated(2021, 7, 14) }],
    isRetracted: false,
  },
  {
    doi: '10.1136/thorax.2018.1',
    title: 'Global burden of childhood asthma in low income countries',
    family: 'Corrected',
    given: 'Cora',
    year: 2018,
    journal: 'Thorax',
    updatedBy: [
      { DOI: '10.1136/thorax.2018.2', type: 'erratum', source: 'publisher', updated: updated(2018, 9, 1) },
      { DOI: '10.1136/thorax.2018.3', type: 'corrigendum', source: 'publisher', updated: updated(2019, 2, 1) },
    ],
    isRetracted: false,
  },
  // A correction (listed twice), then the retraction.
  {
    doi: '10.1038/nature12968',
    title: 'Stimulus triggered acquisition of pluripotency',
    family: 'Obokata',
    given: 'Haruko',
    year: 2016,
    journal: 'Nature',
    isRetracted: true,
    updatedBy: [
      notice('10.1038/nature13598', 'correction', updated(2014, 3, 13)),
      notice('10.1038/nature13598', 'correction', updated(2014, 3, 13)),
      notice('10.1038/nature13599', 'retraction', updated(2014, 7, 2)),
    ],
  },
  {
    doi: '10.18653/v1/p17-1',
    title: 'Attention mechanisms for neural machine translation of rare words',
    family: 'Untouched',
    given: 'Uma',
    year: 2017,
    journal: 'ACL',
    isRetracted: false,
  },
  {
    doi: '10.1016/s0140-6736(20)31324-6',
    title: 'Retraction—Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19',
    family: 'Editors',
    given: 'The Lancet',
    year: 2020,
    journal: 'The Lancet',
    updateTo: [{ DOI: '10.1016/s0140-6736(20)31180-6', type: 'retraction', label: 'Retraction', updated: updated(2020, 6, 5) }],
    // OpenAlex marks the notice as well as the paper: the notice's own Crossref record says what it is.
    isRetracted: true,
  },
  // A notice whose update-to (and so updated-by) points at itself.
  {
    doi: '10.1155/2023/9780170',
    title: 'Retracted: Analysis of Sports Training Based on Big Data',
    family: 'Journal',
    given: 'Health',
    year: 2023,
    journal: 'Journal of Healthcare Engineering',
    isRetracted: false,
    updateTo: [notice('10.1155/2023/9780170', 'retraction', updated(2023, 10, 11))],
    updatedBy: [notice('10.1155/2023/9780170', 'retraction', updated(2023, 10, 11))],
  },
  {
    title: 'Vaccination and regressive autism in young children',
    family: 'Pubmedian',
    given: 'Pat',
    year: 1998,
    journal: 'Lancet',
    europePmc: {
      pmid: '9500320',
      pubTypes: ['Journal Article', 'Retracted Publication'],
      comments: [{ id: '20137807', source: 'MED', reference: 'Lancet. 2010 Feb 6;375(9713):445', type: 'Retraction in', orderIn: 1 }],
    },
  },
  // An expression of concern, then the retraction; cited by title alone.
  {
    doi: '10.1126/science.1179052',
    title: 'Chronic fatigue syndrome and a murine retrovirus in blood cells',
    family: 'Lombardi',
    given: 'Vincent',
    year: 2009,
    journal: 'Science',
    isRetracted: true,
    updatedBy: [notice('10.1126/science.1212182', 'expression_of_concern', updated(2011, 6, 3)), notice('10.1126/science.1215887', 'retraction', updated(2011, 12, 22))],
  },
  // Retracted in place: its Crossref notice points at itself, and OpenAlex calls it retracted.
  {
    doi: '10.1126/science.inplace',
    title: 'Arsenic-based life in a mono lake bacterium',
    family: 'Inplace',
    given: 'Ida',
    year: 2013,
    journal: 'Science',
    isRetracted: true,
    updateTo: [notice('10.1126/science.inplace', 'retraction', updated(2014, 1, 9))],
    updatedBy: [notice('10.1126/science.inplace', 'retraction', updated(2014, 1, 9))],
  },
  // Marked on its title by the publisher, with no notice listed yet and OpenAlex not knowing.
  {
    doi: '10.1016/j.sleep.2019.1',
    title: 'Serum biomarkers of sleep quality in shift workers',
    crossrefTitle: 'RETRACTED: Serum biomarkers of sleep quality in shift workers',
    family: 'Marked',
    given: 'Mara',
    year: 2019,
    journal: 'Sleep Medicine',
    isRetracted: false,
  },
  {
    title: 'A proof of the Riemann hypothesis via spectral flows',
    family: 'Prover',
    given: 'Pia',
    year: 2019,
    arxiv: { id: '1901.00001', comment: 'This paper has been withdrawn by the author due to a gap in the proof of Lemma 3', pdf: false },
  },
];

const ENTRIES = parseBibliography(CITED, '/p/refs.bib').entries;

function citation(key: string, text: string, line: number): Citation {
  return {
    key,
    command: '\\cite',
    file: '/p/paper.tex',
    range: { start: { line, character: 10 }, end: { line, character: 10 + key.length } },
    claim: { text } as Citation['claim'],
  };
}

function codesByKey(findings: readonly Finding[]): Record<string, string[]> {
  const codes: Record<string, string[]> = {};
  for (const f of findings) (codes[f.key ?? ''] ??= []).push(`${f.code}@${f.file === '/p/refs.bib' ? 'bib' : 'tex'}`);
  return codes;
}

describe('retractions of cited works, against the five sources', () => {
  let world: SimulatedSources;

  beforeEach(async () => {
    world = await SimulatedSources.start(WORKS);
  });

  afterEach(async () => {
    await world.close();
  });

  it('flags each kind of notice where the work is cited and on its entry, and nothing on the notice itself, untouched or only corrected works', async () => {
    const verdicts = await verifyEntries(ENTRIES, world.sources());
    const citations = ENTRIES.map((e, i) => citation(e.key, `As shown before [${e.key}].`, i));
    const findings = referenceFindings(verdicts, citations, false);
    const codes = codesByKey(findings.filter((f) => ['retracted', 'expression-of-concern', 'withdrawn', 'corrected'].includes(f.code)));
    assert.deepEqual(codes, {
      mehra2020: ['retracted@bib', 'retracted@tex'],
      partial2019: ['retracted@bib', 'retracted@tex'],
      withdrawal2015: ['retracted@bib', 'retracted@tex'],
      removal2012: ['retracted@bib', 'retracted@tex'],
      concern2021: ['expression-of-concern@bib', 'expression-of-concern@tex'],
      corrected2018: ['corrected@bib'],
      correctedthenretracted2016: ['retracted@bib', 'retracted@tex'],
      pubmedonly2005: ['retracted@bib', 'retracted@tex'],
      titleonly2011: ['retracted@bib', 'retracted@tex'],
      inplace2013: ['retracted@bib', 'retracted@tex'],
      titlemark2019: ['retracted@bib', 'retracted@tex'],
      withdrawnpreprint: ['withdrawn@bib', 'withdrawn@tex'],
    });
    // The "RETRACTED:" and "WITHDRAWN:" marks on the records' titles are no metadata mismatch.
    assert.deepEqual(
      findings.filter((f) => f.code === 'metadata-mismatch').map((f) => f.key),
      [],
    );
    const message = (key: string): string => findings.find((f) => f.key === key && f.file === '/p/refs.bib')?.message ?? '';
    assert.match(message('mehra2020'), /was retracted on 2020-06-05 \(notice https:\/\/doi\.org\/10\.1016\/s0140-6736\(20\)31324-6, per Crossref\)/);
    assert.match(message('partial2019'), /partially retracted on 2021-03-01/);
    assert.match(message('withdrawal2015'), /withdrawn by its publisher/);
    assert.match(message('correctedthenretracted2016'), /was retracted on 2014-07-02 \(notice https:\/\/doi\.org\/10\.1038\/nature13599, per /);
    assert.match(message('concern2021'), /expression of concern on 2021-07-14/);
    assert.match(message('corrected2018'), /has a correction on 2019-02-01/);
    assert.match(message('pubmedonly2005'), /https:\/\/europepmc\.org\/article\/MED\/20137807/);
    assert.match(message('withdrawnpreprint'), /withdrawn by its authors on arXiv: "This paper has been withdrawn/);
    assert.deepEqual(findings.find((f) => f.key === 'mehra2020')?.evidence?.notice, {
      type: 'retraction',
      doi: '10.1016/s0140-6736(20)31324-6',
      url: 'https://doi.org/10.1016/s0140-6736(20)31324-6',
      date: '2020-06-05',
      label: 'Retraction',
      source: 'Crossref',
    });
    assert.equal(verdicts.get('notice2020')?.retraction?.status, 'notice');
    assert.equal(verdicts.get('selfnotice2023')?.retraction?.status, 'notice');
    assert.equal(verdicts.get('untouched2017')?.retraction?.status, 'none');
    assert.deepEqual(
      verdicts.get('correctedthenretracted2016')?.retraction?.notices.map((n) => n.type),
      ['correction', 'retraction'],
    );
  });

  it('does not flag a citation whose sentence says the work was retracted, nor one ignored with a reason, and keeps the reason', async () => {
    const { dir, remove } = await makeTempDir();
    after(remove);
    const file = path.join(dir, '.attest', 'ignore.json');
    const ignored = await IgnoreList.load(file);
    const discussed = citation('mehra2020', 'Registry analyses have misled treatment before [mehra2020].', 2);
    await ignored.add(discussed, { about: 'retraction', reason: 'The paper is about this case.' });
    const reloaded = await IgnoreList.load(file);
    const stored = JSON.parse(await fs.readFile(file, 'utf8')) as { ignored: Array<Record<string, unknown>> };
    assert.equal(stored.ignored[0].reason, 'The paper is about this case.');
    assert.equal(stored.ignored[0].about, 'retraction');
    assert.equal(reloaded.has(discussed), false, 'a retraction ignored does not ignore the support verdict');

    const mehra = ENTRIES.filter((e) => e.key === 'mehra2020');
    const verdicts = await verifyEntries(mehra, world.sources(['crossref']));
    const knowing = [citation('mehra2020', 'The registry study, since retracted, claimed a higher mortality [mehra2020].', 1), discussed];
    assert.deepEqual(
      referenceFindings(verdicts, knowing, false, (c) => reloaded.has(c, 'retraction')),
      [],
    );
    const unknowing = citation('mehra2020', 'Hydroxychloroquine raises mortality [mehra2020].', 3);
    assert.deepEqual(
      referenceFindings(verdicts, [...knowing, unknowing], false, (c) => reloaded.has(c, 'retraction')).map((f) => [f.code, f.range.start.line, f.file]),
      [
        ['retracted', 0, '/p/refs.bib'],
        ['retracted', 3, '/p/paper.tex'],
      ],
    );
  });

  const FAILURES: ReadonlyArray<readonly [string, (req: unknown, res: import('node:http').ServerResponse) => void]> = [
    ['404', (_, res) => sendText(res, 404, 'Not Found')],
    ['503', (_, res) => sendText(res, 503, 'Service Unavailable')],
    ['an HTML page', (_, res) => sendText(res, 200, '<!DOCTYPE html><html><body>Sign in</body></html>', { 'content-type': 'text/html' })],
    ['an empty answer', (_, res) => sendText(res, 200, '')],
    ['an empty JSON object', (_, res) => sendJson(res, 200, {})],
  ];

  for (const [name, failure] of FAILURES) {
    it(`flags nothing as retracted, nor as sound, when the sources that report retractions answer ${name}`, async () => {
      // Semantic Scholar still finds the works; every source that could tell a retraction fails.
      for (const id of ['crossref', 'openalex', 'europepmc', 'arxiv'] as const) world.fail(id, failure);
      // The time limit ends the retries of a 503: a check cut short by it is as unchecked as one refused.
      const verdicts = await verifyEntries(
        ENTRIES.filter((e) => e.doi),
        world.sources(),
        { timeLimitMs: 3000 },
      );
      assert.ok(
        [...verdicts.values()].some((l) => l.verdict.status === 'found'),
        'Semantic Scholar found the works',
      );
      const findings = referenceFindings(verdicts, [], false);
      assert.deepEqual(
        findings.filter((f) => /retract|concern|withdrawn|corrected/.test(f.code)),
        [],
      );
      for (const { retraction } of verdicts.values()) assert.ok(retraction === undefined || retraction.status === 'unchecked', JSON.stringify(retraction));
    });
  }

  it('says a retraction status it could not learn is unchecked and why, in the order of the sources, and asks again at the next check', async () => {
    const signIn = (res: Parameters<typeof sendText>[0]): void => sendText(res, 200, '<!DOCTYPE html><html><body>Sign in</body></html>', { 'content-type': 'text/html' });
    // Crossref's page comes last, yet it is named first, as it is configured.
    world.fail('crossref', (_, res) => setTimeout(() => signIn(res), 80));
    world.fail('openalex', (_, res) => signIn(res));
    const cache = new VerdictCache();
    const sources = world.sources(['semanticscholar', 'crossref', 'openalex']);
    const verdicts = await verifyEntries(
      ENTRIES.filter((e) => e.key === 'mehra2020'),
      sources,
      { cache },
    );
    const lookup = verdicts.get('mehra2020');
    assert.equal(lookup?.verdict.status, 'found');
    assert.equal(lookup?.retraction?.status, 'unchecked');
    assert.match(lookup?.retraction?.reason ?? '', /Crossref: .*HTML page.*OpenAlex: .*HTML page/);
    assert.equal(cache.get(ENTRIES.find((e) => e.key === 'mehra2020')!), undefined, 'not kept: the next check asks again');
  });
});
