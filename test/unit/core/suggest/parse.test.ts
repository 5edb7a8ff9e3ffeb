import assert from 'node:assert/strict';
import { parseDraft, type DraftSentence, type ParsedDraft, type Removal } from '../../../../src/core/suggest/parse';

function draftOf(parsed: ParsedDraft): { sentences: readonly DraftSentence[]; removed: readonly Removal[] } {
  assert.equal(parsed.kind, 'draft', JSON.stringify(parsed));
  return parsed.kind === 'draft' ? parsed : { sentences: [], removed: [] };
}

/** What is kept of `draft`, one sentence per line ("text ← 1,2"), and why each other one went. */
function outcome(draft: string, sources = 5): { kept: string[]; removed: string[] } {
  const { sentences, removed } = draftOf(parseDraft(draft, sources));
  return { kept: sentences.map((s) => `${s.text} ← ${s.sources.join(',')}`), removed: removed.map((r) => r.reason) };
}

describe('reading a drafted suggestion', () => {
  it('reads [1], [1, 3], [1-3] and [1][2] as citations of the numbered sources', () => {
    const { sentences, removed } = draftOf(parseDraft('Caching cuts latency [1, 3]. Memory use falls [2–4]. It scales [2][5]. It is cheap [1;2].', 5));
    assert.deepEqual(sentences, [
      { text: 'Caching cuts latency.', sources: [1, 3] },
      { text: 'Memory use falls.', sources: [2, 3, 4] },
      { text: 'It scales.', sources: [2, 5] },
      { text: 'It is cheap.', sources: [1, 2] },
    ]);
    assert.deepEqual(removed, []);
  });

  it('gives a marker after the full stop to the sentence before it, and to no other', () => {
    assert.deepEqual(draftOf(parseDraft('Caching helps.[1] Memory falls. [2][3]', 3)).sentences, [
      { text: 'Caching helps.', sources: [1] },
      { text: 'Memory falls.', sources: [2, 3] },
    ]);
    // The sentence before the stray marker was dropped: the marker does not move on to an earlier one.
    assert.deepEqual(outcome('Caching helps [1]. See Smith et al. [2]. 12 [3].', 3), {
      kept: ['Caching helps. ← 1'],
      removed: ['works named by "et al."', 'no words: markers, numbers or punctuation without a sentence to cite'],
    });
  });

  it('drops a sentence whose marker names a source that was not given, whole', () => {
    const parsed = parseDraft('Caching helps [7]. Memory falls [2, 9]. Costs drop [4-8]. Nothing [0]. Speed rises [2].', 5);
    assert.deepEqual(draftOf(parsed).sentences, [{ text: 'Speed rises.', sources: [2] }]);
    assert.deepEqual(draftOf(parsed).removed, [
      { text: 'Caching helps [7].', reason: 'it cites source 7, but there are 5 sources' },
      { text: 'Memory falls [2, 9].', reason: 'it cites source 9, but there are 5 sources' },
      { text: 'Costs drop [4-8].', reason: 'it cites source 4–8, but there are 5 sources' },
      { text: 'Nothing [0].', reason: 'it cites source 0, but there are 5 sources' },
    ]);
  });

  it('keeps a sentence that cites nothing, with no sources', () => {
    assert.deepEqual(draftOf(parseDraft('Caching is widely used. It cuts latency [1].', 1)).sentences, [
      { text: 'Caching is widely used.', sources: [] },
      { text: 'It cuts latency.', sources: [1] },
    ]);
  });

  it('keeps abbreviations, initials and decimals inside their sentence', () => {
    assert.deepEqual(outcome('LRU (e.g. in Fig. 2) beats FIFO by 3.5 points, as J. Smith measured [1]. It scales [2].').kept, [
      'LRU (e.g. in Fig. 2) beats FIFO by 3.5 points, as J. Smith measured. ← 1',
      'It scales. ← 2',
    ]);
  });

  it('keeps prose that only looks like a pointer: decades, counts in words, studies without a name', () => {
    const prose = ["Caching spread in the '90s. ← 1", 'The study enrolled twenty patients. ← 1', 'This review covers Phase III trials. ← 1', 'Their study found the same. ← 1'];
    assert.deepEqual(outcome(prose.map((s) => s.replace(/\. ← 1$/, ' [1].')).join(' ')).kept, prose);
  });

  it('keeps statistics, plain numbers, dates and the specials prose uses', () => {
    assert.deepEqual(
      outcome(
        'Risk rose (95% CI 1.2–3.4) in COVID-19 patients, R&D costs fell by $5 [1]. In 2019 the trial began [2]. From March 2020 until Spring 2021 it ran [2]. Half (½) of Phase Ⅲ ended [1].',
      ).kept,
      [
        'Risk rose (95% CI 1.2–3.4) in COVID-19 patients, R&D costs fell by $5. ← 1',
        'In 2019 the trial began. ← 2',
        'From March 2020 until Spring 2021 it ran. ← 2',
        'Half (1⁄2) of Phase III ended. ← 1',
      ],
    );
  });

  it('takes out a list of works the model appended, from its heading on', () => {
    const parsed = parseDraft('Caching helps [1].\n\n**References**\n[1] Smith J. (2020). Caching. J Sys.\n[2] Lee K. Memory.', 2);
    assert.deepEqual(draftOf(parsed).sentences, [{ text: 'Caching helps.', sources: [1] }]);
    assert.deepEqual(draftOf(parsed).removed, [
      { text: '**References**\n[1] Smith J. (2020). Caching. J Sys.\n[2] Lee K. Memory.', reason: 'a list of works: only the numbered sources may be cited' },
    ]);
    assert.deepEqual(outcome('Caching helps [1].\nFurther reading: Lee, Memory, and Park, Caches.', 2), {
      kept: ['Caching helps. ← 1'],
      removed: ['a list of works: only the numbered sources may be cited'],
    });
    // A sentence that merely starts with one of the words is text.
    assert.deepEqual(outcome('Sources of latency include disks [1].', 2).kept, ['Sources of latency include disks. ← 1']);
  });

  it('reads past reasoning, fences, list markers and emphasis, and lists a heading as taken out', () => {
    const reply = '<think>Maybe cite [9] (Smith, 2020).</think>\n```\n## Summary\n- Caching helps [1].\n- **Memory** falls [2].\n```';
    assert.deepEqual(parseDraft(reply, 2), {
      kind: 'draft',
      sentences: [
        { text: 'Caching helps.', sources: [1] },
        { text: 'Memory falls.', sources: [2] },
      ],
      removed: [{ text: '## Summary', reason: 'a heading, which is layout rather than text' }],
    });
  });

  it('keeps no more sentences and characters than the limits, and stops reading there', () => {
    const draft = 'One is here [1]. Two is here [1]. Three is here [1]. Four is here [1].';
    assert.deepEqual(draftOf(parseDraft(draft, 1, { maxSentences: 2, maxCharacters: 1000 })).removed, [
      { text: 'Three is here [1].', reason: 'beyond the limit of 2 sentences (attest.suggest.maxSentences); the rest of the draft after it was not read' },
    ]);
    const short = draftOf(parseDraft(draft, 1, { maxSentences: 9, maxCharacters: 30 }));
    assert.deepEqual(
      short.sentences.map((s) => s.text),
      ['One is here.', 'Two is here.'],
    );
    assert.match(short.removed[0].reason, /^beyond the limit of 30 characters/);
  });

  it('stops reading a reply that is mostly taken out, and says so', () => {
    const { sentences, removed } = draftOf(parseDraft(`Kept here [1]. ${'Smith et al. agree [1]. '.repeat(500)}Never read [1].`, 1));
    assert.deepEqual(
      sentences.map((s) => s.text),
      ['Kept here.'],
    );
    assert.equal(removed.length, 51);
    assert.match(removed[50].reason, /^not read, nor anything after it: more than 50 parts/);
  });

  it('reads INSUFFICIENT with the follow-up query, or without one', () => {
    assert.deepEqual(parseDraft('INSUFFICIENT: caching energy use on phones', 3), { kind: 'insufficient', query: 'caching energy use on phones' });
    assert.deepEqual(parseDraft('The sources say little.\n**INSUFFICIENT**: "caching energy"', 3), { kind: 'insufficient', query: 'caching energy' });
    assert.deepEqual(parseDraft('INSUFFICIENT', 3), { kind: 'insufficient', query: undefined });
    // A sentence that merely starts with the word is not the marker.
    assert.equal(parseDraft('Insufficient sleep harms memory [1].', 1).kind, 'draft');
  });

  it('calls an empty reply empty, and one without sentences malformed', () => {
    assert.deepEqual(parseDraft('', 3), { kind: 'empty' });
    assert.deepEqual(parseDraft('  <think>Only thinking, then cut off', 3), { kind: 'empty' });
    assert.deepEqual(parseDraft('\u200b\u202e\u2066', 3), { kind: 'empty' });
    assert.deepEqual(parseDraft('[1][2] ... 42', 3), { kind: 'malformed', reason: 'the reply holds no words' });
    assert.deepEqual(parseDraft('{"text": "Caching helps [1]"}', 3), { kind: 'malformed', reason: 'the reply is data (JSON), not sentences' });
  });

  describe('drops every sentence that still points at a work, saying how', () => {
    const CASES: readonly [string, string, RegExp][] = [
      ['a number in parentheses', 'Caching helps (7) [1].', /number in parentheses/],
      ['a list of numbers in parentheses', 'Caching helps (7, 12–14) [1].', /number in parentheses/],
      ['a labelled number in parentheses', 'Caching helps (S7) (ref 7) [1].', /number in parentheses|reference to a work/],
      ['a page in parentheses', 'Caching helps (7, p. 4) [1].', /number in parentheses/],
      ['superscript digits', 'Caching helps¹⁷ [1].', /superscript/],
      ['subscript digits', 'Caching helps₇ [1].', /superscript/],
      ['a circled number', 'Caching helps ⑦ [1].', /superscript, circled number/],
      ['a dingbat circled number', 'Caching helps ❼ [1].', /superscript, circled number/],
      ['a parenthesised number sign', 'Caching helps ⑺ [1].', /superscript, circled number/],
      ['a number with a full stop sign', 'Caching helps ⒎ [1].', /superscript, circled number/],
      ['a negative circled number', 'Caching helps ➐ [1].', /superscript, circled number/],
      ['a superscript letter', 'Caching helpsᵃ [1].', /superscript, circled number/],
      ['a dagger', 'Caching helps† [1].', /dagger/],
      ['a section sign', 'Caching helps (see §) [1].', /dagger/],
      ['an author and year without punctuation', 'As Smith 2019 showed, caching helps [1].', /author and year/],
      ['an author as a reference list writes it', 'Caching helps, as Vaswani, A. and Shazeer, N. showed [1].', /reference list writes it/],
      ['pages of a publication', 'Caching helps, Journal of Systems 12, pp. 45–67 [1].', /volume, pages/],
      ['a volume', 'Caching helps, vol. 12 [1].', /volume, pages/],
      ['ibid.', 'Caching helps, ibid. [1].', /ibid/],
      ['a superscript in parentheses', 'Caching helps⁽⁷⁾ [1].', /superscript, circled number/],
      ['lenticular brackets', 'Caching helps 【7】 [1].', /bracket of the kind/],
      ['tortoise-shell brackets', 'Caching helps 〔7〕 [1].', /bracket of the kind/],
      ['fullwidth brackets with a source beyond those given', 'Caching helps ［7］.', /cites source 7/],
      ['fullwidth digits in brackets', 'Caching helps [７].', /cites source 7/],
      ['mathematical digits in brackets', 'Caching helps [𝟕].', /cites source 7/],
      ['Arabic-Indic digits in brackets', 'Caching helps [٧] [1].', /bracket that is not/],
      ['Devanagari digits in brackets', 'Caching helps [७] [1].', /bracket that is not/],
      ['a zero-width space inside a marker', 'Caching helps [\u200b7].', /cites source 7/],
      ['a bidi override inside a marker', 'Caching helps [\u202e7\u202c].', /cites source 7/],
      ['a soft hyphen inside a marker', 'Caching helps [\u00ad7].', /cites source 7/],
      ['ref inside brackets', 'Caching helps [ref 7] [1].', /bracket that is not/],
      ['a supplementary label', 'Caching helps [S7] [1].', /bracket that is not/],
      ['a page in brackets', 'Caching helps [7, p. 4] [1].', /bracket that is not/],
      ['an unclosed bracket', 'Caching helps [1 and more [2].', /bracket that is not/],
      ['a key in brackets', 'Caching helps [Smith2020] [1].', /bracket that is not/],
      ['a pandoc citation', 'Caching helps [@smith2020] [1].', /bracket that is not|citation key/],
      ['a bare pandoc key', 'As @smith2020 shows, caching helps [1].', /citation key/],
      ['a pandoc note', 'Caching helps^[See Smith 2019.] [1].', /bracket that is not/],
      ['an author in press', 'Caching helps (Smith, in press) [1].', /in press/],
      ['a personal communication', 'Caching helps (J. Lee, personal communication) [1].', /in press|unpublished/],
      ['an author and year in parentheses', 'Caching helps (Smith, 2019) [1].', /author and year|year in parentheses/],
      ['a year in parentheses', 'Smith (2019) showed caching helps [1].', /year in parentheses/],
      ['et al.', 'Smith et al. showed caching helps [1].', /et al/],
      ['et al without a stop', 'Smith et al showed caching helps [1].', /et al/],
      ['a possessive and a year', "Smith's 2019 study shows caching helps [1].", /author and year/],
      ['a curly possessive and a year', 'Smith’s landmark 2019 study shows caching helps [1].', /author and year/],
      ['two authors and a year', 'As Lee and Park, 2019 found, caching helps [1].', /author and year/],
      ['a year naming a study', 'The 2019 review found caching helps [1].', /named by its year/],
      ['ref. with a number', 'Caching helps, see ref. 12 [1].', /reference to a work/],
      ['refs. with numbers', 'Caching helps (refs. 3-5) [1].', /reference to a work/],
      ['reference with a number', 'Caching helps, as reference 12 shows [1].', /reference to a work/],
      ['a DOI', 'Caching helps, doi:10.1/x [1].', /DOI/],
      ['a bare DOI', 'Caching helps 10.1145/3368089.3409742 [1].', /DOI/],
      ['an arXiv identifier', 'Caching helps, arXiv 2301.00001 [1].', /arXiv/],
      ['a new-style arXiv number alone', 'Caching helps, as 2301.00001v2 shows [1].', /arXiv/],
      ['an old-style arXiv identifier', 'Caching helps, as hep-th/9901001 shows [1].', /arXiv/],
      ['a PubMed ID', 'Caching helps, PubMed ID 31234567 [1].', /PMID/],
      ['a PMID', 'Caching helps (PMID: 31234567) [1].', /PMID/],
      ['a PMC id', 'Caching helps, PMC1234567 [1].', /PMID/],
      ['an ISBN', 'Caching helps, ISBN 978-3-16-148410-0 [1].', /ISBN/],
      ['a URL', 'Caching helps, https://example.org/x [1].', /URL/],
      ['www', 'Caching helps, www.example.org [1].', /URL/],
      ['a domain and file', 'Caching helps, see example.org/paper.pdf [1].', /web address/],
      ['a bare domain', 'Caching helps, says nature.com [1].', /web address/],
      ['raw HTML', 'Caching helps<sup>7</sup> [1].', /HTML/],
      ['an HTML link', 'Caching helps, <a href="x">see</a> [1].', /HTML/],
      ['an HTML entity', 'Caching helps &#91;7&#93; [1].', /HTML/],
      ['\\cite', 'Caching helps \\cite{smith2019} [1].', /TeX/],
      ['\\Cite with a space', 'Caching helps \\Cite {smith2019} [1].', /TeX/],
      ['\\footnote', 'Caching helps\\footnote{See Smith 2019.} [1].', /TeX/],
      ['\\input', 'Caching helps \\input{/etc/passwd} [1].', /TeX/],
      ['TeX caret notation', 'Caching helps ^^5cinput{x} [1].', /TeX/],
      ['a lone backslash', 'Caching helps \\ [1].', /TeX/],
      ['a backslash before the marker', 'Caching helps\\[1].', /TeX/],
      ['a double backslash and comment', 'Caching helps \\\\% [1].', /TeX/],
      ['fullwidth backslash', 'Caching helps ＼cite{x} [1].', /TeX/],
      ['an author and colleagues in a venue', 'Caching helps, as Vaswani and colleagues showed in their NeurIPS paper [1].', /and colleagues|where it appeared/],
      ['a venue naming a paper', 'Caching helps, as a NeurIPS paper showed [1].', /where it appeared/],
      ['a possessive and a venue', 'Caching helps, as shown in their Nature paper [1].', /where it appeared/],
      ['a possessive and a year in words', "Smith's twenty-twenty study shows caching helps [1].", /its author|its year/],
      ['a year in words naming a study', 'The two thousand and nineteen review found caching helps [1].', /its year/],
      ['an author without a date', 'Caching helps (Jones, n.d.) [1].', /n\.d\./],
      ['two authors and a short year', "Caching helps (Smith & Jones, '19) [1].", /author and year|year in parentheses/],
      ['an author and a curly short year', 'Caching helps, as Smith, ’19 found [1].', /author and year/],
    ];
    for (const [name, draft, reason] of CASES) {
      it(name, () => {
        const { sentences, removed } = draftOf(parseDraft(`Kept sentence [2]. ${draft} Also kept [2].`, 5));
        assert.deepEqual(
          sentences.map((s) => s.text),
          ['Kept sentence.', 'Also kept.'],
          `kept: ${JSON.stringify(sentences)}, removed: ${JSON.stringify(removed)}`,
        );
        assert.ok(removed.length > 0 && removed.every((r) => reason.test(r.reason)), JSON.stringify(removed));
      });
    }
  });
});

describe('every digit, number sign and bracket Unicode has', () => {
  /** Every code point of a general category, as strings. */
  function everyCharacter(category: RegExp): string[] {
    const found: string[] = [];
    for (let code = 0x80; code <= 0x1ffff; code++) {
      const char = String.fromCodePoint(code);
      if (category.test(char)) found.push(char);
    }
    return found;
  }

  /** Read as a citation of given sources, or dropped: never kept as text with the number in it. */
  function assertCitesOrDrops(pointer: string): void {
    const parsed = parseDraft(`Kept here [1]. Caching helps ${pointer} [2]. Also kept [1].`, 9);
    const kept = draftOf(parsed).sentences.map((s) => s.text);
    assert.ok(
      ['Kept here.|Also kept.', 'Kept here.|Caching helps.|Also kept.'].includes(kept.join('|')),
      `${JSON.stringify(pointer)} (U+${pointer.codePointAt(0)?.toString(16)}) left ${JSON.stringify(kept)}`,
    );
  }

  it('reads a decimal digit of any script in brackets as a marker or drops its sentence', () => {
    const digits = everyCharacter(/\p{Nd}/u);
    assert.ok(digits.length > 600);
    for (const digit of digits) assertCitesOrDrops(`[${digit}]`);
  });

  it('drops a sentence with any other number sign after a word', () => {
    const signs = everyCharacter(/\p{No}/u).filter((c) => !/[\u00BC-\u00BE\u2150-\u218F]/u.test(c));
    assert.ok(signs.length > 500);
    for (const sign of signs) assertCitesOrDrops(`x${sign}`);
  });

  it('drops a sentence with a number in any kind of bracket', () => {
    const openers = everyCharacter(/\p{Ps}/u);
    assert.ok(openers.length > 60);
    for (const open of openers) {
      const close = String.fromCodePoint((open.codePointAt(0) ?? 0) + 1);
      assertCitesOrDrops(`${open}7${close}`);
      assertCitesOrDrops(`${open}7`);
    }
  });
});
