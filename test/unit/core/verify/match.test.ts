import assert from 'node:assert/strict';
import type { Author, BibEntry } from '../../../../src/core/bibliography/types';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { checkIntrinsic, type IntrinsicIssueCode } from '../../../../src/core/verify/intrinsic';
import {
  compareAuthorLists,
  compareDois,
  compareEntryToRecord,
  compareTitles,
  compareVenues,
  compareYears,
  pickBestMatch,
  type MatchField,
  type MatchResult,
} from '../../../../src/core/verify/match';
import { mainTitle, nameKey, normalizeText } from '../../../../src/core/verify/normalize';

const NOWHERE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

type EntryFields = Partial<Omit<BibEntry, 'authors'>> & { readonly authors?: readonly (string | Author)[] };
type RecordFields = Partial<Omit<SourceRecord, 'authors'>> & { readonly authors?: readonly (string | Author)[] };

/** "Family, Given" or a ready Author. */
function person(name: string | Author): Author {
  if (typeof name !== 'string') return name;
  const [family, given] = name.split(',').map((s) => s.trim());
  return given === undefined ? { family } : { family, given };
}

function entry(fields: EntryFields): BibEntry {
  return { key: 'k', type: 'article', file: '/refs.bib', range: NOWHERE, keyRange: NOWHERE, ...fields, authors: (fields.authors ?? []).map(person) };
}

function record(fields: RecordFields): SourceRecord {
  return { source: 'openalex', id: 'W1', title: '', ...fields, authors: (fields.authors ?? []).map(person) };
}

const RESNET = {
  title: 'Deep Residual Learning for Image Recognition',
  authors: ['He, Kaiming', 'Zhang, Xiangyu', 'Ren, Shaoqing', 'Sun, Jian'],
  year: 2016,
  venue: '2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)',
  doi: '10.1109/cvpr.2016.90',
};

function differing(result: MatchResult): MatchField[] {
  return result.differences.map((d) => d.field);
}

describe('verify: normalisation', () => {
  it('reduces titles to plain lower-case words', () => {
    assert.equal(normalizeText('Sch{\\"o}nherr and Gödel'), 'schonherr and godel');
    assert.equal(normalizeText('<i>In vivo</i> &amp; in vitro'), 'in vivo and in vitro');
    assert.equal(normalizeText('$\\alpha$-Divergence'), normalizeText('α-divergence'));
    assert.equal(normalizeText('\\emph{Straße}: O’Neil’s   Æther'), 'strasse oneils aether');
  });

  it('finds the main title before a subtitle', () => {
    assert.equal(mainTitle('BERT: Pre-training of Deep Bidirectional Transformers'), 'BERT');
    assert.equal(mainTitle('"Why Should I Trust You?": Explaining the Predictions of Any Classifier'), '"Why Should I Trust You?"');
    assert.equal(mainTitle('What Happens after SGD Reaches Zero Loss? --A Mathematical Framework'), 'What Happens after SGD Reaches Zero Loss?');
    assert.equal(mainTitle('Attention Is All You Need'), undefined);
  });

  it('keys names by family name without particles, keeping initials', () => {
    assert.deepEqual(nameKey({ family: 'van der Schaar', given: 'Mihaela' }).family, ['schaar']);
    assert.deepEqual(nameKey({ literal: 'Jan-Willem van de Meent' }).family, ['meent']);
    assert.deepEqual(nameKey({ family: 'Le', given: 'Quoc V.' }).family, ['le']);
    assert.deepEqual(nameKey({ family: 'Doe', given: 'J.-C.' }).initials, ['j', 'c']);
    assert.deepEqual(nameKey({ family: 'Smith', given: 'JC' }).initials, ['j', 'c']);
    assert.deepEqual(nameKey({ family: '0001', given: 'Wei Wang' }).family, ['wang']);
  });
});

describe('verify: field comparisons', () => {
  it('treats accents, LaTeX, case and hyphenation as the same title', () => {
    const result = compareTitles(
      '{SCAFFOLD}: Stochastic Controlled Averaging for On-Device Federated Learning',
      'SCAFFOLD: stochastic controlled averaging for ondevice federated learning',
    );
    assert.equal(result.field.status, 'agree');
    assert.equal(compareTitles('Schr{\\"o}dinger Bridges for $\\alpha$-Mixing', 'Schrödinger bridges for α-mixing').field.status, 'agree');
    assert.equal(compareTitles('Towards Robust Modelling of Behaviour', 'Toward robust modeling of behavior').field.status, 'agree');
  });

  it('accepts a title without its subtitle, but not a near-miss word', () => {
    const subtitle = compareTitles('Why Should I Trust You?', '"Why Should I Trust You?": Explaining the Predictions of Any Classifier');
    assert.equal(subtitle.field.status, 'agree');
    assert.equal(subtitle.field.note, 'the entry omits the subtitle');
    assert.equal(compareTitles('Learning to Summarize with Human Feedback', 'Learning to summarize from human feedback').field.status, 'differ');
    assert.equal(compareTitles('Quantum Embedding for Machine Learning', 'Quantum embeddings for machine learning').field.status, 'differ');
    // A one-word main title says too little to stand for the whole title.
    assert.equal(compareTitles('BERT', 'BERT: Pre-training of Deep Bidirectional Transformers').field.status, 'differ');
  });

  it('matches reordered, abbreviated and transliterated author names', () => {
    const result = compareAuthorLists(
      [person('Kingma, D. P.'), person('Ba, J.'), { literal: 'Jürgen Müller' }],
      [person('Kingma, Diederik P.'), person('Ba, Jimmy'), person('Mueller, Juergen')],
      false,
    );
    assert.equal(result.field.status, 'agree', result.field.note);
    const swapped = compareAuthorLists([person('Wei, Zhang'), person('Chen, Li')], [person('Zhang, Wei'), person('Chen, Li')], false);
    assert.equal(swapped.field.status, 'agree', swapped.field.note);
    const particles = compareAuthorLists(
      [person('van der Schaar, Mihaela'), person('Martín-Brualla, Ricardo')],
      [{ family: 'Schaar', given: 'Mihaela van der' }, person('Brualla, Ricardo Martin')],
      false,
    );
    assert.equal(particles.field.status, 'agree', particles.field.note);
  });

  it('tells co-authors with one family name apart by initial', () => {
    const result = compareAuthorLists([person('Lee, Lisa'), person('Abbeel, Pieter')], [person('Lee, Kimin'), person('Abbeel, Pieter')], false);
    assert.equal(result.field.status, 'differ');
    assert.match(result.field.note ?? '', /not on the record: Lee/);
  });

  it('reports a wrong first author and a partial author list, but not a truncated one', () => {
    const real = ['Vaswani, Ashish', 'Shazeer, Noam', 'Parmar, Niki', 'Uszkoreit, Jakob'].map(person);
    const reordered = compareAuthorLists([real[1], real[0], real[2], real[3]], real, false);
    assert.equal(reordered.field.status, 'differ');
    assert.match(reordered.field.note ?? '', /first author is Vaswani/);
    const partial = compareAuthorLists([real[0], real[3]], real, false);
    assert.match(partial.field.note ?? '', /missing from the entry: Shazeer, Parmar/);
    assert.equal(compareAuthorLists([real[0], real[1]], real, true).field.status, 'agree');
    assert.equal(compareAuthorLists([real[0], { family: 'al.', given: 'et' }], real, false).field.status, 'agree');
  });

  it('does not hold a long author list against a record that lists only the first authors', () => {
    const many = Array.from({ length: 14 }, (_, i) => person(`Author${String.fromCharCode(65 + i)}, Given`));
    assert.equal(compareAuthorLists(many, many.slice(0, 10), false).field.status, 'agree');
    // A short record is no excuse: two names added to three real ones are reported.
    const added = compareAuthorLists(many.slice(0, 5), many.slice(0, 3), false);
    assert.equal(added.field.status, 'differ');
  });

  it('accepts a year one off and no more', () => {
    assert.equal(compareYears(2019, 2020).status, 'agree');
    assert.equal(compareYears(2017, 2020).status, 'differ');
    assert.equal(compareYears(undefined, 2020).status, 'unknown');
  });

  it('accepts the usual spellings of one venue', () => {
    const same: [string, string][] = [
      ['CVPR', 'Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition'],
      ['Proc. of the IEEE Conf. on CVPR', 'CVPR'],
      ['NeurIPS', 'Advances in Neural Information Processing Systems 34'],
      ['NIPS', 'Neural Information Processing Systems'],
      ['ICML', 'Proceedings of the 38th International Conference on Machine Learning'],
      ['ICLR 2021', 'International Conference on Learning Representations'],
      ['J. Mach. Learn. Res.', 'Journal of Machine Learning Research'],
      ['JMLR', 'Journal of Machine Learning Research'],
      ['IEEE Trans. Pattern Anal. Mach. Intell.', 'IEEE Transactions on Pattern Analysis and Machine Intelligence'],
      ['AAAI', 'Proceedings of the Thirty-Fifth AAAI Conference on Artificial Intelligence'],
      ['ACL', 'Proceedings of the 59th Annual Meeting of the Association for Computational Linguistics'],
      ['NAACL', 'Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational Linguistics'],
      ['COLT', 'Conference on Learning Theory'],
      ['AISTATS', 'International Conference on Artificial Intelligence and Statistics'],
      ['WWW', 'Proceedings of the ACM Web Conference 2022'],
      ['ECCV', 'Computer Vision – ECCV 2022'],
      ['Nat. Commun.', 'Nature Communications'],
    ];
    for (const [a, b] of same) assert.equal(compareVenues(a, b).status, 'agree', `${a} | ${b}`);
  });

  it('reports clearly different venues, never a preprint server or a series', () => {
    const different: [string, string][] = [
      ['ICML', 'NeurIPS'],
      ['UAI', 'International Conference on Machine Learning'],
      ['ICCV', 'IEEE/CVF Conference on Computer Vision and Pattern Recognition'],
      ['International Conference on Quantum Machine Learning', 'International Conference on Machine Learning'],
      ['Symposium on Neural Scaling Laws', 'ICML'],
      ['Machine Learning', 'Journal of Machine Learning Research'],
      ['ICML', 'ICMLA'],
    ];
    for (const [a, b] of different) assert.equal(compareVenues(a, b).status, 'differ', `${a} | ${b}`);
    const unknown: [string, string][] = [
      ['arXiv preprint arXiv:1810.04805', 'NAACL'],
      ['ICML', 'arXiv (Cornell University)'],
      ['CoRR', 'Nature'],
      ['ECCV', 'Lecture Notes in Computer Science'],
      ['ICML', 'PMLR'],
    ];
    for (const [a, b] of unknown) assert.equal(compareVenues(a, b).status, 'unknown', `${a} | ${b}`);
  });

  it('compares DOIs case-insensitively, and an arXiv DOI with a publisher DOI not at all', () => {
    assert.equal(compareDois('https://doi.org/10.1109/CVPR.2016.90', '10.1109/cvpr.2016.90').status, 'agree');
    assert.equal(compareDois('10.48550/arXiv.1512.03385v1', '10.48550/arxiv.1512.03385').status, 'agree');
    assert.equal(compareDois('10.48550/arXiv.1512.03385', '10.1109/cvpr.2016.90').status, 'unknown');
    assert.equal(compareDois('10.9999/fake.2024.001', '10.1109/cvpr.2016.90').status, 'differ');
    assert.equal(compareDois('10.48550/arXiv.2310.XXXX', '10.48550/arXiv.2310.YYYY').status, 'differ');
  });
});

describe('verify: compareEntryToRecord', () => {
  it('finds a correct entry to be the same work', () => {
    const result = compareEntryToRecord(
      entry({ ...RESNET, venue: 'CVPR', doi: 'https://doi.org/10.1109/CVPR.2016.90', title: 'Deep residual learning for image recognition' }),
      record(RESNET),
    );
    assert.equal(result.decision, 'same-work');
    assert.equal(result.identifiedBy, 'doi');
    assert.deepEqual(differing(result), []);
  });

  it('accepts the preprint of a published paper, a year earlier', () => {
    const result = compareEntryToRecord(
      entry({
        title: 'BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding',
        authors: ['Devlin, Jacob', 'Chang, Ming-Wei', 'Lee, Kenton', 'Toutanova, Kristina'],
        year: 2018,
        venue: 'arXiv preprint arXiv:1810.04805',
        arxivId: '1810.04805',
      }),
      record({
        title: 'BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding',
        authors: ['Devlin, Jacob', 'Chang, Ming-Wei', 'Lee, Kenton', 'Toutanova, Kristina'],
        year: 2019,
        venue: 'Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational Linguistics',
        doi: '10.18653/v1/n19-1423',
      }),
    );
    assert.equal(result.decision, 'same-work');
    assert.equal(result.identifiedBy, 'title');
  });

  it('tells apart two papers of the same authors with related titles', () => {
    const result = compareEntryToRecord(
      entry({ ...RESNET, doi: undefined }),
      record({ ...RESNET, title: 'Identity Mappings in Deep Residual Networks', venue: 'ECCV', doi: '10.1007/978-3-319-46493-0_38' }),
    );
    assert.equal(result.decision, 'different-work');
    assert.equal(result.identifiedBy, undefined);
  });

  it('finds a title cut short at its end', () => {
    const shortened = compareEntryToRecord(entry({ ...RESNET, title: 'Deep Residual Learning', doi: undefined }), record(RESNET));
    assert.equal(shortened.decision, 'same-work-with-differences');
    assert.deepEqual(differing(shortened), ['title']);
  });

  it('tells apart the parts of a series', () => {
    const authors = ['Smith, Anne', 'Jones, Bob'];
    const result = compareEntryToRecord(
      entry({ title: 'Stochastic processes on graphs, Part II', authors, year: 2020 }),
      record({ title: 'Stochastic processes on graphs, Part I', authors, year: 2020 }),
    );
    assert.equal(result.decision, 'different-work');
  });

  it('reports a wrong year on the same work', () => {
    const result = compareEntryToRecord(entry({ ...RESNET, year: 2019 }), record(RESNET));
    assert.equal(result.decision, 'same-work-with-differences');
    assert.deepEqual(differing(result), ['year']);
    assert.equal(result.differences[0].expected, '2019');
    assert.equal(result.differences[0].found, '2016');
  });

  it('reports a wrong first author on the same work', () => {
    const result = compareEntryToRecord(entry({ ...RESNET, authors: ['Zhang, Xiangyu', 'He, Kaiming', 'Ren, Shaoqing', 'Sun, Jian'] }), record(RESNET));
    assert.equal(result.decision, 'same-work-with-differences');
    assert.deepEqual(differing(result), ['authors']);
  });

  it('reports a wrong venue on the same work', () => {
    const result = compareEntryToRecord(entry({ ...RESNET, venue: 'ICML', doi: undefined }), record(RESNET));
    assert.equal(result.decision, 'same-work-with-differences');
    assert.deepEqual(differing(result), ['venue']);
  });

  it('reports a misremembered title by the same authors', () => {
    const result = compareEntryToRecord(entry({ ...RESNET, title: 'Deep Residual Learning for Image Classification', doi: undefined }), record(RESNET));
    assert.equal(result.decision, 'same-work-with-differences');
    assert.deepEqual(differing(result), ['title']);
  });

  it('reports a real title cited with made-up authors, unless the title is generic', () => {
    const wrongAuthors = compareEntryToRecord(entry({ ...RESNET, authors: ['Doe, Jane', 'Roe, Richard'], doi: undefined }), record(RESNET));
    assert.equal(wrongAuthors.decision, 'same-work-with-differences');
    assert.deepEqual(differing(wrongAuthors), ['authors']);
    const generic = compareEntryToRecord(
      entry({ title: 'Deep Learning', authors: ['Goodfellow, Ian', 'Bengio, Yoshua', 'Courville, Aaron'], year: 2016 }),
      record({ title: 'Deep learning', authors: ['LeCun, Yann', 'Bengio, Yoshua', 'Hinton, Geoffrey'], year: 2015, venue: 'Nature' }),
    );
    // One shared author is enough for the same title; this pair shows the distinction is about authors, not luck.
    assert.equal(generic.decision, 'same-work-with-differences');
    const unrelated = compareEntryToRecord(
      entry({ title: 'Deep Learning', authors: ['Goodfellow, Ian', 'Courville, Aaron'], year: 2016 }),
      record({ title: 'Deep learning', authors: ['LeCun, Yann', 'Hinton, Geoffrey'], year: 2015, venue: 'Nature' }),
    );
    assert.equal(unrelated.decision, 'different-work');
  });

  it('does not take a DOI that names another paper for the cited one', () => {
    const result = compareEntryToRecord(
      entry({ title: 'Efficient Adversarial Facial Features', authors: ['Rossi, Isabella', 'Ali, Ahmed'], year: 2023, doi: RESNET.doi }),
      record(RESNET),
    );
    assert.equal(result.decision, 'different-work');
    assert.ok(differing(result).includes('title'));
  });

  it('accepts a record found by DOI even when the entry cites the title differently', () => {
    const result = compareEntryToRecord(entry({ ...RESNET, title: 'ResNet: Deep Residual Networks' }), record(RESNET));
    assert.equal(result.decision, 'same-work-with-differences');
    assert.equal(result.identifiedBy, 'doi');
    assert.deepEqual(differing(result), ['title']);
  });

  it('reports a made-up DOI on a paper found by title', () => {
    const result = compareEntryToRecord(entry({ ...RESNET, doi: '10.9999/fake.2016.001' }), record(RESNET));
    assert.equal(result.decision, 'same-work-with-differences');
    assert.deepEqual(differing(result), ['doi']);
  });
});

describe('verify: pickBestMatch', () => {
  it('prefers the record that agrees on everything', () => {
    const preprint = record({ ...RESNET, id: 'pre', year: 2015, venue: 'arXiv (Cornell University)', doi: '10.48550/arxiv.1512.03385' });
    const published = record({ ...RESNET, id: 'pub' });
    const wrongYear = record({ ...RESNET, id: 'bad', year: 2012, doi: undefined });
    const best = pickBestMatch(entry({ ...RESNET, doi: undefined, venue: 'CVPR' }), [wrongYear, preprint, published]);
    assert.equal(best?.record.id, 'pub');
    assert.equal(best?.decision, 'same-work');
  });

  it('prefers the exact title over a sequel by the same authors', () => {
    const authors = ['Nichol, Alex', 'Dhariwal, Prafulla'];
    const cited = entry({ title: 'Improved Denoising Diffusion Probabilistic Models', authors, year: 2021 });
    const sequel = record({ id: 'other', title: 'Denoising Diffusion Probabilistic Models', authors, year: 2021 });
    const exact = record({ id: 'exact', title: 'Improved denoising diffusion probabilistic models', authors, year: 2021 });
    // Alone, the near title by the same authors is taken for a misremembered title, never for no match.
    assert.equal(pickBestMatch(cited, [sequel])?.decision, 'same-work-with-differences');
    assert.equal(pickBestMatch(cited, [sequel, exact])?.record.id, 'exact');
  });

  it('returns nothing when no candidate is the work', () => {
    const candidates = [
      record({ title: 'Identity Mappings in Deep Residual Networks', authors: RESNET.authors, year: 2016 }),
      record({ title: 'Residual Attention Network for Image Classification', authors: ['Wang, Fei'], year: 2017 }),
    ];
    assert.equal(pickBestMatch(entry({ title: 'Residual Learning for Fabricated Recognition', authors: ['Nobody, Ann'], year: 2016 }), candidates), undefined);
    assert.equal(pickBestMatch(entry(RESNET), []), undefined);
  });
});

describe('verify: intrinsic checks', () => {
  const now = new Date('2024-03-15T00:00:00Z');
  const codes = (fields: EntryFields): IntrinsicIssueCode[] => checkIntrinsic(entry(fields), { now }).map((i) => i.code);

  it('flags a year after next year', () => {
    assert.deepEqual(codes({ year: 2026 }), ['future-year']);
    assert.deepEqual(codes({ year: 2025 }), []);
    assert.deepEqual(codes({ year: 2024 }), []);
    assert.deepEqual(checkIntrinsic(entry({ year: 2026 }), { now: new Date('2025-06-01T00:00:00Z') }), []);
  });

  it('flags placeholder names, not unusual real ones', () => {
    for (const name of [
      'Doe',
      'Doe, J.',
      { given: 'J. Q.', family: 'Doe' },
      'Doe, J',
      'Author, A.',
      'Lastname, Firstname',
      'Author1',
      'Bar, Foo',
      'XXX',
      'et al.',
      { literal: 'et al.' },
      { literal: 'Author Name' },
    ]) {
      assert.deepEqual(codes({ authors: [name] }), ['placeholder-author'], JSON.stringify(name));
    }
    // A real person may be called Jane or John Doe; given with a first name, the name is taken as one.
    for (const name of [
      'Doe, Jane',
      'Doe, John',
      { given: 'John', family: 'Doe' },
      'Doe, Jane M.',
      'Doe, Q.',
      'Anonymous',
      'Foo, Chuan-Sheng',
      'Bar, Amir',
      'Doe, Richard',
      'Le, Quoc V.',
      'Smith, John',
      'Al, Et-Tahir',
      { literal: 'World Health Organization' },
    ]) {
      assert.deepEqual(codes({ authors: [name] }), [], JSON.stringify(name));
    }
    assert.match(checkIntrinsic(entry({ authors: ['Doe, J.'] }), { now })[0].message, /"Doe, J\." looks like a placeholder/);
  });

  it('flags malformed DOIs, including arXiv DOIs with an incomplete id', () => {
    assert.deepEqual(codes({ doi: '10.123/abc' }), ['malformed-doi']);
    assert.deepEqual(codes({ doi: 'https://doi.org/10.1000/has space' }), ['malformed-doi']);
    assert.deepEqual(codes({ doi: '10.48550/arXiv.2310.XXXX' }), ['malformed-doi']);
    assert.deepEqual(codes({ doi: 'https://doi.org/10.1109/CVPR.2016.90' }), []);
    assert.deepEqual(codes({ doi: '10.48550/arXiv.2310.12345v1' }), []);
  });

  it('flags arXiv ids that were never or not yet assigned', () => {
    assert.deepEqual(codes({ arxivId: '2305.XXXX' }), ['malformed-arxiv-id']);
    assert.deepEqual(codes({ arxivId: '2313.12345' }), ['malformed-arxiv-id']);
    assert.deepEqual(codes({ arxivId: '2405.12345' }), ['malformed-arxiv-id']);
    assert.deepEqual(codes({ url: 'https://arxiv.org/abs/2305.1234' }), ['malformed-arxiv-id']);
    assert.deepEqual(codes({ arxivId: '2403.12345', url: 'https://arxiv.org/abs/2403.12345v2' }), []);
    assert.deepEqual(codes({ arxivId: 'hep-th/9901001' }), []);
  });
});
