import assert from 'node:assert/strict';
import { parseDraft, type DraftSentence, type ParsedDraft, type Removal } from '../../src/core/suggest/parse';

function draftOf(parsed: ParsedDraft): { sentences: readonly DraftSentence[]; removed: readonly Removal[] } {
  assert.equal(parsed.kind, 'draft', JSON.stringify(parsed));
  return parsed.kind === 'draft' ? parsed : { sentences: [], removed: [] };
}

function removedTexts(parsed: ParsedDraft): string[] {
  return draftOf(parsed).removed.map((r) => r.text);
}

describe('reading a drafted suggestion', () => {
  it('reads [1], [1, 3], [1-3] and [1][2] as citations of the numbered sources', () => {
    const { sentences, removed } = draftOf(parseDraft('Caching cuts latency [1, 3]. Memory use falls [2–4]. It scales [2][5]. It is cheap [Source 1].', 5));
    assert.deepEqual(sentences, [
      { text: 'Caching cuts latency.', sources: [1, 3] },
      { text: 'Memory use falls.', sources: [2, 3, 4] },
      { text: 'It scales.', sources: [2, 5] },
      { text: 'It is cheap.', sources: [1] },
    ]);
    assert.deepEqual(removed, []);
  });

  it('gives a marker after the full stop to the sentence before it', () => {
    assert.deepEqual(draftOf(parseDraft('Caching helps.[1] Memory falls. [2][3]', 3)).sentences, [
      { text: 'Caching helps.', sources: [1] },
      { text: 'Memory falls.', sources: [2, 3] },
    ]);
  });

  it('takes out a number beyond the sources, and keeps the valid ones of the same marker', () => {
    const parsed = parseDraft('Caching helps [7]. Memory falls [2, 9]. Costs drop [4-8]. Nothing [0].', 5);
    assert.deepEqual(draftOf(parsed).sentences, [
      { text: 'Caching helps.', sources: [] },
      { text: 'Memory falls.', sources: [2] },
      { text: 'Costs drop.', sources: [4, 5] },
      { text: 'Nothing.', sources: [] },
    ]);
    assert.deepEqual(draftOf(parsed).removed, [
      { text: '[7]', reason: 'cites source 7, but there are 5 sources' },
      { text: '[2, 9]', reason: 'cites source 9, but there are 5 sources' },
      { text: '[4-8]', reason: 'cites source 4–8, but there are 5 sources' },
      { text: '[0]', reason: 'cites source 0, but there are 5 sources' },
    ]);
  });

  it('takes out author–year citations, DOIs, URLs, identifiers, keys and \\cite, saying why', () => {
    const parsed = parseDraft(
      [
        'Caching cuts latency (Smith et al., 2020) [1].',
        'Prior work agrees (e.g. Lee and Park 2019; WHO, 2021) [2].',
        'The data are at https://example.org/data.csv and doi:10.1234/abc.567 [3].',
        'It was replicated (10.5555/xyz-9) [Smith2020] [Lee et al., 2019] [@lee19] [^2].',
        'See arXiv:2101.00001v2 and PMID: 31234567 \\citep[p. 3]{lee2019}.',
      ].join(' '),
      5,
    );
    assert.deepEqual(removedTexts(parsed), [
      '(Smith et al., 2020)',
      '(e.g. Lee and Park 2019; WHO, 2021)',
      'https://example.org/data.csv',
      'doi:10.1234/abc.567',
      '10.5555/xyz-9',
      '[@lee19]',
      '[Smith2020]',
      '[Lee et al., 2019]',
      '[^2]',
      'arXiv:2101.00001v2',
      'PMID: 31234567',
      '\\citep[p. 3]{lee2019}',
    ]);
    assert.deepEqual(
      draftOf(parsed).sentences.map((s) => s.text),
      ['Caching cuts latency.', 'Prior work agrees.', 'The data are at and.', 'It was replicated.', 'See and.'],
    );
    assert.match(draftOf(parsed).removed[0].reason, /author–year citation: only the numbered sources may be cited/);
  });

  it('drops a sentence that credits a work by name', () => {
    const parsed = parseDraft('Smith et al. (2020) showed that caching helps [1]. Lee and Park (2019) disagree [2]. Jones et al. found more [3]. Caching helps [1].', 3);
    assert.deepEqual(draftOf(parsed).sentences, [{ text: 'Caching helps.', sources: [1] }]);
    assert.deepEqual(
      draftOf(parsed).removed.map((r) => r.reason),
      [
        'it credits Smith et al. (2020) by name: only the numbered sources may be cited',
        'it credits Lee and Park (2019) by name: only the numbered sources may be cited',
        'it credits Jones et al. by name: only the numbered sources may be cited',
      ],
    );
  });

  it('leaves dates, statistics and editorial brackets alone', () => {
    const text = 'In March 2020 (March 2020) the trial began [1]. Risk rose (95% CI 1.2–3.4) [sic] in COVID-19 (2020 cohort) [2].';
    assert.deepEqual(parseDraft(text, 2), {
      kind: 'draft',
      sentences: [
        { text: 'In March 2020 (March 2020) the trial began.', sources: [1] },
        { text: 'Risk rose (95% CI 1.2–3.4) [sic] in COVID-19 (2020 cohort).', sources: [2] },
      ],
      removed: [],
    });
  });

  it('takes out a reference list the model appended, with or without a heading', () => {
    const withHeading = parseDraft('Caching helps [1].\n\n**References**\n[1] Smith J. (2020). Caching. J Sys.\n[2] Lee K. Memory.', 2);
    assert.deepEqual(draftOf(withHeading).sentences, [{ text: 'Caching helps.', sources: [1] }]);
    assert.deepEqual(removedTexts(withHeading), ['**References**\n[1] Smith J. (2020). Caching. J Sys.\n[2] Lee K. Memory.']);
    const bare = parseDraft('Caching helps [1].\n[1] Smith, J., 2020. Caching. doi:10.1/x', 2);
    assert.deepEqual(draftOf(bare).sentences, [{ text: 'Caching helps.', sources: [1] }]);
  });

  it('reads past reasoning, fences, list markers and headings', () => {
    const reply = '<think>Maybe cite [9] (Smith, 2020).</think>\n```\n## Summary\n- Caching helps [1].\n- **Memory** falls [2].\n```';
    assert.deepEqual(parseDraft(reply, 2), {
      kind: 'draft',
      sentences: [
        { text: 'Caching helps.', sources: [1] },
        { text: 'Memory falls.', sources: [2] },
      ],
      removed: [],
    });
  });

  it('keeps a sentence that cites nothing, with no sources', () => {
    assert.deepEqual(draftOf(parseDraft('Caching is widely used. It cuts latency [1].', 1)).sentences, [
      { text: 'Caching is widely used.', sources: [] },
      { text: 'It cuts latency.', sources: [1] },
    ]);
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
    assert.deepEqual(parseDraft('[1][2] ... 42', 3), { kind: 'malformed', reason: 'the reply holds no words' });
    assert.deepEqual(parseDraft('{"text": "Caching helps [1]"}', 3), { kind: 'malformed', reason: 'the reply is data (JSON), not sentences' });
  });
});
