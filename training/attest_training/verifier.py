"""
What both ways of training the claim verifier (`nli`, `twostage`) share: the classifier made from a
base, a pair's token ids as the extension builds them, batches, predictions, the loss's label weights,
the trained weights saved with their record, and what names a run (its base, seed and commit).
"""
from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification

from . import base_model
from .folders import replaced_when_whole
from .pairs import LABEL_ID, LABELS, Pair, relevance_order, select_sentences

MODEL_NAME = "attest-nli-minilm-l6"
Inputs = list[tuple[list[int], list[int], int]]


def base_folder(args) -> Path:
    """`--base`, else the pinned PyPI all-MiniLM-L6-v2, fetched into `--cache`."""
    return Path(args.base) if args.base else base_model.fetch(Path(args.cache).expanduser())


def base_record(base: Path) -> dict:
    """What the model starts from: a converted encoder's base.json (onnx_base.py), else the pinned PyPI MiniLM."""
    described = base / "base.json"
    if described.exists():
        return {**json.loads(described.read_text()), "folder": str(base)}
    return {"name": base_model.NAME, "licence": base_model.LICENCE, "package": f"{base_model.PACKAGE}=={base_model.VERSION}", "wheel_sha256": base_model.WHEEL_SHA256, "folder": str(base)}


def model_name(source: dict) -> str:
    """attest-nli-minilm-l6 for the built-in model's base; for another, its own name after the prefix."""
    return MODEL_NAME if source["name"] == base_model.NAME else "attest-nli-" + source["name"].split("/")[-1].lower()


def classifier(folder: Path, device: torch.device):
    # fp32 from the start: a base carried in fp16 must not round the freshly initialised head.
    return AutoModelForSequenceClassification.from_pretrained(
        str(folder), num_labels=3, id2label=dict(enumerate(LABELS)), label2id=dict(LABEL_ID), dtype=torch.float32
    ).to(device)


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


def batches(inputs: Inputs, size: int, device: torch.device, pad_id: int):
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


@torch.no_grad()
def predict(model, tokenizer, inputs: Inputs, device: torch.device) -> np.ndarray:
    model.eval()
    out = []
    for ids, mask, types, _ in batches(inputs, 64, device, tokenizer.pad_token_id):
        out.append(torch.softmax(model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits.float(), dim=-1).cpu().numpy())
    return np.concatenate(out)


def predict_splits(model, tokenizer, splits: dict[str, Inputs], device: torch.device) -> dict[str, np.ndarray]:
    """`predict` on each dataset's inputs, by dataset."""
    return {name: predict(model, tokenizer, inputs, device) for name, inputs in splits.items()}


def with_gold(dev: dict[str, list[Pair]], probabilities: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {name: (np.array([LABEL_ID[p.label] for p in pairs]), probabilities[name]) for name, pairs in dev.items()}


def save_weights(model, tokenizer, folder: Path, record: dict, base: dict | None = None) -> None:
    """
    The weights in `folder` with what made them (`training.json`) and, given `base`, the base they came
    from (`base.json`, so that a run starting from them names it), renamed into place when whole.
    """
    with replaced_when_whole(folder) as partial:
        model.save_pretrained(str(partial))
        tokenizer.save_pretrained(str(partial))
        (partial / "training.json").write_text(json.dumps(record, indent=2) + "\n")
        if base is not None:
            (partial / "base.json").write_text(json.dumps(base, indent=2) + "\n")


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
