"""Training and evaluation pairs for the claim verifier, built from the shared data.

A pair is (premise sentences, claim, label). The premise is what the extension hands the model: the
cited work's abstract (or a cited passage), whole when it fits, else its sentences most relevant to the
claim in their original order (`select_sentences`, the same rule as the extension's judging pipeline).
Labels are the three NLI classes: entailment (SUPPORT), contradiction (CONTRADICT / REFUTE) and neutral
(NEI / NOTENOUGHINFO, or a cited text with its evidence taken out, or an uncited abstract near the claim).
"""
from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from .folders import replaced_when_whole

LABELS = ("contradiction", "entailment", "neutral")
LABEL_ID = {name: index for index, name in enumerate(LABELS)}
DATASET_LABELS = {
    "SUPPORT": "entailment",
    "CONTRADICT": "contradiction",
    "REFUTE": "contradiction",
    "NEI": "neutral",
    "NOTENOUGHINFO": "neutral",
}


@dataclass(frozen=True)
class Pair:
    dataset: str
    claim: str
    sentences: tuple[str, ...]
    label: str
    # Indices into `sentences` that the annotators marked as the evidence; empty for neutral pairs.
    evidence: tuple[int, ...] = field(default=())
    # How the pair was made: "cited" (as annotated), "evidence-only", "evidence-removed", "near-uncited".
    kind: str = "cited"


# Citation-Integrity writes a marker where the citation stood, sometimes inside brackets with other
# numbers ("[<|multi_cit|>,7]"). The extension removes citation commands from the sentence it judges,
# so the markers go, and any bracket left holding only numbers and separators goes with them.
_CITATION_MARKER = re.compile(r"<\|[a-z_]+\|>")
_EMPTY_BRACKETS = re.compile(r"\s*[\[(][\s\d,;–-]*[\])]")


def clean_claim(text: str) -> str:
    text = _CITATION_MARKER.sub("", text)
    text = _EMPTY_BRACKETS.sub("", text)
    text = re.sub(r"\s+([.,;:])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _evidence_pairs(dataset: str, claims: Path, corpus: Path) -> list[Pair]:
    """SciFact and Citation-Integrity share a shape: claims with cited docs and per-doc evidence."""
    docs = {int(d["doc_id"]): tuple(s.strip() for s in d["abstract"]) for d in _jsonl(corpus)}
    pairs = []
    for claim in _jsonl(claims):
        text = clean_claim(claim["claim"])
        for doc_id in claim["cited_doc_ids"]:
            sentences = docs.get(int(doc_id))
            if not sentences:
                continue
            sets = claim["evidence"].get(str(doc_id), [])
            if sets:
                label = DATASET_LABELS[sets[0]["label"]]
                evidence = tuple(sorted({i for s in sets for i in s["sentences"] if i < len(sentences)}))
            else:
                label, evidence = "neutral", ()
            pairs.append(Pair(dataset, text, sentences, label, evidence))
    return pairs


def scifact(data: Path, split: str) -> list[Pair]:
    return _evidence_pairs("scifact", data / "scifact" / f"claims_{split}.jsonl", data / "scifact" / "corpus.jsonl")


def citation_integrity(data: Path, split: str) -> list[Pair]:
    folder = data / "citation-integrity" / "processed"
    return _evidence_pairs("citation-integrity", folder / f"claims_{split}.jsonl", folder / "corpus.jsonl")


def check_covid(data: Path, split: str) -> list[Pair]:
    """
    Check-COVID's SUPPORT and REFUTE rows against their abstract. Its NOTENOUGHINFO rows are about
    single sentences: each shares its claim and abstract with a SUPPORT or REFUTE row, and says that
    the sentences it names do not settle the claim. So those sentences are its premise.
    """
    folder = data / "check-covid"
    docs = {d["cord_id"]: tuple(s.strip() for s in d["abstract"]) for d in _jsonl(folder / "corpus.jsonl")}
    pairs = []
    for kind in ("composed", "extracted"):
        for claim in _jsonl(folder / f"claims_{split}_{kind}.jsonl"):
            sentences = docs.get(claim["cord_id"])
            if not sentences:
                continue
            label = DATASET_LABELS[claim["label"]]
            named = tuple(sorted({e["sent_index"] for e in claim["evidence_set"] if e["sent_index"] < len(sentences)}))
            if label == "neutral":
                if named:
                    pairs.append(Pair("check-covid", clean_claim(claim["claim"]), tuple(sentences[i] for i in named), label))
            else:
                pairs.append(Pair("check-covid", clean_claim(claim["claim"]), sentences, label, named))
    return pairs


DATASETS: dict[str, Callable[[Path, str], list[Pair]]] = {
    "scifact": scifact,
    "citation-integrity": citation_integrity,
    "check-covid": check_covid,
}


# ---- relevance: which sentences of a long premise to keep -------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were which with we our "
    "not no than these those their there been being can could may might also into between after before during".split()
)


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


def relevance_order(claim: str, sentences: Sequence[str]) -> list[int]:
    """Sentence indices by TF-IDF cosine with the claim (IDF within the premise), most relevant first."""
    bags = [Counter(words(s)) for s in sentences]
    df = Counter(w for bag in bags for w in bag)
    n = len(sentences)
    idf = {w: math.log((1 + n) / (1 + d)) + 1 for w, d in df.items()}
    query = Counter(words(claim))

    def score(bag: Counter) -> float:
        dot = sum(query[w] * bag[w] * idf.get(w, 1.0) ** 2 for w in query if w in bag)
        norm = math.sqrt(sum((c * idf.get(w, 1.0)) ** 2 for w, c in bag.items())) or 1.0
        return dot / norm

    # Rounded, so that a tie is a tie on every machine: libm's logarithms differ in the last bit, and
    # the extension ranks with the same arithmetic in JavaScript (src/core/verify/premiseOrder.ts).
    scores = [round(score(bag), 9) for bag in bags]
    return sorted(range(n), key=lambda i: (-scores[i], i))


def select_sentences(
    sentences: Sequence[str],
    priority: Sequence[int],
    budget: int,
    count_tokens: Callable[[str], int],
) -> list[str]:
    """
    The sentences taken in `priority` order while they fit `budget` tokens, returned in their original
    order. The whole premise when it fits. A sentence longer than what is left is skipped, except the
    first, which is always kept (the tokenizer then truncates it) so that no premise is empty.
    """
    costs = [count_tokens(s) for s in sentences]
    if sum(costs) <= budget:
        return list(sentences)
    kept: set[int] = set()
    left = budget
    for index in priority:
        if costs[index] <= left or not kept:
            kept.add(index)
            left -= costs[index]
    return [sentences[i] for i in sorted(kept)]


# ---- training pairs: the annotated pairs and what is derived from them ---------------------------------

# How often each derived pair is made. A 6-layer model learns whatever separates the labels most
# cheaply, and premise length did: with every derived pair kept, 70% of long premises were neutral and
# short ones never were, and the model called every whole abstract neutral (dev macro-F1 0.2-0.3). These
# rates keep about half of each length neutral, in about 9,000 pairs, two epochs of which fit in half an
# hour on two CPU cores.
EVIDENCE_ONLY_RATE = 0.5
OTHER_SENTENCES_RATE = 0.5
EVIDENCE_REMOVED_RATE = 0.25
NEAR_UNCITED_RATE = 0.25


def augmented(pairs: Iterable[Pair], corpus_of: dict[str, "Corpus"], seed: int) -> list[Pair]:
    """
    The annotated pairs, and derived from those with evidence: the evidence sentences alone (same label;
    the short premises full-text passages give), as many other sentences of the same text, next to each
    other (neutral), and the text with every evidence sentence taken out (neutral, where three sentences
    remain); and for a claim, an abstract of its corpus near it that it does not cite (neutral): the
    hard negatives a writer meets when a citation points at a paper on the topic that does not say it.
    """
    rng = random.Random(seed)
    out: list[Pair] = []
    seen_claims: set[tuple[str, str]] = set()
    for pair in pairs:
        out.append(pair)
        if pair.evidence:
            evidence = set(pair.evidence)
            if rng.random() < EVIDENCE_ONLY_RATE:
                out.append(Pair(pair.dataset, pair.claim, tuple(pair.sentences[i] for i in pair.evidence), pair.label, tuple(range(len(evidence))), "evidence-only"))
            window = other_sentences(pair, rng)
            if window and rng.random() < OTHER_SENTENCES_RATE:
                out.append(Pair(pair.dataset, pair.claim, window, "neutral", (), "other-sentences"))
            rest = tuple(s for i, s in enumerate(pair.sentences) if i not in evidence)
            if len(rest) >= 3 and rng.random() < EVIDENCE_REMOVED_RATE:
                out.append(Pair(pair.dataset, pair.claim, rest, "neutral", (), "evidence-removed"))
        key = (pair.dataset, pair.claim)
        if key not in seen_claims:
            seen_claims.add(key)
            corpus = corpus_of.get(pair.dataset)
            near = corpus.nearest_uncited(pair, rng) if corpus and rng.random() < NEAR_UNCITED_RATE else None
            if near:
                out.append(Pair(pair.dataset, pair.claim, near, "neutral", (), "near-uncited"))
    return out


def other_sentences(pair: Pair, rng: random.Random) -> tuple[str, ...] | None:
    """As many consecutive sentences as the evidence has, none of them evidence; None when there is no such run."""
    width = len(pair.evidence)
    evidence = set(pair.evidence)
    starts = [i for i in range(len(pair.sentences) - width + 1) if not evidence.intersection(range(i, i + width))]
    if not starts:
        return None
    start = rng.choice(starts)
    return pair.sentences[start : start + width]


class Corpus:
    """A dataset's abstracts with the words of each, to find the abstract nearest a claim that it does not cite."""

    def __init__(self, docs: Iterable[Sequence[str]]):
        self.docs = [tuple(d) for d in docs]
        self.words = [frozenset(words(" ".join(d))) for d in self.docs]

    def nearest_uncited(self, pair: Pair, rng: random.Random, candidates: int = 400) -> tuple[str, ...] | None:
        """Of a random sample of the abstracts, the one sharing most claim words that is not the cited text."""
        claim_words = set(words(pair.claim))
        best, best_overlap = None, 0
        for index in rng.sample(range(len(self.docs)), min(candidates, len(self.docs))):
            if self.docs[index] == pair.sentences:
                continue
            overlap = len(claim_words & self.words[index])
            if overlap > best_overlap:
                best, best_overlap = self.docs[index], overlap
        return best


def corpora(data: Path) -> dict[str, Corpus]:
    def stripped(path: Path) -> Iterator[tuple[str, ...]]:
        return (tuple(s.strip() for s in d["abstract"]) for d in _jsonl(path))

    return {
        "scifact": Corpus(stripped(data / "scifact" / "corpus.jsonl")),
        "citation-integrity": Corpus(stripped(data / "citation-integrity" / "processed" / "corpus.jsonl")),
        "check-covid": Corpus(stripped(data / "check-covid" / "corpus.jsonl")),
    }


# ---- a run's pairs on disk: what `nli pairs` writes and the steps after it read ----------------------

SPLITS = ("train", "dev")


def kinds(pairs: Iterable[Pair]) -> dict[str, int]:
    """How many pairs of each kind and label ("cited/entailment"), sorted by those."""
    return dict(sorted(Counter(f"{p.kind}/{p.label}" for p in pairs).items()))


def by_dataset(pairs: Sequence[Pair]) -> dict[str, list[Pair]]:
    """The pairs of each dataset, the datasets in the order they come."""
    return {name: [p for p in pairs if p.dataset == name] for name in dict.fromkeys(p.dataset for p in pairs)}


def write_pairs(folder: Path, splits: dict[str, list[Pair]], record: dict) -> dict:
    """
    Each split's pairs in `folder` (`train.jsonl`, `dev.jsonl`, one pair a line) and `pairs.json`:
    `record` (how they were made) with their counts by split, dataset and kind. Written beside `folder`
    and renamed into place when whole; returns what `pairs.json` holds.
    """
    with replaced_when_whole(folder) as partial:
        for split, pairs in splits.items():
            with (partial / f"{split}.jsonl").open("w", encoding="utf-8") as handle:
                handle.writelines(json.dumps(asdict(p), ensure_ascii=False) + "\n" for p in pairs)
        counts = {split: {name: kinds(group) for name, group in by_dataset(pairs).items()} for split, pairs in splits.items()}
        record = {**record, "pairs": {split: len(pairs) for split, pairs in splits.items()}, "counts": counts}
        (partial / "pairs.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def read_pairs(folder: Path) -> tuple[dict[str, list[Pair]], dict]:
    """What `write_pairs` wrote: each split's pairs, and `pairs.json`."""
    splits = {
        split: [Pair(r["dataset"], r["claim"], tuple(r["sentences"]), r["label"], tuple(r["evidence"]), r["kind"]) for r in _jsonl(folder / f"{split}.jsonl")]
        for split in SPLITS
    }
    return splits, json.loads((folder / "pairs.json").read_text())
