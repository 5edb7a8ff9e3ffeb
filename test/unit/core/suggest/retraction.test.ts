import assert from 'node:assert/strict';
import type { EvidenceFinder, EvidenceQuery, EvidenceResults } from '../../../../src/core/evidence';
import { paperFromRecord, type Paper } from '../../../../src/core/papers/paper';
import { parseCrossrefWork } from '../../../../src/core/sources/crossref';
import { parseOpenAlexWork } from '../../../../src/core/sources/openalex';
import { OpenAiLlm } from '../../../../src/core/suggest/llm';
import { suggest } from '../../../../src/core/suggest/suggest';
import { ChatServer } from '../../support/chatServer';

const RETRACTED = paperFromRecord(
  parseCrossrefWork({
    DOI: '10.1016/S0140-6736(20)31180-6',
    title: ['RETRACTED: Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19'],
    abstract: '<jats:p>Hydroxychloroquine was associated with higher in-hospital mortality. No benefit was seen for COVID-19.</jats:p>',
    'updated-by': [{ DOI: '10.1016/s0140-6736(20)31324-6', type: 'retraction', source: 'retraction-watch', 'record-id': 31432 }],
  }),
);

describe('retracted papers as evidence', () => {
  it('marks a paper found through a source that shows it retracted, withdrawn or under concern, or whose title bears the mark', () => {
    assert.equal(RETRACTED.standing, 'retracted');
    const flagged = parseOpenAlexWork({ id: 'https://openalex.org/W1', title: 'Ivermectin for COVID-19', is_retracted: true });
    assert.equal(paperFromRecord(flagged).standing, 'retracted');
    const marked = parseOpenAlexWork({ id: 'https://openalex.org/W2', title: 'RETRACTED ARTICLE: Ivermectin for COVID-19' });
    assert.equal(paperFromRecord(marked).standing, 'retracted');
    const concern = parseCrossrefWork({ DOI: '10.1000/c', title: ['Doubted'], 'updated-by': [{ DOI: '10.1000/n', type: 'expression_of_concern' }] });
    assert.equal(paperFromRecord(concern).standing, 'expression-of-concern');
    const corrected = parseCrossrefWork({ DOI: '10.1000/k', title: ['Corrected'], 'updated-by': [{ DOI: '10.1000/e', type: 'erratum' }] });
    assert.equal(paperFromRecord(corrected).standing, undefined);
  });

  it('never gives Suggest’s model a retracted paper to cite, and says it was left out', async () => {
    const sound: Paper = {
      id: 'doi:10.1000/sound',
      title: 'Hydroxychloroquine in hospitalized patients with COVID-19',
      authors: [{ family: 'Horby' }],
      abstract: 'Hydroxychloroquine did not lower mortality. Patients were randomised in 176 hospitals.',
    };
    const finder: EvidenceFinder = {
      async find(query: EvidenceQuery): Promise<EvidenceResults> {
        return { mode: 'lexical', results: [RETRACTED, sound].slice(0, query.limit).map((paper, i) => ({ paper, score: 1 / (i + 1) })), notes: [] };
      },
    };
    const server = await ChatServer.start((request) =>
      request.body.messages[1]?.content.startsWith('Sources:') ? { text: 'Hydroxychloroquine did not lower mortality [1].' } : { text: '["hydroxychloroquine mortality"]' },
    );
    try {
      const llm = new OpenAiLlm({ baseUrl: server.baseUrl, model: 'local', temperature: 0, maxTokens: 400, timeoutMs: 5000, maxRetries: 1 });
      const result = await suggest({ selection: 'Hydroxychloroquine does not lower mortality.', finder, llm, judge: async () => ({ label: 'supported', relevance: 1 }) });
      assert.deepEqual(
        result.sources.map((p) => p.id),
        ['doi:10.1000/sound'],
      );
      const shown = server.received.map((r) => r.body.messages.map((m) => m.content).join('\n')).join('\n');
      assert.doesNotMatch(shown, /RETRACTED|macrolide/);
      assert.ok(result.notes.includes('1 retracted or withdrawn paper was left out of the sources.'), result.notes.join('\n'));
    } finally {
      await server.close();
    }
  });
});
