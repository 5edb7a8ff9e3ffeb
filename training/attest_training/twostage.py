"""
The claim verifier in two stages: general NLI and fact verification first (`pretrain_pairs.py`), then
the scientific train splits (`pairs.py`), the checkpoint and the thresholds chosen on the scientific
dev splits only. Each step runs alone, on any machine, and a step cut off continues from its last
checkpoint when run again:

    python -m attest_training.twostage prepare --data D --work W [--max-pairs N] [--stage1-length 64]
    python -m attest_training.twostage stage1  --work W [--device cuda]
    python -m attest_training.twostage curve   --work W [--stage2-epochs 2]   dev macro-F1 after 0, 25k, 50k, 100k, all pairs
    python -m attest_training.twostage stage2  --work W --init W/stage1/after-all --name all
    python -m attest_training.twostage export  --work W --weights W/stage2/all/best --out ../models/attest-nli

`prepare` reads the data and tokenises every pair once (W/inputs, a few MB, which travel to a GPU
machine with the base: `pack`); the training steps read only W/inputs and the base.
"""
from __future__ import annotations

import argparse
import json
import platform
import shutil
import time
from pathlib import Path

import numpy as np
import safetensors.torch
import torch
from transformers import AutoConfig, AutoTokenizer, get_linear_schedule_with_warmup

from . import base_model, pretrain_pairs
from .debias import ClaimCorrected, Loss, claim_only_expert, correction
from .metrics import choose_run, report
from .model_folder import evaluate_options, export_options, precision_options, save_dev_probabilities, write_folder
from .pairs import DATASETS, LABEL_ID, LABELS, Pair, augmented, corpora, kinds, relevance_order
from .resume import Progress, Run
from .steps import log
from .verifier import Encoder, Inputs, base_folder, base_record, batches, class_weights, classifier, commit, predict_splits, save_weights, set_seed, with_gold

CURVE_POINTS = (25_000, 50_000, 100_000)


# ---- inputs: every pair tokenised once ---------------------------------------------------------------

def save_inputs(path: Path, inputs: Inputs) -> None:
    """Token ids, segment ids and labels, flat and compressed (uint16 ids: the bases' vocabularies are under 65,536)."""
    lengths = np.array([len(ids) for ids, _, _ in inputs], dtype=np.int32)
    ids = np.fromiter((i for row, _, _ in inputs for i in row), dtype=np.int64, count=int(lengths.sum()))
    dtype = np.uint16 if ids.size == 0 or ids.max() < 65536 else np.int32
    types = np.fromiter((t for _, row, _ in inputs for t in row), dtype=np.uint8, count=int(lengths.sum()))
    labels = np.array([label for _, _, label in inputs], dtype=np.uint8)
    partial = path.with_name(path.name + ".partial.npz")
    np.savez_compressed(partial, ids=ids.astype(dtype), types=types, lengths=lengths, labels=labels)
    partial.replace(path)


def load_inputs(path: Path) -> Inputs:
    saved = np.load(path)
    ends = np.cumsum(saved["lengths"])
    ids, types = np.split(saved["ids"].astype(np.int64), ends[:-1]), np.split(saved["types"].astype(np.int64), ends[:-1])
    return [(i.tolist(), t.tolist(), int(label)) for i, t, label in zip(ids, types, saved["labels"])]


def tokenise_pretrain(tokenizer, pairs: list[pretrain_pairs.PretrainPair], max_length: int) -> Inputs:
    encoded = tokenizer([p.premise for p in pairs], [p.hypothesis for p in pairs], truncation="longest_first", max_length=max_length)
    return [(ids, types, LABEL_ID[p.label]) for ids, types, p in zip(encoded["input_ids"], encoded["token_type_ids"], pairs)]


def prepare(args) -> None:
    """W/inputs: stage 1's pairs, the scientific train pairs and the dev pairs, tokenised, and what they are in meta.json."""
    started = time.time()
    data, folder = Path(args.data), Path(args.work) / "inputs"
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(str(base_folder(args)))
    if args.stage1_pairs:
        # What `pretrain_pairs --out` wrote, in its seeded order: its retrieval is the slow part.
        stage1 = pretrain_pairs.read(Path(args.stage1_pairs))[: args.max_pairs or None]
    else:
        stage1 = pretrain_pairs.build(data, args.sources, args.seed, args.max_pairs)
    log(f"stage 1: {len(stage1)} pairs {pretrain_pairs.counts(stage1)}")
    save_inputs(folder / "stage1.npz", tokenise_pretrain(tokenizer, stage1, args.stage1_length))
    annotated = [p for name in args.datasets for p in DATASETS[name](data, "train")]
    scientific = augmented(annotated, corpora(data), args.seed)[: args.limit or None]
    scientific += findings(data, stage1, args.seed, args.stage2_evidence_inference)
    encode = Encoder(tokenizer, args.stage2_length)
    save_inputs(folder / "stage2.npz", [encode.pair(p, training=True) for p in scientific])
    dev = {name: DATASETS[name](data, "dev")[: args.limit or None] for name in args.datasets}
    for name, pairs in dev.items():
        save_inputs(folder / f"dev-{name}.npz", [encode.pair(p, training=False) for p in pairs])
        save_inputs(folder / f"dev-{name}.best.npz", [encode.pair(best_sentences(p, args.best_sentences), training=False) for p in pairs])
    meta = {
        "seed": args.seed,
        "stage1": {"pairs": len(stage1), "kinds": pretrain_pairs.counts(stage1), "sources": sorted({p.source for p in stage1}), "max_pairs": args.max_pairs, "max_length": args.stage1_length},
        "limit": args.limit,
        "stage2": {"pairs": len(scientific), "kinds": kinds(scientific), "datasets": args.datasets, "max_length": args.stage2_length},
        "dev": {name: len(pairs) for name, pairs in dev.items()},
        "best_sentences": args.best_sentences,
        "prepared_at": commit(),
        "seconds": round(time.time() - started),
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    log(f"wrote {folder} in {meta['seconds']} s: stage 2 {len(scientific)} pairs, dev {meta['dev']}")


def findings(data: Path, stage1: list[pretrain_pairs.PretrainPair], seed: int, count: int) -> list[Pair]:
    """
    The first `count` Evidence Inference pairs of the seed's order that stage 1 did not train on, as
    scientific pairs: a trial's finding against a templated direction (increased, decreased, no
    difference), which is what the verifier's contradictions miss: which way a scientific text points.
    """
    if count <= 0:
        return []
    trained = set(stage1)
    found = [p for p in pretrain_pairs.build(data, ["evidence-inference"], seed) if p not in trained][:count]
    return [Pair("evidence-inference", p.hypothesis, (p.premise,), p.label, kind="evidence-inference") for p in found]


def best_sentences(pair: Pair, count: int) -> Pair:
    """The pair with its premise cut to its `count` sentences most relevant to the claim, in their order: premises like FEVER's and SNLI's."""
    kept = sorted(relevance_order(pair.claim, pair.sentences)[:count])
    return Pair(pair.dataset, pair.claim, tuple(pair.sentences[i] for i in kept), pair.label, kind="best-sentences")


def read_dev(work: Path, premises: str = "") -> tuple[dict[str, list[Pair]], dict[str, Inputs]]:
    """The dev inputs (`premises` ".best": against the best sentences), with stand-in pairs carrying only the gold labels the metrics read."""
    meta = json.loads((work / "inputs" / "meta.json").read_text())
    inputs = {name: load_inputs(work / "inputs" / f"dev-{name}{premises}.npz") for name in meta["dev"]}
    gold = {name: [Pair(name, "", (), LABELS[label]) for _, _, label in rows] for name, rows in inputs.items()}
    return gold, inputs


# ---- the training stages ----------------------------------------------------------------------------

def machine(device: torch.device) -> str:
    if device.type == "cuda":
        return f"GPU {torch.cuda.get_device_name(device)}"
    return f"CPU {platform.machine()}, {torch.get_num_threads()} threads"


def fit(model, inputs: Inputs, run: Run, args, device, pad_id: int, after_step=None, after_epoch=None, stop_after: int | None = None, loss: Loss | None = None) -> Progress:
    """Trains `model` on `inputs` through `run` (checkpointed, resumable); the loss `loss(logits, labels, indices)`,
    by default cross-entropy weighed against each label's share; after `stop_after` steps in all, it stops without a checkpoint."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    schedule = get_linear_schedule_with_warmup(optimizer, int(0.1 * run.total_steps), run.total_steps)
    if loss is None:
        weights = class_weights([label for _, _, label in inputs]).to(device)

        def loss(logits: torch.Tensor, labels: torch.Tensor, _: list[int]) -> torch.Tensor:
            return torch.nn.functional.cross_entropy(logits, labels, weight=weights)

    def loss_of(indices: list[int]) -> torch.Tensor:
        ids, mask, types, labels = next(batches([inputs[i] for i in indices], len(indices), device, pad_id))
        return loss(model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits, labels, indices)

    return run.train(model, optimizer, schedule, loss_of, after_step or (lambda *_: None), after_epoch or (lambda *_: None), stop_after)


def setup(args) -> tuple[torch.device, Path]:
    set_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    if torch.cuda.is_available():
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    return torch.device(args.device), Path(args.work)


def stage1(args) -> None:
    """One pass over stage 1's pairs from the base; the weights kept after 25k, 50k, 100k pairs and at the end."""
    device, work = setup(args)
    folder = work / "stage1"
    if (folder / "done.json").exists():
        log(f"{folder} is done")
        return
    started = time.time()
    base = base_folder(args)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    inputs = load_inputs(work / "inputs" / "stage1.npz")
    model = classifier(base, device)
    run = Run(folder, len(inputs), args.batch_size, args.epochs, args.seed, args.checkpoint_every)
    points = sorted({p for p in args.curve_points if p < len(inputs) * args.epochs})

    def after_step(step: int, progress: Progress) -> None:
        seen, before = min(step * args.batch_size, len(inputs) * args.epochs), (step - 1) * args.batch_size
        for point in points:
            if before < point <= seen:
                save_weights(model, tokenizer, folder / f"after-{point}", {"pairs": seen, "step": step, "machine": machine(device)})
                log(f"stage 1: kept the weights after {point} pairs")

    loss, expert = claim_only(args, work, inputs, base)
    progress = fit(model, inputs, run, args, device, tokenizer.pad_token_id, after_step=after_step, loss=loss)
    record = {"pairs": len(inputs), "epochs": args.epochs, "steps": progress.step, "batch_size": args.batch_size, "learning_rate": args.learning_rate,
              "seconds_this_run": round(time.time() - started), "machine": machine(device), "torch": torch.__version__, "commit": commit(), **expert}
    save_weights(model, tokenizer, folder / "after-all", record)
    (folder / "done.json").write_text(json.dumps({**record, "points": points}, indent=2) + "\n")
    log(f"stage 1 done: {record}")


def stage2(args) -> dict:
    """The scientific train pairs from `--init` (the base, or stage 1's weights); the epoch best on dev kept in W/stage2/NAME/best."""
    work = Path(args.work)
    init = Path(args.init) if args.init else base_folder(args)
    inputs = load_inputs(work / "inputs" / "stage2.npz")
    loss, expert = claim_only(args, work, inputs, init)
    return scientific_run(args, work, work / "stage2" / args.name, init, inputs, loss, expert, args.stop_after_epochs)


def claim_only(args, work: Path, inputs: Inputs, start: Path) -> tuple[Loss | None, dict]:
    """With --claim-only-expert, the loss of a product of experts with a claim-only model and its record (debias.py); else the default loss."""
    if not args.claim_only_expert:
        return None, {}
    gold, dev_inputs = read_dev(work)
    return claim_only_expert(inputs, gold, dev_inputs, AutoConfig.from_pretrained(str(start)).vocab_size, args.seed, torch.device(args.device))


def scientific_run(args, work: Path, folder: Path, init: Path, inputs: Inputs, loss: Loss | None = None, record: dict | None = None, stop_after_epochs: int = 0) -> dict:
    """
    Trains from `init` on `inputs` (stage 2's pairs, or a distillation's) as a stage-2 run in `folder`:
    the epoch best on W's dev pairs kept in folder/best, folder/done.json (with `record`) when finished.
    With `stop_after_epochs` (fewer than `--epochs`), it finishes after that many epochs of the longer
    schedule, its learning rate not yet decayed: the shipped verifier's stage 2 is epoch 1 of 2.
    """
    if not 0 <= stop_after_epochs <= args.epochs:
        raise SystemExit(f"--stop-after-epochs {stop_after_epochs}: give 1 to {args.epochs} epochs of the {args.epochs}-epoch schedule, or 0 for all of it")
    device, _ = setup(args)
    if (folder / "done.json").exists():
        log(f"{folder} is done")
        return json.loads((folder / "done.json").read_text())
    started = time.time()
    tokenizer = AutoTokenizer.from_pretrained(str(init))
    gold, dev_inputs = read_dev(work)
    model = classifier(init, device)
    run = Run(folder, len(inputs), args.batch_size, args.epochs, args.seed, args.checkpoint_every)
    stopped = 0 < stop_after_epochs < args.epochs

    def after_epoch(epoch: int, mean_loss: float, progress: Progress) -> None:
        scores = evaluate(model, tokenizer, gold, dev_inputs, device)
        history = progress.record.setdefault("history", [])
        history.append({"epoch": epoch, "loss": round(mean_loss, 4), "dev_argmax": scores})
        log(f"stage 2 {folder.name} epoch {epoch}: loss {mean_loss:.4f}, dev mean macro-F1 {scores['pooled']['mean_macro_f1']:.3f}")
        if scores["pooled"]["mean_macro_f1"] > progress.record.get("best_score", -1.0):
            progress.record.update(best_score=scores["pooled"]["mean_macro_f1"], best_epoch=epoch)
            save_weights(model, tokenizer, folder / "best", {"epoch": epoch, "init": str(init), "machine": machine(device)})

    progress = fit(model, inputs, run, args, device, tokenizer.pad_token_id, after_epoch=after_epoch, loss=loss,
                   stop_after=run.steps_per_epoch * stop_after_epochs if stopped else None)
    done = {"init": str(init), "pairs": len(inputs), "epochs": args.epochs, **({"stopped_after_epoch": stop_after_epochs} if stopped else {}), "batch_size": args.batch_size, "learning_rate": args.learning_rate,
            "best_epoch": progress.record["best_epoch"], "best_score": progress.record["best_score"], "history": progress.record["history"],
            "seconds_this_run": round(time.time() - started), "machine": machine(device), "torch": torch.__version__, "commit": commit(), **(record or {})}
    (folder / "done.json").write_text(json.dumps(done, indent=2) + "\n")
    return done


def evaluate(model, tokenizer, gold, dev_inputs, device) -> dict:
    return report(with_gold(gold, predict_splits(model, tokenizer, dev_inputs, device)), None)


def curve(args) -> None:
    """
    Dev macro-F1 (argmax, the scientific dev splits) at each of stage 1's kept points, 0 being the base:
    of those weights as they are, and, with --stage2-epochs, after that many epochs of stage 2 from them.
    """
    device, work = setup(args)
    done = json.loads((work / "stage1" / "done.json").read_text())
    gold, dev_inputs = read_dev(work)
    points = [("0", base_folder(args))] + [(str(p), work / "stage1" / f"after-{p}") for p in done["points"]] + [(f"all ({done['pairs'] * done['epochs']})", work / "stage1" / "after-all")]
    path = work / "curve.json"
    rows = json.loads(path.read_text()) if path.exists() else []
    for label, folder in points:
        row = next((r for r in rows if r["pairs"] == label), None)
        if row is None:
            tokenizer = AutoTokenizer.from_pretrained(str(folder))
            scores = evaluate(classifier(folder, device), tokenizer, gold, dev_inputs, device)
            row = {"pairs": label, "stage1_only": summary(scores)}
            rows.append(row)
        if args.stage2_epochs and "after_stage2" not in row:
            args_for = argparse.Namespace(**{**vars(args), "init": str(folder), "name": "from-" + label.split(" ")[0], "epochs": args.stage2_epochs, "stop_after_epochs": 0, "claim_only_expert": False})
            finished = stage2(args_for)
            row["after_stage2"] = summary(finished["history"][finished["best_epoch"] - 1]["dev_argmax"]) | {"best_epoch": finished["best_epoch"], "epochs": args.stage2_epochs}
        log(f"curve {label}: {row}")
        path.write_text(json.dumps(rows, indent=2) + "\n")


def summary(scores: dict) -> dict:
    return {"mean_macro_f1": scores["pooled"]["mean_macro_f1"], **{name: scores[name]["macro_f1"] for name in scores if name != "pooled"},
            "contradiction_precision": scores["pooled"]["contradiction_precision"], "contradicted_said": scores["pooled"]["contradicted_said"],
            "contradictions_right_at": scores["pooled"]["contradictions_right_at"]}


def premises(args) -> None:
    """
    Dev macro-F1 (argmax) of a stage-2 model judging each claim against the whole abstract (as
    trimmed to the length), against its best sentences only, and against both, their probabilities
    averaged: W/premises.json, which the export carries into metrics.json.
    """
    device, work = setup(args)
    weights = Path(args.weights) if args.weights else best_stage2(work)
    tokenizer = AutoTokenizer.from_pretrained(str(weights))
    model = classifier(weights, device)
    gold, whole = read_dev(work)
    _, best = read_dev(work, ".best")
    p_whole, p_best = predict_splits(model, tokenizer, whole, device), predict_splits(model, tokenizer, best, device)
    both = {name: (p_whole[name] + p_best[name]) / 2 for name in gold}
    result = {"weights": str(weights), **{label: summary(report(with_gold(gold, p), None)) for label, p in (("whole", p_whole), ("best_sentences", p_best), ("mean_of_both", both))}}
    (work / "premises.json").write_text(json.dumps(result, indent=2) + "\n")
    log(f"premises: {result}")


def soup(args) -> dict:
    """
    W/stage2/NAME: the best weights of two finished stage-2 runs from the same start averaged, `--share`
    of the first (a model soup, Wortsman et al. 2022: fine-tunings of one start average into a model of
    the same size, where two models side by side would not fit the package), measured on the dev pairs
    as an epoch is. Its done.json is the first run's record with the soup's; the export and the card
    read it as a stage-2 run.
    """
    device, work = setup(args)
    if not 0 < args.share < 1:
        raise SystemExit(f"--share is the first run's part of the average, between 0 and 1, not {args.share}")
    folders = [work / "stage2" / name for name in args.runs]
    done = [json.loads((folder / "done.json").read_text()) for folder in folders]
    if done[0]["init"] != done[1]["init"]:
        raise SystemExit(f"{args.runs[0]} and {args.runs[1]} start from different weights ({done[0]['init']}, {done[1]['init']}): their average is no model")
    tokenizer = AutoTokenizer.from_pretrained(str(folders[0] / "best"))
    model = classifier(folders[0] / "best", device)
    other = classifier(folders[1] / "best", device).state_dict()
    model.load_state_dict({key: args.share * value + (1 - args.share) * other[key] if value.is_floating_point() else value for key, value in model.state_dict().items()})
    gold, dev_inputs = read_dev(work)
    scores = evaluate(model, tokenizer, gold, dev_inputs, device)
    averaged = {"runs": [str(folder / "best") for folder in folders], "share_of_first": args.share, "dev_argmax": scores}
    if "distilled_from" in done[1]:
        averaged["second_distilled_from"] = done[1]["distilled_from"]
    folder = work / "stage2" / args.name
    save_weights(model, tokenizer, folder / "best", {"soup": averaged["runs"], "share_of_first": args.share, "init": done[0]["init"], "machine": machine(device)})
    record = {**done[0], "best_score": scores["pooled"]["mean_macro_f1"], "soup": averaged, "commit": commit()}
    (folder / "done.json").write_text(json.dumps(record, indent=2) + "\n")
    log(f"soup {folder.name}: {args.share} of {args.runs[0]}, {1 - args.share:g} of {args.runs[1]}, dev mean macro-F1 {record['best_score']:.3f}")
    return record


def best_stage2(work: Path) -> Path:
    """Of the finished stage-2 runs, the best/ weights of the one with the best mean dev macro-F1 (the dev splits choose, as they choose the epoch)."""
    runs = [(json.loads(done.read_text())["best_score"], done.parent) for done in sorted((work / "stage2").glob("*/done.json"))]
    if not runs:
        raise SystemExit(f"no finished stage-2 run in {work / 'stage2'}")
    return max(runs, key=lambda run: run[0])[1] / "best"


def choose(args) -> dict:
    """
    Of the finished stage-2 runs (a sweep of seeds and recipes; `--runs` names them, else every one),
    the one `choose_run` picks on the dev splits, recorded in W/choice.json with what each run scored.
    Each run's dev probabilities are kept beside its folder (W/stage2/NAME.dev-probabilities.npz) for
    the export's --rivals, whose held-out figure then counts the cost of this choice.
    """
    device, work = setup(args)
    gold, dev_inputs = read_dev(work)
    claim_only = None
    runs = {}
    for done in sorted((work / "stage2").glob("*/done.json")):
        if args.runs and done.parent.name not in args.runs:
            continue
        weights = done.parent / "best"
        model, tokenizer = classifier(weights, device), AutoTokenizer.from_pretrained(str(weights))
        if args.claim_only_correction:
            if claim_only is None:
                claim_only, _ = correction(load_inputs(work / "inputs" / "stage2.npz"), gold, dev_inputs, model.config.vocab_size, args.claim_only_correction, args.seed)
            model = ClaimCorrected(model, claim_only, args.claim_only_correction, tokenizer.sep_token_id).to(device)
        probabilities = predict_splits(model, tokenizer, dev_inputs, device)
        save_dev_probabilities(done.parent, probabilities)
        runs[done.parent.name] = with_gold(gold, probabilities)
    if not runs:
        raise SystemExit(f"no finished stage-2 run {'of ' + ', '.join(args.runs) + ' ' if args.runs else ''}in {work / 'stage2'}")
    chosen, figures = choose_run(runs, args.contradiction_precision, args.neutral_precision)
    for name, scored in figures.items():
        log(f"{name}: contradicted right {scored['contradicted_right']} of {scored['contradicted_said']} said, mean macro-F1 {scored['mean_macro_f1']:.3f}")
    record = {"chosen": chosen, "contradiction_precision": args.contradiction_precision, "neutral_precision": args.neutral_precision,
              "claim_only_correction": args.claim_only_correction, "machine": machine(device),
              "commit": commit(), "runs": figures}
    (work / "choice.json").write_text(json.dumps(record, indent=2) + "\n")
    log(f"chosen: {chosen}")
    return record


def export(args) -> None:
    """The chosen stage-2 weights as the folder the extension ships, its card naming each step's machine and figures and the curve."""
    work = Path(args.work)
    weights = Path(args.weights) if args.weights else best_stage2(work)
    log(f"exporting {weights}")
    set_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    meta = json.loads((work / "inputs" / "meta.json").read_text())
    stage1_done = json.loads((work / "stage1" / "done.json").read_text())
    stage2_done = json.loads((weights.parent / "done.json").read_text())
    tokenizer = AutoTokenizer.from_pretrained(str(weights))
    model = classifier(weights, torch.device("cpu"))
    gold, dev_inputs = read_dev(work)
    corrected = None
    if args.claim_only_correction:
        claim_only, corrected = correction(load_inputs(work / "inputs" / "stage2.npz"), gold, dev_inputs, model.config.vocab_size, args.claim_only_correction, args.seed)
        model = ClaimCorrected(model, claim_only, args.claim_only_correction, tokenizer.sep_token_id)
    source = base_record(base_folder(args))
    training = {
        "datasets": meta["stage2"]["datasets"], "max_length": meta["stage2"]["max_length"], "epochs": stage2_done["epochs"], "best_epoch": stage2_done["best_epoch"],
        **({"stopped_after_epoch": stage2_done["stopped_after_epoch"]} if "stopped_after_epoch" in stage2_done else {}),
        "batch_size": stage2_done["batch_size"], "learning_rate": stage2_done["learning_rate"], "seed": meta["seed"], "seconds": stage2_done["seconds_this_run"],
        "device": stage2_done["machine"], "torch": stage2_done["torch"], "commit": stage2_done["commit"], "exported_at": commit(), "pairs": meta["stage2"]["pairs"],
        "kinds": meta["stage2"]["kinds"], "balance_labels": True, "contradiction_precision": args.contradiction_precision, "neutral_precision": args.neutral_precision,
    }
    curve_path = work / "curve.json"
    choice = json.loads((work / "choice.json").read_text()) if (work / "choice.json").exists() else None
    extra = {
        "stage1": {**meta["stage1"], **stage1_done},
        "stage2_init": stage2_done["init"],
        **({"distilled_from": stage2_done["distilled_from"]} if "distilled_from" in stage2_done else {}),
        **({"soup": stage2_done["soup"]} if "soup" in stage2_done else {}),
        **({"claim_only_expert": stage2_done["claim_only_expert"]} if "claim_only_expert" in stage2_done else {}),
        **({"claim_only_correction": corrected} if corrected else {}),
        # A run chosen among others: a choice of one run is none.
        **({"choice": choice} if choice and choice["chosen"] == weights.parent.name and len(choice["runs"]) > 1 else {}),
        "learning_curve": json.loads(curve_path.read_text()) if curve_path.exists() else [],
        "premises": json.loads((work / "premises.json").read_text()) if (work / "premises.json").exists() else None,
        "export_machine": machine(torch.device("cpu")),
    }
    args.max_length = meta["stage2"]["max_length"]
    write_folder(model, tokenizer, gold, dev_inputs, Path(args.out), source, training, stage2_done["history"], args, extra)
    log(f"wrote {args.out}")


def pack(args) -> None:
    """
    What a GPU machine needs beside the repository, in `--into` (an ignored folder the device's call
    carries): base/, the base's weights in fp16 (half the bytes; trained in fp32 there), and inputs/,
    W/inputs with the commit it is packed at and, with `--distil DW`, the teacher's pairs of a
    distillation (distil-teacher.npz, which the GPU run labels). Weights over `--shard-mib` are cut into
    shards, the first in base/, each other in its own base-part-N/: a 12-layer base is over what one call
    carries, and a call's carried folder replaces the one there, so each shard travels in its own folder.
    base/SHA256SUMS names every shard, inputs/SHA256SUMS every input (`sha256sum -c`).
    """
    into, base = Path(args.into), base_folder(args)
    shutil.rmtree(into, ignore_errors=True)
    (into / "base").mkdir(parents=True)
    weights = safetensors.torch.load_file(str(base / "model.safetensors"))
    halved = {name: value.half() if value.is_floating_point() else value for name, value in weights.items()}
    change = max(float((weights[n].float() - halved[n].float()).abs().max()) for n in weights if weights[n].is_floating_point())
    shards = write_shards(halved, into / "base", int(args.shard_mib * 2**20))
    for extra in base.iterdir():
        if extra.is_file() and extra.name not in ("model.safetensors", "base.json"):
            shutil.copy(extra, into / "base" / extra.name)
    record = {k: v for k, v in base_record(base).items() if k != "folder"}
    (into / "base" / "base.json").write_text(json.dumps({**record, "transport": f"fp16 (largest change {change:.2g}), trained in fp32"}, indent=2) + "\n")
    shutil.copytree(Path(args.work) / "inputs", into / "inputs")
    if args.distil:
        shutil.copy(Path(args.distil) / "inputs" / "teacher.npz", into / "inputs" / "distil-teacher.npz")
    (into / "inputs" / "packed.json").write_text(json.dumps({"commit": commit()}) + "\n")
    for folder in (into / "base", into / "inputs"):
        files = sorted(p for p in folder.iterdir() if p.is_file())
        (folder / "SHA256SUMS").write_text("".join(f"{base_model.sha256(p)}  {p.name}\n" for p in files))
        log(f"packed {folder}: {sum(p.stat().st_size for p in files) / 2**20:.1f} MiB")
    for number, shard in enumerate(shards[1:], start=2):
        (into / f"base-part-{number}").mkdir()
        moved = shard.rename(into / f"base-part-{number}" / shard.name)
        log(f"packed {moved.parent}: {moved.stat().st_size / 2**20:.1f} MiB")
    log(f"largest change of a weight in fp16: {change:.2g}")


def write_shards(weights: dict[str, torch.Tensor], folder: Path, limit: int) -> list[Path]:
    """model.safetensors, or when the weights are over `limit` bytes, shards under it with the index transformers reads them by; the files written."""
    sizes = {name: value.numel() * value.element_size() for name, value in weights.items()}
    shards: list[dict[str, torch.Tensor]] = [{}]
    filled = 0
    for name, value in weights.items():
        if shards[-1] and filled + sizes[name] > limit:
            shards.append({})
            filled = 0
        shards[-1][name] = value
        filled += sizes[name]
    if len(shards) == 1:
        safetensors.torch.save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})
        return [folder / "model.safetensors"]
    names = [f"model-{i:05d}-of-{len(shards):05d}.safetensors" for i in range(1, len(shards) + 1)]
    for name, shard in zip(names, shards):
        safetensors.torch.save_file(shard, str(folder / name), metadata={"format": "pt"})
    index = {"metadata": {"total_size": sum(sizes.values())}, "weight_map": {weight: name for name, shard in zip(names, shards) for weight in shard}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    return [folder / name for name in names]


STAGE2_SCHEDULE = {"batch": 16, "rate": 5e-5, "epochs": 2}


def training_options(step: argparse.ArgumentParser, batch: int, rate: float, epochs: int) -> None:
    step.add_argument("--device", default="cpu")
    step.add_argument("--batch-size", type=int, default=batch)
    step.add_argument("--learning-rate", type=float, default=rate)
    step.add_argument("--epochs", type=int, default=epochs)
    step.add_argument("--checkpoint-every", type=int, default=200, help="steps between checkpoints (and one at the end)")


def scientific_options(step: argparse.ArgumentParser) -> None:
    """What `scientific_run` reads besides the folders, the seed and the threads: stage 2's, and a distilled student's."""
    training_options(step, **STAGE2_SCHEDULE)
    step.add_argument("--stop-after-epochs", type=int, default=0, help="finish after this many epochs of the --epochs schedule (0: all of them)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)

    def common(step: argparse.ArgumentParser) -> None:
        step.add_argument("--work", required=True, help="the run's folder: inputs/, stage1/, stage2/, curve.json")
        step.add_argument("--base", help="the base model folder (default: the pinned PyPI all-MiniLM-L6-v2)")
        step.add_argument("--cache", default="~/.cache/attest-training")
        step.add_argument("--seed", type=int, default=13)
        step.add_argument("--threads", type=int, default=0, help="torch's CPU threads (0: its default)")

    def correction_option(step: argparse.ArgumentParser) -> None:
        step.add_argument("--claim-only-correction", type=float, default=0.0, metavar="WEIGHT",
                          help="judge with a claim-only model taken out of the verifier's log-probabilities at this weight (0: none); see debias.py")

    def claim_only_option(step: argparse.ArgumentParser) -> None:
        step.add_argument("--claim-only-expert", action="store_true", help="train as a product of experts with a claim-only model, against what the claim's words alone give away")

    step = steps.add_parser("prepare", help="build and tokenise every pair")
    common(step)
    step.add_argument("--data", required=True)
    step.add_argument("--sources", nargs="+", default=list(pretrain_pairs.SOURCES), choices=pretrain_pairs.SOURCES)
    step.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    step.add_argument("--max-pairs", type=int, default=0, help="stage 1: the first N pairs of the seeded order (0: all)")
    step.add_argument("--stage1-pairs", help="stage 1's pairs as `pretrain_pairs --out` wrote them (default: built now, with --sources)")
    step.add_argument("--stage1-length", type=int, default=128)
    step.add_argument("--best-sentences", type=int, default=2, help="dev pairs also against the claim's N most relevant sentences (twostage premises)")
    step.add_argument("--limit", type=int, default=0, help="the first N scientific train pairs and dev pairs of each dataset only (a smoke test)")
    step.add_argument("--stage2-length", type=int, default=128)
    step.add_argument("--stage2-evidence-inference", type=int, default=0, help="stage 2: also this many Evidence Inference pairs stage 1 did not train on (0: none)")
    step = steps.add_parser("stage1", help="train on the NLI and fact-verification pairs")
    common(step)
    training_options(step, batch=32, rate=5e-5, epochs=1)
    step.add_argument("--curve-points", type=int, nargs="*", default=list(CURVE_POINTS), help="keep the weights after this many pairs")
    claim_only_option(step)
    step = steps.add_parser("stage2", help="train on the scientific pairs")
    common(step)
    scientific_options(step)
    step.add_argument("--init", help="the weights to start from (default: the base)")
    step.add_argument("--name", required=True, help="W/stage2/NAME holds this run")
    claim_only_option(step)
    step = steps.add_parser("curve", help="dev macro-F1 at stage 1's kept points")
    common(step)
    training_options(step, **STAGE2_SCHEDULE)
    step.add_argument("--stage2-epochs", type=int, default=0, help="also run this many epochs of stage 2 from each point (0: none)")
    step = steps.add_parser("premises", help="dev macro-F1 against the whole abstract, its best sentences, both")
    common(step)
    step.add_argument("--device", default="cpu")
    step.add_argument("--weights", help="a stage-2 run's best/ folder (default: that of the run best on dev)")
    step = steps.add_parser("soup", help="two stage-2 runs from the same start, their weights averaged")
    common(step)
    step.add_argument("--device", default="cpu")
    step.add_argument("--runs", nargs=2, required=True, metavar=("FIRST", "SECOND"), help="two finished runs in W/stage2/")
    step.add_argument("--share", type=float, required=True, help="the first run's part of the average, between 0 and 1")
    step.add_argument("--name", required=True, help="W/stage2/NAME holds the average")
    step = steps.add_parser("choose", help="of the finished stage-2 runs, the one with the most contradictions right on dev (W/choice.json)")
    common(step)
    step.add_argument("--device", default="cpu")
    step.add_argument("--runs", nargs="*", default=[], metavar="NAME", help="the runs in W/stage2/ to choose among (default: every finished one)")
    correction_option(step)
    precision_options(step)
    step = steps.add_parser("export", help="int8 ONNX, thresholds, card")
    common(step)
    step.add_argument("--weights", help="a stage-2 run's best/ folder (default: that of the run best on dev)")
    step.add_argument("--out", required=True)
    correction_option(step)
    export_options(step)
    evaluate_options(step)
    step = steps.add_parser("pack", help="the base (fp16) and the inputs, for a GPU machine")
    common(step)
    step.add_argument("--into", required=True)
    step.add_argument("--shard-mib", type=float, default=48, help="the base's weights in shards of at most this many MiB")
    step.add_argument("--distil", help="a distillation's folder (distil prepare): its teacher's pairs travel too, for the GPU run to label")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    {"prepare": prepare, "stage1": stage1, "stage2": stage2, "curve": curve, "premises": premises, "soup": soup, "choose": choose, "export": export, "pack": pack}[args.step](args)


if __name__ == "__main__":
    main()
