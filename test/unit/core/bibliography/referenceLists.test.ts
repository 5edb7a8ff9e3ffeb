import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readBibliography } from '../../../../src/core/bibliography/read';
import type { BibEntry } from '../../../../src/core/bibliography/types';
import { checkManuscript, CheckSession } from '../../../../src/core/check';
import { citedEntries, verifyEntries } from '../../../../src/core/verify/references';
import { MemoryWorkspace, REPO_ROOT } from '../../support/helpers';
import { SimulatedSources, type SimulatedWork } from '../../support/retractionWorld';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/references');

async function entriesOf(name: string): Promise<Map<string, BibEntry>> {
  const file = path.join(FIXTURES, name);
  const { entries } = readBibliography(await fs.readFile(file, 'utf8'), file);
  return new Map(entries.map((e) => [e.key, e]));
}

function fieldsOf(entry: BibEntry | undefined): unknown {
  assert.ok(entry);
  return { families: entry.authors.map((a) => a.family), title: entry.title, venue: entry.venue, year: entry.year, doi: entry.doi, arxivId: entry.arxivId };
}

describe('reference lists written as text', () => {
  it("reads natbib's plainnat .bbl into authors, title, venue, year and DOI, the label's braces and \\newblocks included", async () => {
    const entries = await entriesOf('plainnat.bbl');
    assert.deepEqual([...entries.keys()], ['Ambikasaran:2015', 'Feroz:2009', 'Ivezic:2014']);
    assert.deepEqual(fieldsOf(entries.get('Feroz:2009')), {
      families: ['Feroz', 'Hobson', 'Bridges'],
      title: 'MULTINEST: an efficient and robust Bayesian inference tool for cosmology and particle physics',
      venue: '\\mnras',
      year: 2009,
      doi: '10.1111/j.1365-2966.2009.14548.x',
      arxivId: undefined,
    });
    assert.deepEqual(fieldsOf(entries.get('Ivezic:2014')), {
      families: ['Ivezić', 'Connolly', 'VanderPlas', 'Gray'],
      title: 'Statistics, Data Mining, and Machine Learning in Astronomy: A Practical Python Guide for the Analysis of Survey Data',
      venue: 'Princeton University Press',
      year: 2014,
      doi: undefined,
      arxivId: undefined,
    });
    assert.equal(entries.get('Ambikasaran:2015')?.doi, '10.1002/nla.2003');
    // A book is one the sources index incompletely: a search that misses it is no sign of fabrication.
    assert.deepEqual(
      [...entries.values()].map((e) => e.type),
      ['misc', 'misc', 'book'],
    );
  });

  it('tells a thesis and a report from a paper by what follows the title', () => {
    const text =
      '\\begin{thebibliography}{3}\n\\bibitem{t} Jane Roe. Learning to sample. PhD thesis, University of Somewhere, 2019.\n\\bibitem{r} Jane Roe. Sampling notes for all. Technical Report 12, Somewhere Lab, 2018.\n\\bibitem{c} Jane Roe. A chapter on sampling. In Handbook of Sampling, Springer, 2017.\n\\end{thebibliography}';
    assert.deepEqual(
      readBibliography(text, '/p/main.tex').entries.map((e) => e.type),
      ['phdthesis', 'techreport', 'misc'],
    );
  });

  it("reads BibTeX's plain .bbl, whose items have no label", async () => {
    const entries = await entriesOf('plain.bbl');
    assert.deepEqual(fieldsOf(entries.get('Brewer:2011')), {
      families: ['Brewer', 'Pártay', 'Csányi'],
      title: 'Diffusive nested sampling',
      venue: 'Statistics and Computing',
      year: 2011,
      doi: undefined,
      arxivId: undefined,
    });
  });

  it("reads biber's .bbl as the structured fields it has, in its current and older name forms", async () => {
    const entries = await entriesOf('biblatex.bbl');
    const feroz = entries.get('Feroz:2009');
    assert.deepEqual(fieldsOf(feroz), {
      families: ['Feroz', 'Hobson', 'Bridges'],
      title: 'MULTINEST: an efficient and robust Bayesian inference tool for cosmology and particle physics',
      venue: 'Monthly Notices of the Royal Astronomical Society',
      year: 2009,
      doi: '10.1111/j.1365-2966.2009.14548.x',
      arxivId: '0809.3437',
    });
    assert.equal(feroz?.type, 'article');
    assert.equal(feroz?.reference, undefined);
    assert.deepEqual(entries.get('Liu:2008')?.authors, [{ family: 'Liu', given: 'Jun S' }]);
    assert.equal(entries.get('Liu:2008')?.venue, 'Springer Science & Business Media');
  });

  it('reads hand-written IEEE, APA and Vancouver references, and leaves a reference too short to read without a title', async () => {
    const entries = await entriesOf('handwritten.tex');
    assert.deepEqual(fieldsOf(entries.get('Ambikasaran:2015')), {
      families: ['Ambikasaran'],
      title: 'Generalized Rybicki Press algorithm',
      venue: 'Numer. Linear Algebra Appl',
      year: 2015,
      doi: '10.1002/nla.2003',
      arxivId: undefined,
    });
    assert.deepEqual(fieldsOf(entries.get('Goodman:2010')), {
      families: ['Goodman', 'Weare'],
      title: 'Ensemble samplers with affine invariance',
      venue: 'Communications in Applied Mathematics and Computational Science',
      year: 2010,
      doi: undefined,
      arxivId: undefined,
    });
    assert.deepEqual((fieldsOf(entries.get('Feroz:2009')) as { families: unknown }).families, ['Feroz', 'Hobson', 'Bridges']);
    assert.equal(entries.get('Feroz:2009')?.venue, 'Mon Not R Astron Soc');
    assert.equal(entries.get('Foreman-Mackey:2017')?.arxivId, '1703.09710');
    assert.equal(entries.get('ibid')?.title, undefined);
  });

  it('reads a title that quotes a phrase or asks a question whole, in IEEE, APA and Vancouver references', () => {
    const text = [
      '\\begin{thebibliography}{9}',
      "\\bibitem{ieee} M.~T. Ribeiro, S.~Singh, and C.~Guestrin, ``{``}Why should {I} trust you?'': Explaining the predictions of any classifier,'' in \\emph{Proc. 22nd ACM SIGKDD Int. Conf. Knowl. Discov. Data Min.}, 2016, pp. 1135--1144.",
      "\\bibitem{apa} Ribeiro, M. T., Singh, S., \\& Guestrin, C. (2016). ``Why should I trust you?'': Explaining the predictions of any classifier. In \\textit{Proceedings of the 22nd ACM SIGKDD International Conference on Knowledge Discovery and Data Mining} (pp. 1135--1144).",
      '\\bibitem{vancouver} Ribeiro MT, Singh S, Guestrin C. "Why should I trust you?": explaining the predictions of any classifier. Proc 22nd ACM SIGKDD Int Conf Knowl Discov Data Min. 2016:1135-44.',
      '\\bibitem{apaSubtitle} Alaa, A. M., van Breugel, B., Saveliev, E. S., \\& van der Schaar, M. (2022). How faithful is your synthetic data? Sample-level metrics for evaluating and auditing generative models. In \\textit{Proceedings of the 39th International Conference on Machine Learning} (pp. 290--306).',
      '\\bibitem{vancouverSubtitle} Wang Y, Liu Q, Jin C. Is RLHF more difficult than standard RL? A theoretical perspective. Adv Neural Inf Process Syst. 2023;36:76006-32.',
      '\\bibitem{apaQuestion} Xu, K., Hu, W., Leskovec, J., \\& Jegelka, S. (2019). How powerful are graph neural networks? In \\textit{International Conference on Learning Representations}.',
      '\\bibitem{vancouverQuestion} Xu K, Hu W, Leskovec J, Jegelka S. How powerful are graph neural networks? Int Conf Learn Represent. 2019.',
      '\\bibitem{journalQuestion} Smith, J. (2020). Is it fair? \\textit{Nature}, \\textit{12}(3), 1--10.',
      '\\end{thebibliography}',
    ].join('\n');
    const words = (title: string | undefined): string | undefined => title?.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    const read = readBibliography(text, '/p/main.tex').entries.map((e) => [e.key, words(e.title), e.venue, e.authors.map((a) => a.family).join(', ')]);
    const trust = 'Why should I trust you Explaining the predictions of any classifier';
    const gnn = 'How powerful are graph neural networks';
    assert.deepEqual(read, [
      ['ieee', trust, 'Proc. 22nd ACM SIGKDD Int. Conf. Knowl. Discov. Data Min', 'Ribeiro, Singh, Guestrin'],
      ['apa', trust, 'Proceedings of the 22nd ACM SIGKDD International Conference on Knowledge Discovery and Data Mining', 'Ribeiro, Singh, Guestrin'],
      [
        'vancouver',
        'Why should I trust you explaining the predictions of any classifier',
        'Proc 22nd ACM SIGKDD Int Conf Knowl Discov Data Min. 2016:1135-44',
        'Ribeiro, Singh, Guestrin',
      ],
      [
        'apaSubtitle',
        'How faithful is your synthetic data Sample level metrics for evaluating and auditing generative models',
        'Proceedings of the 39th International Conference on Machine Learning',
        'Alaa, van Breugel, Saveliev, van der Schaar',
      ],
      ['vancouverSubtitle', 'Is RLHF more difficult than standard RL A theoretical perspective', 'Adv Neural Inf Process Syst', 'Wang, Liu, Jin'],
      ['apaQuestion', gnn, 'International Conference on Learning Representations', 'Xu, Hu, Leskovec, Jegelka'],
      ['vancouverQuestion', gnn, 'Int Conf Learn Represent', 'Xu, Hu, Leskovec, Jegelka'],
      ['journalQuestion', 'Is it fair', 'Nature', 'Smith'],
    ]);
  });

  it('reads no \\bibitem in a comment or outside thebibliography', () => {
    const text =
      '\\bibitem{outside} A. B. Outside the list entirely. J. 2001.\n\\begin{thebibliography}{1}\n% \\bibitem{commented} C. D. Commented out reference here. J. 2002.\n\\bibitem{kept} E. Fgh. A kept reference title. J. Things, 2003.\n\\end{thebibliography}';
    assert.deepEqual(
      readBibliography(text, '/p/main.tex').entries.map((e) => e.key),
      ['kept'],
    );
  });
});

describe('the bibliography as LaTeX and pandoc find it', () => {
  it('checks a thebibliography list: its entries are the bibliography, and an uncited one is unused', async () => {
    const tex =
      '\\documentclass{article}\\begin{document}As shown~\\cite{a}.\n\\begin{thebibliography}{2}\n\\bibitem{a} R. Angus. A title of a paper. Journal, 2001.\n\\bibitem{b} T. Morton. Another title of a paper. Journal, 2002.\n\\end{thebibliography}\\end{document}';
    const result = await checkManuscript('/p/main.tex', new MemoryWorkspace({ '/p/main.tex': tex }), new CheckSession());
    assert.ok(result);
    assert.deepEqual(
      citedEntries(result).map((e) => e.key),
      ['a'],
    );
    assert.deepEqual(
      result.findings.map((f) => [f.code, f.key]),
      [['unused-entry', 'b']],
    );
  });

  it('reads the .bbl beside the root when the .bib it names is absent: no key missing, no file missing', async () => {
    const bbl = await fs.readFile(path.join(FIXTURES, 'plainnat.bbl'), 'utf8');
    const tex = '\\documentclass{article}\\begin{document}Nested sampling~\\citep{Feroz:2009}.\\bibliography{celerite}\\end{document}';
    const result = await checkManuscript('/p/ms.tex', new MemoryWorkspace({ '/p/ms.tex': tex, '/p/ms.bbl': bbl }), new CheckSession());
    assert.ok(result);
    assert.deepEqual(
      result.findings.map((f) => f.code).filter((c) => c !== 'unused-entry'),
      [],
    );
    assert.deepEqual(
      citedEntries(result).map((e) => [e.key, e.year]),
      [['Feroz:2009', 2009]],
    );
    assert.ok(result.bibliographyFiles.includes(path.resolve('/p/ms.bbl')));
  });

  it('reads the .bib a filecontents* environment writes, its entries placed on the lines of the manuscript that hold them', async () => {
    const tex =
      '\\begin{filecontents*}[overwrite]{refs.bib}\n@article{goodman, author = {Goodman, Jonathan}, title = {Ensemble samplers with affine invariance}, year = {2010}}\n\\end{filecontents*}\n\\documentclass{article}\\begin{document}Samplers~\\cite{goodman}.\\bibliography{refs}\\end{document}';
    const result = await checkManuscript('/p/main.tex', new MemoryWorkspace({ '/p/main.tex': tex }), new CheckSession());
    assert.ok(result);
    assert.deepEqual(result.findings, []);
    const [entry] = citedEntries(result);
    assert.deepEqual([entry.key, entry.file, entry.range.start.line], ['goodman', path.resolve('/p/main.tex'), 1]);
  });

  it('looks a named .bib missing beside the root up in the search path (BIBINPUTS), and leaves a remote biblatex resource unread', async () => {
    const tex =
      '\\documentclass{article}\\addbibresource[location=remote]{https://example.org/refs.bib}\\addbibresource[datatype=bibtex]{shared.bib}\\begin{document}Samplers~\\cite{goodman}.\\end{document}';
    const files = {
      '/p/main.tex': tex,
      '/lib/bib/shared.bib': '@article{goodman, author = {Goodman, Jonathan}, title = {Ensemble samplers with affine invariance}, year = {2010}}',
    };
    const without = await checkManuscript('/p/main.tex', new MemoryWorkspace(files), new CheckSession());
    assert.deepEqual(
      without?.findings.map((f) => f.code),
      ['missing-file', 'missing-key'],
    );
    const result = await checkManuscript('/p/main.tex', new MemoryWorkspace(files), new CheckSession(), {
      environment: { BIBINPUTS: ['/elsewhere', '/lib/bib/'].join(path.delimiter) },
    });
    assert.ok(result);
    assert.deepEqual(result.findings, []);
    assert.deepEqual(
      citedEntries(result).map((e) => e.file),
      [path.resolve('/lib/bib/shared.bib')],
    );
  });

  it("checks every item of a Markdown document's References list when it names no bibliography", async () => {
    const md =
      '# Paper\n\nText [1].\n\n## References\n\n1. Goodman, J., & Weare, J. (2010). Ensemble samplers with affine invariance. *Communications in Applied Mathematics and Computational Science*, 5(1), 65–80.\n2. Ambikasaran, S. (2015). Generalized Rybicki Press algorithm.\n   *Numer. Linear Algebra Appl.*, 22(6). https://doi.org/10.1002/nla.2003\n\n## Appendix\n\n- not a reference at all\n';
    const result = await checkManuscript('/p/paper.md', new MemoryWorkspace({ '/p/paper.md': md }), new CheckSession());
    assert.ok(result);
    const entries = citedEntries(result);
    assert.deepEqual(
      entries.map((e) => [e.key, e.title, e.year, e.doi]),
      [
        ['1', 'Ensemble samplers with affine invariance', 2010, undefined],
        ['2', 'Generalized Rybicki Press algorithm', 2015, '10.1002/nla.2003'],
      ],
    );
    assert.deepEqual(result.findings, []);
  });
});

describe('references as text against the sources', () => {
  const WORKS: SimulatedWork[] = [
    {
      doi: '10.2140/camcos.2010.5.65',
      title: 'Ensemble samplers with affine invariance',
      family: 'Goodman',
      given: 'Jonathan',
      year: 2010,
      journal: 'Communications in Applied Mathematics and Computational Science',
      isRetracted: false,
    },
    {
      doi: '10.1002/nla.2003',
      title: 'Generalized Rybicki Press algorithm',
      family: 'Ambikasaran',
      given: 'Sivaram',
      year: 2015,
      journal: 'Numerical Linear Algebra with Applications',
      isRetracted: false,
    },
    {
      doi: '10.1111/j.1365-2966.2009.14548.x',
      title: 'MULTINEST: an efficient and robust Bayesian inference tool for cosmology and particle physics',
      family: 'Feroz',
      given: 'F.',
      year: 2009,
      journal: 'Monthly Notices of the Royal Astronomical Society',
      isRetracted: false,
    },
  ];
  let world: SimulatedSources;
  before(async () => {
    world = await SimulatedSources.start(WORKS);
  });
  after(() => world.close());

  const CITING = 'Samplers~\\cite{goodman,ambikasaran,feroz,fabricated,ibid}.';
  const BIB = `@article{goodman, author = {Goodman, Jonathan}, title = {Ensemble samplers with affine invariance}, journal = {Communications in Applied Mathematics and Computational Science}, year = {2010}}
@article{ambikasaran, author = {Ambikasaran, Sivaram}, title = {Generalized Rybicki Press algorithm}, journal = {Numer. Linear Algebra Appl.}, year = {2012}}
@article{feroz, author = {Feroz, F.}, title = {MULTINEST: an efficient and robust Bayesian inference tool for cosmology and particle physics}, journal = {Mon Not R Astron Soc}, year = {2009}}
@article{fabricated, author = {Quill, Ada}, title = {Spin-orbit resonances of tidally locked brown dwarfs in open clusters}, journal = {The Astrophysical Journal}, year = {2021}}
@misc{ibid, note = {Ibid.}}`;
  const THEBIBLIOGRAPHY = `\\begin{thebibliography}{5}
\\bibitem{goodman} Goodman, J. (2010). Ensemble samplers with affine invariance. \\textit{Communications in Applied Mathematics and Computational Science}, 5(1), 65--80.
\\bibitem{ambikasaran} S.~Ambikasaran, \`\`Generalized {R}ybicki {P}ress algorithm,'' \\emph{Numer. Linear Algebra Appl.}, vol.~22, 2012.
\\bibitem{feroz} Feroz F. MULTINEST: an efficient and robust Bayesian inference tool for cosmology and particle physics. Mon Not R Astron Soc. 2009;398(4):1601-14.
\\bibitem{fabricated} A.~Quill.
\\newblock Spin-orbit resonances of tidally locked brown dwarfs in open clusters.
\\newblock \\emph{The Astrophysical Journal}, 2021.
\\bibitem{ibid} Ibid.
\\end{thebibliography}`;

  async function verdictsOf(files: Record<string, string>): Promise<Map<string, string>> {
    const result = await checkManuscript('/p/main.tex', new MemoryWorkspace(files), new CheckSession());
    assert.ok(result);
    const verdicts = await verifyEntries(citedEntries(result), world.sources(['crossref', 'openalex']));
    return new Map(
      [...verdicts].map(([key, { verdict }]) => [
        key,
        verdict.status === 'metadata-mismatch' ? `${verdict.status}: ${verdict.differences.map((d) => d.field).join(',')}` : verdict.status,
      ]),
    );
  }

  it('gives a thebibliography the verdicts the same references get in a .bib: found, mismatched, fabricated, unchecked', async () => {
    const fromBib = await verdictsOf({ '/p/main.tex': `\\documentclass{article}\\begin{document}${CITING}\\bibliography{refs}\\end{document}`, '/p/refs.bib': BIB });
    const fromList = await verdictsOf({ '/p/main.tex': `\\documentclass{article}\\begin{document}${CITING}\n${THEBIBLIOGRAPHY}\\end{document}` });
    assert.deepEqual(Object.fromEntries(fromList), { goodman: 'found', ambikasaran: 'metadata-mismatch: year,venue', feroz: 'found', fabricated: 'not-found', ibid: 'unchecked' });
    assert.deepEqual(Object.fromEntries(fromList), Object.fromEntries(fromBib));
  });

  it('says why a reference too short to read was not looked up', async () => {
    const result = await checkManuscript(
      '/p/main.tex',
      new MemoryWorkspace({ '/p/main.tex': `\\documentclass{article}\\begin{document}${CITING}\n${THEBIBLIOGRAPHY}\\end{document}` }),
      new CheckSession(),
    );
    assert.ok(result);
    const verdicts = await verifyEntries(
      citedEntries(result).filter((e) => e.key === 'ibid'),
      world.sources(['crossref', 'openalex']),
    );
    const verdict = verdicts.get('ibid')?.verdict;
    assert.equal(verdict?.status, 'unchecked');
    assert.match(verdict?.status === 'unchecked' ? verdict.reason : '', /reference text is too short/);
  });
});
