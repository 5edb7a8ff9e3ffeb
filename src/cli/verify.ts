import { abstractSentences, analyze, judgeSupport, supportConfidence, TermStatistics, tfidfRelevance } from '../core/app/support';
import { ModelError } from '../core/app/models';
import { parseCommandLine, usageError } from './args';
import type { Console } from './console';
import { isStringList, LARGEST_TEXT_BYTES, readNamedTextFile } from '../core/app/text';
import { chooseNliModel, NO_MODEL_MESSAGE } from './nli';

export const VERIFY_USAGE = `Usage: attest verify --pairs FILE.jsonl [--nli-model DIR] [--format jsonl]

Judges whether each abstract supports its claim. Input lines: {"id", "claim", "abstract"} with the
abstract a string or a list of sentences ("premise" or "evidence" is read as "abstract", as NLI and
fact-checking data name it; a line with none is judged unverifiable; without "id", a line's id is its
line number in the file). Output lines: {"id", "label", "confidence", "onDev", "entailment",
"contradiction", "relevance", "sentence", "model"}; label is supported, contradicted, unsupported or
unverifiable; confidence, for supported, is strong (at the level the model's calibration found right
85% of the time on the dev claims) or weak ("may support"), and onDev {"verdicts", "right"} says how
many dev verdicts at that level the model gave and how many were right; model is the NLI model that
judged (Attest's built-in one unless --nli-model names another; none: relevance alone).`;

interface Pair {
  readonly id: string | number;
  readonly claim: string;
  readonly sentences: readonly string[];
}

/** `attest verify`: exit 0 when every pair was judged, 2 on a usage, input or model error. */
export async function verify(args: readonly string[], io: Console): Promise<number> {
  const parsed = parseCommandLine(
    'verify',
    { args: [...args], options: { pairs: { type: 'string' }, 'nli-model': { type: 'string' }, format: { type: 'string', default: 'jsonl' } } },
    VERIFY_USAGE,
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (!values.pairs || values.format !== 'jsonl') return usageError('verify', values.pairs ? '--format must be jsonl' : '--pairs FILE.jsonl is required', io);
  let pairs: Pair[];
  try {
    pairs = parsePairs(await readNamedTextFile(values.pairs, LARGEST_TEXT_BYTES));
  } catch (error) {
    io.err(`attest verify: ${(error as Error).message}\n`);
    return 2;
  }
  let nli;
  try {
    nli = await chooseNliModel(values['nli-model'], process.env);
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    io.err(`attest verify: ${error.message}\n`);
    return 2;
  }
  if (!nli) io.err(`attest verify: ${NO_MODEL_MESSAGE}\n`);
  try {
    const relevance = tfidfRelevance(
      analyze,
      TermStatistics.of(
        pairs.map((p) => p.sentences.join(' ')),
        analyze,
      ),
    );
    for (const pair of pairs) {
      const j = await judgeSupport(pair.claim, pair.sentences, { relevance, nli });
      const line = {
        id: pair.id,
        label: j.label,
        confidence: supportConfidence(j) ?? null,
        onDev: j.onDev ?? null,
        entailment: j.entailment ?? null,
        contradiction: j.contradiction ?? null,
        relevance: j.relevance,
        sentence: j.sentence ?? null,
        model: j.model ?? null,
      };
      io.out(`${JSON.stringify(line)}\n`);
    }
  } catch (error) {
    // The model's session is made at the first pair: a graph ONNX Runtime cannot read fails there.
    if (!(error instanceof ModelError)) throw error;
    io.err(`attest verify: ${error.message}\n`);
    return 2;
  } finally {
    await nli?.model.dispose();
  }
  return 0;
}

/** The names a pair's text goes by: Attest's own, then NLI data's, then fact-checking data's (FEVER, COVID-Fact, HealthVer). */
const TEXT_FIELDS = ['abstract', 'premise', 'evidence'] as const;

function parsePairs(text: string): Pair[] {
  const pairs: Pair[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${where} is not JSON`);
    }
    if (typeof value !== 'object' || value === null) throw new Error(`${where} is not an object`);
    const fields = value as Record<string, unknown>;
    const id = fields.id ?? index + 1;
    const { claim } = fields;
    if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`${where}: "id" must be a string or a number`);
    if (typeof claim !== 'string') throw new Error(`${where} has no "claim" string`);
    const given = TEXT_FIELDS.filter((name) => fields[name] !== undefined && fields[name] !== null);
    if (given.length > 1) throw new Error(`${where} has ${given.map((name) => `"${name}"`).join(' and ')}: give the text to judge against once`);
    const [field] = given;
    const text = field === undefined ? [] : fields[field];
    const sentences = typeof text === 'string' ? abstractSentences(text) : isStringList(text) ? text : undefined;
    if (sentences === undefined) throw new Error(`${where}: "${field}" must be a string or a list of strings`);
    pairs.push({ id, claim, sentences });
  });
  return pairs;
}
