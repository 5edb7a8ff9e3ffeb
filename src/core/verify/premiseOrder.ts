/**
 * Which sentences of a long abstract a model trained for Attest reads first: the order its training
 * ranked them in (`relevance_order` in training/attest_training/pairs.py), so that the premise it
 * judges is built as the premises it learnt from and its thresholds were chosen on. Retrieval's
 * relevance (stemmed, with the collection's statistics) ranks differently, and a premise cut to the
 * model's length then keeps other sentences than training would have.
 *
 * The same words, stopwords and arithmetic as the Python, kept alike by a test against its output
 * (test/fixtures/premise-order.json).
 */

const WORD = /[a-z0-9]+(?:[-'][a-z0-9]+)*/g;
const STOPWORDS = new Set(
  (
    'a an and are as at be by for from has have in is it its of on or that the this to was were which with we our ' +
    'not no than these those their there been being can could may might also into between after before during'
  ).split(' '),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOPWORDS.has(w));
}

/** x², as Python's `x ** 2` rounds it (V8's `**` can differ in the last bit, and a tie then breaks another way). */
function square(x: number): number {
  return x * x;
}

function counts(terms: readonly string[]): Map<string, number> {
  const bag = new Map<string, number>();
  for (const term of terms) bag.set(term, (bag.get(term) ?? 0) + 1);
  return bag;
}

/** Sentence indices by TF-IDF cosine with the claim (IDF within the abstract), most relevant first; ties in their own order. */
export function premiseOrder(claim: string, sentences: readonly string[]): number[] {
  const bags = sentences.map((s) => counts(words(s)));
  const df = counts(bags.flatMap((bag) => [...bag.keys()]));
  const idf = new Map([...df].map(([term, d]) => [term, Math.log((1 + sentences.length) / (1 + d)) + 1]));
  const query = counts(words(claim));
  // Every term of a sentence has an IDF; the fallback is training's `idf.get(w, 1.0)`.
  const score = (bag: Map<string, number>): number => {
    let dot = 0;
    for (const [term, n] of query) {
      const m = bag.get(term);
      if (m !== undefined) dot += n * m * square(idf.get(term) ?? 1);
    }
    let squares = 0;
    for (const [term, n] of bag) squares += square(n * (idf.get(term) ?? 1));
    return dot / (Math.sqrt(squares) || 1);
  };
  // Rounded as training rounds them, so that a tie is a tie: libm's logarithms differ in the last bit.
  const scores = bags.map((bag) => Math.round(score(bag) * 1e9) / 1e9);
  return sentences.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
}
