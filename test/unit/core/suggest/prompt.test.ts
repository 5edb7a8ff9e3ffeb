import assert from 'node:assert/strict';
import type { Paper } from '../../../../src/core/papers/paper';
import { describeOutgoing, draftMessages, parseQueries, queryMessages } from '../../../../src/core/suggest/prompt';
import { numberSources } from '../../../../src/core/suggest/sources';

const CACHING: Paper = {
  id: 'doi:10.1/caching',
  title: 'Caching in web servers',
  year: 2020,
  authors: [{ family: 'Smith', given: 'Jane' }, { family: 'Lee' }],
  abstract: 'We study web servers. Caching cuts median latency by 40%. Memory use rose slightly. Twelve servers were used. Results held across loads.',
};
const MEMORY: Paper = { id: 'x:2', title: 'Memory of caches', authors: [{ family: 'A' }, { family: 'B' }, { family: 'C' }, { literal: 'WHO' }], abstract: 'Caches need memory.' };

describe('the prompts of a suggestion', () => {
  it('reads queries from a JSON array, even inside reasoning and fences', () => {
    assert.deepEqual(parseQueries('<think>maybe ["x"]</think>\n```json\n["caching latency", "Caching latency", 7, "cache memory overhead"]\n```'), [
      'caching latency',
      'cache memory overhead',
    ]);
  });

  it('reads queries one a line when there is no JSON, skipping prose and list markers', () => {
    const reply =
      'Sure! Here are the queries:\n1. "caching latency web servers"\n- cache memory overhead\n\nI chose these because they cover both the latency claim and the memory cost that the passage mentions in passing.';
    assert.deepEqual(parseQueries(reply), ['caching latency web servers', 'cache memory overhead']);
  });

  it('keeps at most three queries, and finds none in an unusable reply', () => {
    assert.deepEqual(parseQueries('["a b", "c d", "e f", "g h"]'), ['a b', 'c d', 'e f']);
    assert.deepEqual(parseQueries(''), []);
    assert.deepEqual(parseQueries('[]'), []);
    assert.deepEqual(parseQueries('42\n---'), []);
  });

  it('asks for queries with the selection alone', () => {
    const [system, user] = queryMessages('Caching cuts latency.');
    assert.equal(system.role, 'system');
    assert.match(system.content, /JSON array of 1 to 3 queries/);
    assert.deepEqual(user, { role: 'user', content: 'Caching cuts latency.' });
  });

  it('shows each source by number with its title, year, authors and its passages that bear on the claim', () => {
    const sources = numberSources([CACHING, MEMORY], 'Caching cuts the latency of web servers');
    assert.deepEqual(
      sources.map((s) => [s.number, s.passages]),
      [
        [1, ['We study web servers.', 'Caching cuts median latency by 40%.', 'Twelve servers were used.']],
        [2, ['Caches need memory.']],
      ],
    );
    const [system, user] = draftMessages('Caching cuts latency.', sources);
    assert.match(system.content, /Cite only the numbers 1 to 2\. Never write author names, years, DOIs, URLs/);
    assert.match(system.content, /INSUFFICIENT: <a search query/);
    assert.equal(
      user.content,
      [
        'Sources:',
        '',
        '[1] Caching in web servers (2020). Smith and Lee.',
        '- We study web servers.',
        '- Caching cuts median latency by 40%.',
        '- Twelve servers were used.',
        '',
        '[2] Memory of caches. A et al.',
        '- Caches need memory.',
        '',
        'Text to write for:',
        'Caching cuts latency.',
      ].join('\n'),
    );
  });

  it('describes what leaves the machine, with the first request word for word', async () => {
    const settings = { baseUrl: 'http://localhost:11434/v1/', model: 'llama3.1', temperature: 0.2, maxTokens: 800 };
    const local = await describeOutgoing('Caching cuts latency.', settings, 6);
    assert.equal(local.endpoint, 'http://localhost:11434/v1/chat/completions');
    assert.equal(local.local, true);
    assert.ok(
      local.text.includes(
        queryMessages('Caching cuts latency.')
          .map((m) => m.content)
          .join('\n--- user ---\n'),
      ),
    );
    assert.match(local.text, /nothing leaves it/);
    assert.match(local.text, /up to 3 sentences of the abstract of each of up to 6 papers/);
    assert.match(local.text, /no API key/);
    const remote = await describeOutgoing('x', { ...settings, baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-secret-key' }, 6);
    assert.equal(remote.local, false);
    assert.match(remote.text, /outside this machine/);
    assert.match(remote.text, /your API key/);
    assert.ok(!remote.text.includes('sk-secret-key'));
  });

  it('calls an endpoint "this machine" by the address it resolves to, never by how its name looks', async () => {
    const settings = { model: 'llama3.1', temperature: 0.2, maxTokens: 800 };
    const where = async (baseUrl: string): Promise<boolean> => (await describeOutgoing('x', { ...settings, baseUrl }, 6)).local;
    for (const baseUrl of ['http://127.0.0.1:11434/v1', 'http://[::1]:8080/v1', 'http://0x7f.1:8080/v1', 'http://localhost:1234/v1']) {
      assert.equal(await where(baseUrl), true, baseUrl);
    }
    // A name under a reserved domain that resolves to nothing here, and addresses of other machines.
    for (const baseUrl of ['https://127.0.0.1.attacker.example/v1', 'https://localhost.example/v1', 'http://10.0.0.5/v1', 'http://169.254.169.254/v1', 'not a url']) {
      assert.equal(await where(baseUrl), false, baseUrl);
      assert.match((await describeOutgoing('x', { ...settings, baseUrl }, 6)).text, /outside this machine/);
    }
  });
});
