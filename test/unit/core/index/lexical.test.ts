import assert from 'node:assert/strict';
import { LexicalIndex } from '../../../../src/core/index/lexical';
import { abstractSentences } from '../../../../src/core/index/passages';
import { paperFromRecord, type Paper } from '../../../../src/core/papers/paper';
import type { SourceRecord } from '../../../../src/core/sources/types';

function paper(id: string, title: string, abstract: string): Paper {
  return { id, title, abstract, authors: [] };
}

const PAPERS: readonly Paper[] = [
  paper(
    'aspirin-crc',
    'Long-term aspirin use and colorectal cancer incidence',
    'We followed 47,000 men for 20 years. Regular aspirin use reduced the risk of colorectal cancer by a third. ' +
      'The reduction appeared after ten years of use, e.g. in men taking two or more tablets a week.',
  ),
  paper(
    'aspirin-headache',
    'Treatments for tension headache',
    'Aspirin, paracetamol and ibuprofen were compared for tension headache in a randomised trial. ' + 'All three relieved pain within two hours.',
  ),
  paper('crc-screening', 'Colonoscopy screening in average-risk adults', 'Screening colonoscopy lowered colorectal cancer mortality in adults aged 55 to 64. Uptake was 40%.'),
  paper(
    'il6-covid',
    'Interleukin-6 in severe COVID-19',
    'Serum IL-6 concentrations at admission predicted mechanical ventilation in patients with COVID-19. ' +
      'Tocilizumab, which blocks the IL-6 receptor, shortened stays in intensive care.',
  ),
  paper('p53-mice', 'p53 loss accelerates lymphoma in mice', 'Mice lacking p53 developed thymic lymphomas by six months. Heterozygous mice were spared until later.'),
  paper('statins', 'Statins and cardiovascular events', 'Statin therapy reduced major cardiovascular events in people without prior heart disease.'),
];

function indexOf(papers: readonly Paper[]): LexicalIndex {
  const index = new LexicalIndex();
  for (const p of papers) index.add(p);
  return index;
}

function ids(index: LexicalIndex, query: string, limit = 10): string[] {
  return index.search(query, limit).map((hit) => hit.id);
}

describe('lexical index', () => {
  it('ranks the paper that states the claim above papers that share one of its words', () => {
    const index = indexOf(PAPERS);
    const ranking = ids(index, 'Aspirin lowers the risk of colorectal cancer.');
    assert.equal(ranking[0], 'aspirin-crc');
    assert.ok(ranking.indexOf('aspirin-crc') < ranking.indexOf('aspirin-headache'));
    assert.ok(ranking.indexOf('aspirin-crc') < ranking.indexOf('crc-screening'));
  });

  it('finds a paper however the claim spells a scientific name', () => {
    const index = indexOf(PAPERS);
    assert.equal(ids(index, 'IL6 predicts ventilation in covid19')[0], 'il6-covid');
    assert.equal(ids(index, 'TP53-deficient mice get lymphoma; p53 loss')[0], 'p53-mice');
  });

  it('returns scores best first, no more than asked, and nothing for a query of stopwords', () => {
    const index = indexOf(PAPERS);
    const hits = index.search('colorectal cancer aspirin', 2);
    assert.equal(hits.length, 2);
    assert.ok(hits[0].score >= hits[1].score && hits[1].score > 0);
    assert.deepEqual(index.search('the of and with', 10), []);
    assert.deepEqual(index.search('', 10), []);
  });

  it('lifts a paper whose title names the query over one that mentions it only in the abstract', () => {
    const abstract = 'Nicotine patches were given for twelve weeks to adults who smoked. Abstinence was checked by breath tests.';
    const index = indexOf([
      paper('body', 'A trial in general practice', `Smoking cessation with varenicline. ${abstract}`),
      paper('title', 'Varenicline for smoking cessation', abstract),
    ]);
    assert.deepEqual(ids(index, 'varenicline smoking cessation'), ['title', 'body']);
  });

  it('adds and removes papers one at a time', () => {
    const index = indexOf(PAPERS);
    assert.deepEqual(ids(index, 'metformin'), []);
    index.add(paper('metformin', 'Metformin and ageing', 'Metformin extended lifespan in nematodes.'));
    assert.equal(index.size, PAPERS.length + 1);
    assert.deepEqual(ids(index, 'metformin'), ['metformin']);

    assert.equal(index.remove('metformin'), true);
    assert.equal(index.remove('metformin'), false);
    assert.equal(index.has('metformin'), false);
    assert.deepEqual(ids(index, 'metformin'), []);
    assert.equal(index.size, PAPERS.length);
  });

  it('replaces a paper added again under the same id', () => {
    const index = indexOf(PAPERS);
    index.add(paper('statins', 'Statins and muscle pain', 'Myalgia was no more common with statins than with placebo.'));
    assert.equal(index.size, PAPERS.length);
    assert.deepEqual(ids(index, 'cardiovascular events'), []);
    assert.deepEqual(ids(index, 'myalgia'), ['statins']);
  });

  it('scores after a removal as if the paper had never been added', () => {
    const removed = indexOf(PAPERS);
    removed.remove('crc-screening');
    const never = indexOf(PAPERS.filter((p) => p.id !== 'crc-screening'));
    for (const query of ['colorectal cancer risk', 'aspirin', 'mice lymphoma']) {
      assert.deepEqual(removed.search(query, 10), never.search(query, 10));
    }
  });

  it('gives the same results after serialising and restoring, also once a paper was removed', () => {
    const index = indexOf(PAPERS);
    index.remove('aspirin-headache');
    const restored = LexicalIndex.fromJSON(JSON.parse(JSON.stringify(index)));
    assert.equal(restored.size, index.size);
    assert.equal(restored.has('aspirin-headache'), false);
    for (const query of ['Aspirin lowers the risk of colorectal cancer.', 'IL-6 in COVID-19', 'heart disease', 'p53']) {
      assert.deepEqual(restored.search(query, 10), index.search(query, 10));
    }
    restored.add(PAPERS[1]);
    assert.deepEqual(restored.search('headache', 10), indexOf(PAPERS).search('headache', 10));
  });
});

describe('best sentence of an abstract', () => {
  const index = indexOf(PAPERS);
  const abstract = PAPERS[0].abstract ?? '';

  it('is the sentence that matches the query, with its place in the abstract', () => {
    const passage = index.bestSentence('Aspirin reduces colorectal cancer risk', abstract);
    assert.ok(passage);
    assert.equal(passage.text, 'Regular aspirin use reduced the risk of colorectal cancer by a third.');
    assert.equal(abstract.slice(passage.start, passage.end), passage.text);
  });

  it('follows the query to another sentence', () => {
    const passage = index.bestSentence('benefit only after a decade of tablets', abstract);
    assert.ok(passage?.text.startsWith('The reduction appeared after ten years'));
  });

  it('is undefined when no sentence shares a term with the query', () => {
    assert.equal(index.bestSentence('tocilizumab', abstract), undefined);
    assert.equal(index.bestSentence('aspirin', ''), undefined);
  });

  it('splits abstracts where sentences end, not at abbreviations', () => {
    assert.deepEqual(
      abstractSentences(abstract).map(({ start, end }) => abstract.slice(start, end)),
      [
        'We followed 47,000 men for 20 years.',
        'Regular aspirin use reduced the risk of colorectal cancer by a third.',
        'The reduction appeared after ten years of use, e.g. in men taking two or more tablets a week.',
      ],
    );
  });
});

describe('papers from source records', () => {
  const record: SourceRecord = {
    source: 'openalex',
    id: 'W2741809807',
    url: 'https://openalex.org/W2741809807',
    title: 'The state of OA',
    authors: [{ family: 'Piwowar', given: 'Heather' }],
    year: 2018,
    venue: 'PeerJ',
    doi: '10.7717/peerj.4375',
    abstract: 'Despite growing interest in Open Access…',
    openAccessUrl: 'https://peerj.com/articles/4375.pdf',
  };

  it('keeps the record and where it came from, and takes the DOI as id', () => {
    assert.deepEqual(paperFromRecord(record), {
      id: 'doi:10.7717/peerj.4375',
      title: 'The state of OA',
      abstract: 'Despite growing interest in Open Access…',
      authors: [{ family: 'Piwowar', given: 'Heather' }],
      year: 2018,
      venue: 'PeerJ',
      doi: '10.7717/peerj.4375',
      arxivId: undefined,
      openAccessUrl: 'https://peerj.com/articles/4375.pdf',
      source: { id: 'openalex', recordId: 'W2741809807', url: 'https://openalex.org/W2741809807' },
    });
  });

  it('names a paper without DOI by its arXiv id, and one with neither by its source record', () => {
    assert.equal(paperFromRecord({ ...record, doi: undefined, arxivId: '2305.18248' }).id, 'arxiv:2305.18248');
    assert.equal(paperFromRecord({ ...record, doi: undefined }).id, 'openalex:W2741809807');
  });
});
