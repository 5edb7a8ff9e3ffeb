"""
Stage 1's pairs: general NLI and fact verification, before the scientific claims (`twostage.py`).

    python -m attest_training.pretrain_pairs --data ../../shared/data --out stage1.jsonl.gz [--max-pairs 50000]

From `nli-pretrain/` (its README gives sizes and licences):
- FEVER's verifiable claims against their gold evidence sentences (SUPPORTS -> entailment, REFUTES ->
  contradiction), read from `fever/raw/` as its `convert.py` reads them;
- FEVER's NOT ENOUGH INFO claims against the sentences BM25 (`bm25s`) returns for them from every gold
  evidence sentence of the verifiable claims, as Nie et al. (2019) built NLI-FEVER's neutrals, as many
  sentences as a gold premise has (drawn from their distribution, so a premise's length tells nothing);
- SNLI (all three labels) and, unless left out, Evidence Inference (templated hypotheses).
The pairs are shuffled once by the seed; `--max-pairs N` keeps the first N of that order, so a sample
is the start of the full run's stage 1, and its learning-curve points are the same pairs.
"""
from __future__ import annotations

import argparse
import ast
import csv
import gzip
import io
import json
import random
import re
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator


SOURCES = ("fever", "snli", "evidence-inference")
FEVER_LABELS = {"1": "entailment", "2": "contradiction", "SUPPORTS": "entailment", "REFUTES": "contradiction"}
FEVER_FILES = [f"split_wiki_data_{i}.csv.gz" for i in range(15)] + ["eval_data_vanilla.csv.gz", "test_data_vanilla.csv.gz"]


@dataclass(frozen=True)
class PretrainPair:
    premise: str
    hypothesis: str
    label: str
    source: str


def detokenise(text: str) -> str:
    """FEVER's PTB-tokenised sentences written as prose, by the rules of nli-pretrain/convert.py (which
    made the gold premises): a neutral premise must not be told apart by its spacing."""
    text = text.replace("-LRB-", "(").replace("-RRB-", ")").replace("-LSB-", "[").replace("-RSB-", "]")
    text = text.replace("-LCB-", "{").replace("-RCB-", "}").replace("-COLON-", ":").replace("``", '"').replace("''", '"')
    text = re.sub(r"\s+([.,;:!?%)\]}])", r"\1", text)
    text = re.sub(r"([(\[{])\s+", r"\1", text)
    text = re.sub(r"\s+('s|'re|'ve|'d|'ll|'m|n't)\b", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _csv_rows(path: Path) -> Iterator[dict]:
    csv.field_size_limit(10**9)
    with gzip.open(path) as raw:
        yield from csv.DictReader(io.TextIOWrapper(raw, encoding="utf-8", newline=""))


def fever(folder: Path, rng: random.Random) -> list[PretrainPair]:
    """FEVER's gold pairs, and its NOT ENOUGH INFO claims against retrieved evidence sentences (neutral)."""
    seen: set[str] = set()
    gold: list[PretrainPair] = []
    gold_sentence_counts: list[int] = []
    unverifiable: list[str] = []
    pool: dict[str, None] = {}
    for name in FEVER_FILES:
        for row in _csv_rows(folder / "raw" / name):
            if row["id"] in seen:
                continue
            seen.add(row["id"])
            if row["label"] not in FEVER_LABELS:
                unverifiable.append(row["claim"].strip())
                continue
            listed = ast.literal_eval(row["evidence"]) if row["evidence"].strip() else []
            sentences = [detokenise(s) for s in dict.fromkeys(listed) if s and s.strip()]
            if not sentences:
                continue
            pool.update(dict.fromkeys(sentences))
            gold_sentence_counts.append(len(sentences))
            gold.append(PretrainPair(" ".join(sentences), row["claim"].strip(), FEVER_LABELS[row["label"]], "fever"))
    return gold + retrieved_neutrals(unverifiable, list(pool), gold_sentence_counts, rng)


def retrieved_neutrals(claims: list[str], pool: list[str], sentence_counts: list[int], rng: random.Random) -> list[PretrainPair]:
    """Each claim against the pool's sentences BM25 ranks first for it, as many as a gold premise drawn at random has."""
    if not claims or not pool:
        return []
    # Imported here: only building the pairs needs it, and a GPU machine that trains on them has no bm25s.
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(pool, stopwords="en", show_progress=False), show_progress=False)
    widest = min(max(sentence_counts), len(pool))
    queries = bm25s.tokenize(claims, stopwords="en", return_ids=False, show_progress=False)
    found, scores = retriever.retrieve(queries, k=widest, show_progress=False)
    pairs = []
    for claim, ranked, ranked_scores in zip(claims, found, scores):
        width = rng.choice(sentence_counts)
        # A claim sharing no word with the pool gets zero scores: its "best" sentences would be arbitrary.
        chosen = [pool[int(i)] for i, s in zip(ranked[:width], ranked_scores[:width]) if s > 0]
        if chosen:
            pairs.append(PretrainPair(" ".join(chosen), claim, "neutral", "fever-nei"))
    return pairs


def converted(folder: Path, source: str) -> list[PretrainPair]:
    """A folder's pairs.jsonl.gz as nli-pretrain/convert.py wrote it."""
    with gzip.open(folder / "pairs.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [PretrainPair(r["premise"], r["hypothesis"], r["label"], source) for r in rows]


def build(data: Path, sources: list[str], seed: int, max_pairs: int = 0) -> list[PretrainPair]:
    """Every pair of the sources, shuffled by `seed`; the first `max_pairs` of that order when given."""
    root = data / "nli-pretrain"
    pairs: list[PretrainPair] = []
    for source in sources:
        pairs += fever(root / "fever", random.Random(seed)) if source == "fever" else converted(root / source, source)
    # Each pair once (FEVER repeats some claims under other ids), sorted, so that the order depends on
    # the seed alone, not on the order the files were read in.
    pairs = sorted(set(pairs), key=lambda p: (p.source, p.hypothesis, p.premise, p.label))
    random.Random(seed).shuffle(pairs)
    return pairs[:max_pairs] if max_pairs else pairs


def counts(pairs: list[PretrainPair]) -> dict[str, int]:
    return dict(sorted(Counter(f"{p.source}/{p.label}" for p in pairs).items()))


def write(pairs: list[PretrainPair], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with gzip.open(partial, "wt", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(asdict(pair), ensure_ascii=False) + "\n")
    partial.replace(path)


def read(path: Path) -> list[PretrainPair]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [PretrainPair(**json.loads(line)) for line in handle if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="the shared data folder (nli-pretrain/ in it)")
    parser.add_argument("--out", required=True, help="the pairs to write (.jsonl.gz)")
    parser.add_argument("--sources", nargs="+", default=list(SOURCES), choices=SOURCES)
    parser.add_argument("--max-pairs", type=int, default=0, help="the first N pairs of the seeded order (0: all)")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    pairs = build(Path(args.data), args.sources, args.seed, args.max_pairs)
    write(pairs, Path(args.out))
    print(json.dumps({"pairs": len(pairs), "counts": counts(pairs)}, indent=2))


if __name__ == "__main__":
    main()
