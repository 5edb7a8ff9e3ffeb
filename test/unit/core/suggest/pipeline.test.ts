import assert from 'node:assert/strict';
import type { EvidenceFinder, EvidenceQuery, EvidenceResults } from '../../../../src/core/evidence';
import type { Paper } from '../../../../src/core/papers/paper';
import { LlmError, OpenAiLlm } from '../../../../src/core/suggest/llm';
import type { SentenceJudge } from '../../../../src/core/suggest/recheck';
import { suggest, type SuggestProgress, type Suggestion } from '../../../../src/core/suggest/suggest';
import type { SupportJudgement } from '../../../../src/core/verify/support';
import { ChatServer, type ChatReply, type ReceivedChat } from '../../support/chatServer';

function paper(n: number, title: string, abstract?: string): Paper {
  return { id: `doi:10.1000/p${n}`, title, year: 2015 + n, authors: [{ family: `Author${n}` }], abstract };
}

const PAPERS = [
  paper(1, 'Caching in web servers', 'We study caching in web servers. Caching cuts median latency by forty percent. Twelve servers were measured.'),
  paper(2, 'Memory cost of caches', 'Caches trade memory for speed. Memory use rose by ten percent with caching.'),
  paper(3, 'Cache eviction policies', 'LRU eviction performs well on web traffic. Memory use depends on the eviction policy.'),
  paper(4, 'Without an abstract'),
  paper(5, 'Content delivery networks', 'Content delivery networks cache pages near users. Latency falls for distant users.'),
  paper(6, 'Energy use of servers', 'Servers draw most power when idle. Caching barely changes energy use.'),
];
/** Found only by the search the model asks for when it finds the evidence insufficient. */
const ENERGY = paper(7, 'Energy of caching on phones', 'Caching on phones saves battery energy. Radio use falls when pages are cached.');

const SELECTION = 'Caching reduces the latency of web servers.';

/** Every query finds the first six papers (one without an abstract); a query about energy finds ENERGY. */
class FakeFinder implements EvidenceFinder {
  readonly queries: string[] = [];
  constructor(private readonly papers: readonly Paper[] = PAPERS) {}
  async find(query: EvidenceQuery): Promise<EvidenceResults> {
    this.queries.push(query.text);
    const papers = /energy/i.test(query.text) ? [ENERGY, ...this.papers] : this.papers;
    return { mode: 'lexical', results: papers.slice(0, query.limit).map((p, i) => ({ paper: p, score: 1 / (i + 1) })), notes: ['Search is lexical: no sentence encoder.'] };
  }
}

/** Supports a sentence when the passages hold three of its words of five letters or more. */
class FakeJudge {
  readonly calls: { claim: string; passages: readonly string[] }[] = [];
  readonly judge: SentenceJudge = async (claim, passages) => {
    this.calls.push({ claim, passages });
    const text = passages.join(' ').toLowerCase();
    const shared = (claim.toLowerCase().match(/[a-z]{5,}/g) ?? []).filter((w) => text.includes(w));
    const label = shared.length >= 3 ? 'supported' : 'unsupported';
    const judgement: SupportJudgement = { label, relevance: shared.length / 10, entailment: label === 'supported' ? 0.9 : 0.1, sentence: passages[0] };
    return judgement;
  };
}

const QUERIES: ChatReply = { text: '["caching latency web servers", "cache memory overhead"]' };

function isDraft(request: ReceivedChat): boolean {
  return request.body.messages[1]?.content.startsWith('Sources:') ?? false;
}

/** Anything in a kept sentence that reads as a citation: a marker, a DOI, a URL, an author and year. */
const CITATION_LIKE = /\[\s*\d|\bdoi\b|10\.\d{4,}\/|https?:|www\.|et al|\(\D*(?:19|20)\d{2}\D*\)|\\cite|@\w+\d/i;

/** The guarantee: every citation is one of the sources given, and no kept sentence cites anything else. */
function assertNothingFabricated(result: Suggestion): void {
  for (const sentence of result.sentences) {
    assert.ok(!CITATION_LIKE.test(sentence.text), `a citation survived in: ${sentence.text}`);
    for (const cited of sentence.citations) assert.ok(result.sources.includes(cited), `cites ${cited.id}, which is not a source`);
  }
}

describe('suggesting cited text from retrieved papers (openai against a local server)', () => {
  let server: ChatServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function run(
    draftReplies: readonly ChatReply[],
    options: { queries?: ChatReply; finder?: FakeFinder; judge?: FakeJudge; signal?: AbortSignal; progress?: SuggestProgress[]; timeoutMs?: number } = {},
  ): Promise<Suggestion> {
    await server?.close();
    let drafts = 0;
    server = await ChatServer.start((request) => (isDraft(request) ? draftReplies[Math.min(drafts++, draftReplies.length - 1)] : (options.queries ?? QUERIES)));
    const llm = new OpenAiLlm({ baseUrl: server.baseUrl, model: 'local', temperature: 0, maxTokens: 400, timeoutMs: options.timeoutMs ?? 5000, maxRetries: 1 });
    const result = await suggest({
      selection: SELECTION,
      finder: options.finder ?? new FakeFinder(),
      llm,
      judge: (options.judge ?? new FakeJudge()).judge,
      signal: options.signal,
      onProgress: (p) => options.progress?.push(p),
    });
    assertNothingFabricated(result);
    return result;
  }

  it('drafts from the numbered sources, checks each sentence against what it cites, and reports progress', async () => {
    const judge = new FakeJudge();
    const finder = new FakeFinder();
    const progress: SuggestProgress[] = [];
    const result = await run([{ text: 'Caching cuts median latency of web servers by forty percent [1]. Memory use rose [2, 3]. Caching is popular.' }], {
      judge,
      finder,
      progress,
    });
    assert.equal(result.outcome, 'drafted');
    assert.deepEqual(finder.queries, ['caching latency web servers', 'cache memory overhead']);
    assert.deepEqual(result.queries, finder.queries);
    // The paper without an abstract gives the model nothing to write from.
    assert.deepEqual(
      result.sources.map((p) => p.id),
      ['doi:10.1000/p1', 'doi:10.1000/p2', 'doi:10.1000/p3', 'doi:10.1000/p5', 'doi:10.1000/p6'],
    );
    assert.deepEqual(
      result.sentences.map((s) => [s.text, s.citations.map((p) => p.id), s.status, s.reason]),
      [
        ['Caching cuts median latency of web servers by forty percent.', ['doi:10.1000/p1'], 'supported', undefined],
        ['Memory use rose.', ['doi:10.1000/p2', 'doi:10.1000/p3'], 'unconfirmed', 'the cited passages do not state it'],
        ['Caching is popular.', [], 'uncited', 'it cites none of the sources, so it is never inserted'],
      ],
    );
    assert.equal(result.sentences[0].evidence?.paper, PAPERS[0]);
    // Each sentence is judged against the passages of the sources it cites, and nothing else.
    assert.deepEqual(judge.calls[1].passages, [...abstractOf(PAPERS[1]), ...abstractOf(PAPERS[2])]);
    assert.equal(judge.calls.length, 2);
    assert.deepEqual(result.removed, []);
    assert.deepEqual(result.notes, ['Search is lexical: no sentence encoder.']);
    assert.deepEqual([...new Set(progress.map((p) => p.stage))], ['queries', 'searching', 'drafting', 'checking']);
    const streamed = progress.filter((p) => p.stage === 'drafting');
    assert.ok(streamed.length > 2 && streamed[streamed.length - 1].stage === 'drafting' && streamed[streamed.length - 1].characters > 50);
  });

  it('drops a sentence citing [7] when five sources were given', async () => {
    const result = await run([{ text: 'Caching cuts median latency of web servers [1]. Memory use rose with caching [1][7].' }]);
    assert.equal(result.sources.length, 5);
    assert.deepEqual(result.removed, [{ text: 'Memory use rose with caching [1][7].', reason: 'it cites source 7, but there are 5 sources' }]);
    assert.deepEqual(
      result.sentences.map((s) => [s.text, s.citations.length, s.status]),
      [['Caching cuts median latency of web servers.', 1, 'supported']],
    );
    assert.match(result.notes.join(' '), /1 part of the draft was taken out/);
  });

  it('drops sentences with invented DOIs, author–year references, named works and URLs', async () => {
    const reply = [
      'Caching cuts median latency of web servers (Smith et al., 2021) [1].',
      'Memory use rose by ten percent with caching (doi:10.9999/invented.2020) [2].',
      'Garcia and Chen (2019) found the same on phones [3].',
      'See https://example.org/caching-study for more [5].',
      'Caching cuts median latency of web servers [1].',
    ].join(' ');
    const result = await run([{ text: reply }]);
    assert.deepEqual(
      result.removed.map((r) => r.reason),
      ['works named by "et al."', 'a DOI', 'a year in parentheses', 'a URL'],
    );
    assert.deepEqual(
      result.sentences.map((s) => s.text),
      ['Caching cuts median latency of web servers.'],
    );
  });

  it('cuts a reply that runs past 64,000 characters, keeps its whole sentences, and says so', async () => {
    const endless = 'Caching cuts median latency of web servers [1]. '.repeat(1500);
    const result = await run([{ text: endless, piece: 500 }]);
    assert.equal(result.outcome, 'drafted');
    assert.equal(result.sentences.length, 4);
    assert.match(result.notes.join(' '), /The reply was cut at 64,000 characters/);
    assert.match(result.removed.at(-1)?.reason ?? '', /beyond the limit of 4 sentences/);
  });

  it('offers nothing, and says so, when the draft is empty', async () => {
    const result = await run([{ text: '' }]);
    assert.equal(result.outcome, 'empty');
    assert.deepEqual(result.sentences, []);
    assert.match(result.notes.join(' '), /no text to offer/);
  });

  it('offers nothing, and says why, when the draft is not text', async () => {
    const result = await run([{ text: '{"answer": "Caching helps [1]", "refs": ["doi:10.1/x"]}' }]);
    assert.equal(result.outcome, 'malformed');
    assert.deepEqual(result.sentences, []);
    assert.match(result.notes.join(' '), /could not be read as a draft: the reply is data/);
  });

  it('offers nothing when every sentence cited works outside the sources', async () => {
    const result = await run([{ text: 'Smith et al. (2020) showed it [1]. Caching helps [9].' }]);
    assert.equal(result.outcome, 'empty');
    assert.deepEqual(
      result.removed.map((r) => r.reason),
      ['works named by "et al."', 'it cites source 9, but there are 5 sources'],
    );
    assert.match(result.notes.join(' '), /Nothing was left of the draft/);
  });

  it('searches for the selection itself when the model proposes no usable query', async () => {
    for (const queries of [{ text: '' }, { text: 'Sure! Here are some queries:' }]) {
      const finder = new FakeFinder();
      const result = await run([{ text: 'Caching cuts median latency of web servers [1].' }], { queries, finder });
      assert.deepEqual(finder.queries, [SELECTION]);
      assert.equal(result.outcome, 'drafted');
      assert.match(result.notes.join(' '), /the selection itself was searched for/);
    }
  });

  it('searches once more when the model finds the evidence insufficient, then drafts from the new sources', async () => {
    const finder = new FakeFinder();
    const result = await run([{ text: 'INSUFFICIENT: caching energy use on phones' }, { text: 'Caching on phones saves battery energy [2].' }], { finder });
    assert.deepEqual(finder.queries.slice(2), ['caching energy use on phones']);
    assert.equal(result.outcome, 'drafted');
    // The new paper takes its turn among the first ones, within the limit of six.
    assert.deepEqual(
      result.sources.map((p) => p.id),
      ['doi:10.1000/p1', 'doi:10.1000/p7', 'doi:10.1000/p2', 'doi:10.1000/p3', 'doi:10.1000/p5', 'doi:10.1000/p6'],
    );
    assert.deepEqual(
      result.sentences.map((s) => [s.text, s.citations, s.status]),
      [['Caching on phones saves battery energy.', [ENERGY], 'supported']],
    );
    assert.deepEqual(result.queries, ['caching latency web servers', 'cache memory overhead', 'caching energy use on phones']);
    const drafts = server?.received.filter(isDraft) ?? [];
    assert.equal(drafts.length, 2);
    assert.match(drafts[1].body.messages[1].content, /\[2\] Energy of caching on phones/);
  });

  it('asks only once more: still insufficient is an outcome, with the model’s next query', async () => {
    const result = await run([{ text: 'INSUFFICIENT: caching energy use on phones' }, { text: 'INSUFFICIENT: radio power of cached pages' }]);
    assert.equal(result.outcome, 'insufficient');
    assert.equal(server?.received.filter(isDraft).length, 2);
    assert.match(result.notes.join(' '), /suggests searching for "radio power of cached pages"/);
  });

  it('does not ask again when the follow-up search finds no further paper', async () => {
    const result = await run([{ text: 'INSUFFICIENT: more on caching latency' }]);
    assert.equal(result.outcome, 'insufficient');
    assert.equal(server?.received.filter(isDraft).length, 1);
    assert.deepEqual(result.notes.slice(1), [
      'The model found the evidence insufficient and asked for a search for "more on caching latency".',
      'That search found no further paper.',
      'The model finds the evidence insufficient.',
    ]);
  });

  it('does not ask the model to draft when no paper with an abstract is found', async () => {
    const result = await run([{ text: 'never asked' }], { finder: new FakeFinder([PAPERS[3]]) });
    assert.equal(result.outcome, 'no-sources');
    assert.equal(server?.received.filter(isDraft).length, 0);
  });

  it('drafts after a 429 that the client retries', async () => {
    const result = await run([{ status: 429 }, { text: 'Caching cuts median latency of web servers [1].' }]);
    assert.equal(result.outcome, 'drafted');
    assert.equal(result.sentences.length, 1);
  });

  it('fails with the endpoint’s error on a 500, a timeout or a reply cut mid-stream', async () => {
    const failures: [ChatReply, string][] = [
      [{ status: 500, message: 'model crashed' }, 'server'],
      [{ text: 'Caching cuts median latency [1]. Memory use rose [2].', breaks: 'stall' }, 'timeout'],
      [{ text: 'Caching cuts median latency [1]. Memory use rose [2].', breaks: 'drop' }, 'cut-off'],
    ];
    for (const [reply, kind] of failures) {
      await assert.rejects(run([reply], { timeoutMs: 300 }), (e: unknown) => e instanceof LlmError && e.kind === kind);
    }
  });

  it('stops with the signal’s reason when cancelled', async () => {
    const controller = new AbortController();
    const progress: SuggestProgress[] = [];
    const pending = run([{ text: 'Caching cuts median latency [1].', breaks: 'stall' }], { signal: controller.signal, progress, timeoutMs: 60_000 });
    const cancelled = assert.rejects(pending, (e: unknown) => e instanceof Error && e.name === 'AbortError');
    while (!progress.some((p) => p.stage === 'drafting' && p.characters > 0)) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await cancelled;
  });
});

function abstractOf(p: Paper): string[] {
  return (p.abstract ?? '').split(/(?<=\.) /);
}
