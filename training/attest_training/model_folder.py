"""
The folder the extension reads (`models/attest-nli`), written in two parts that may run apart:
`write_graph`, the int8 ONNX graph with its tokenizer and config, checked against the trained model on
the dev pairs; then `write_verdicts`, the thresholds chosen on the graph's dev probabilities with
`attest.json`, `metrics.json` and the model card.
"""
from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from .card import write_card
from .export import export_int8, onnx_probabilities
from .folders import replaced_when_whole
from .metrics import choose_thresholds, contradiction_held_out, report
from .pairs import Pair
from .steps import log
from .verifier import Inputs, model_name, predict_splits, with_gold

GRAPH = Path("onnx") / "model_quantized.onnx"
DEV_PROBABILITIES = ".dev-probabilities.npz"


@dataclass
class Graph:
    """What `write_graph` measured on the dev pairs."""

    dev_trained_argmax: dict
    int8_agreement: dict[str, float]
    int8_probabilities: dict[str, np.ndarray]


def write_graph(model, tokenizer, dev: dict[str, list[Pair]], dev_inputs: dict[str, Inputs], folder: Path, name: str, max_length: int, min_agreement: float) -> Graph:
    """
    Exports `model` to int8 ONNX in `folder` with its tokenizer and config (named `name`), once its dev
    labels agree with the trained model's on at least `min_agreement` of each dev set.
    """
    model.cpu().eval()
    trained = predict_splits(model, tokenizer, dev_inputs, torch.device("cpu"))
    graph = export_int8(model, folder / GRAPH.parent, workdir=folder / "fp32")
    shutil.rmtree(folder / "fp32")
    int8 = {dataset: onnx_probabilities(graph, inputs) for dataset, inputs in dev_inputs.items()}
    agreement = {dataset: round(float((trained[dataset].argmax(1) == int8[dataset].argmax(1)).mean()), 4) for dataset in dev}
    log(f"int8 agrees with the trained model on {agreement}")
    if min(agreement.values()) < min_agreement:
        raise SystemExit(f"the int8 model agrees with the trained one on only {agreement} of dev labels (needed {min_agreement}); not writing the model folder")
    save_tokenizer(tokenizer, folder, max_length)
    save_config(model, folder, name)
    return Graph(report(with_gold(dev, trained), None), agreement, int8)


def write_verdicts(folder: Path, dev: dict[str, list[Pair]], int8: dict[str, np.ndarray], record: dict, contradiction_precision: float, neutral_precision: float,
                   extra: dict | None = None, rivals: dict[str, dict[str, np.ndarray]] | None = None) -> dict:
    """
    Chooses the thresholds on the int8 graph's dev probabilities `int8` and writes into `folder`, which
    holds the graph, `attest.json`, `metrics.json` (`record`'s model, base, training, history and trained
    dev figures, the int8 ones, then `extra`) and the model card. `rivals`, the runs this one was chosen
    among on dev, are chosen among again in the held-out figure. Returns the metrics.
    """
    splits = with_gold(dev, int8)
    thresholds, chosen = choose_thresholds(splits, contradiction_precision, neutral_precision)
    log(f"thresholds {thresholds} ({chosen})")
    # A contradiction threshold above 1 is one no probability reaches: the extension reads null as "never".
    shipped = {k: (None if v > 1 else v) for k, v in asdict(thresholds).items()}
    (folder / "attest.json").write_text(json.dumps({"premise": "abstract", "thresholds": shipped}, indent=2) + "\n")
    metrics = {
        **{key: record[key] for key in ("model", "base", "training", "history", "dev_trained_argmax")},
        "dev_int8_thresholds": report(splits, thresholds),
        "int8_agreement": record["int8_agreement"],
        "thresholds": asdict(thresholds),
        "contradiction_held_out": contradiction_held_out(splits, contradiction_precision),
        **({"contradiction_held_out_among_runs": contradiction_held_out(splits, contradiction_precision, rivals=rivals)} if rivals else {}),
        "sizes": {GRAPH.name: (folder / GRAPH).stat().st_size},
        **(extra or {}),
    }
    (folder / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    write_card(folder, metrics)
    return metrics


def save_dev_probabilities(out: Path, int8: dict[str, np.ndarray]) -> None:
    """The int8 graph's dev probabilities beside the folder `out`, for studying the thresholds again."""
    np.savez(out.with_name(out.name + DEV_PROBABILITIES), **int8)


def rival_probabilities(paths: list[str]) -> dict[str, dict[str, np.ndarray]]:
    """Other exports' dev probabilities as `save_dev_probabilities` wrote them, by the name of their folder."""
    return {Path(path).name.removesuffix(DEV_PROBABILITIES): dict(np.load(path)) for path in paths}


def write_folder(model, tokenizer, dev, dev_inputs, out: Path, source: dict, training: dict, history: list[dict], args, extra: dict | None = None) -> dict:
    """Both parts at once from the trained model, into `out` (replaced only when the new folder is whole); returns the metrics."""
    name = model_name(source)
    with replaced_when_whole(out) as folder:
        graph = write_graph(model, tokenizer, dev, dev_inputs, folder, name, args.max_length, args.min_agreement)
        record = {"model": name, "base": source, "training": training, "history": history, "dev_trained_argmax": graph.dev_trained_argmax, "int8_agreement": graph.int8_agreement}
        metrics = write_verdicts(folder, dev, graph.int8_probabilities, record, args.contradiction_precision, args.neutral_precision, extra, rival_probabilities(args.rivals))
        save_dev_probabilities(out, graph.int8_probabilities)
    return metrics


def save_tokenizer(tokenizer, folder: Path, max_length: int) -> None:
    tokenizer.model_max_length = max_length
    tokenizer.save_pretrained(str(folder))
    for extra in ("vocab.txt", "special_tokens_map.json"):
        (folder / extra).unlink(missing_ok=True)


def save_config(model, folder: Path, name: str) -> None:
    config = model.config.to_dict()
    config["_name_or_path"] = name
    config["architectures"] = ["BertForSequenceClassification"]
    (folder / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def export_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--min-agreement", type=float, default=0.93, help="the share of dev labels the int8 graph must give as the trained model does")


def precision_options(parser: argparse.ArgumentParser) -> None:
    """
    The precisions the thresholds are chosen for, by default those for one run: chosen for 85% on dev, a
    run's `contradicted` stayed about 80% right on pairs that did not choose it (`contradiction_held_out`),
    above the 75% issue 34 asks; chosen for 75%, only 72%. A run chosen among many asks more (the shipped
    model, 90%).
    """
    parser.add_argument("--contradiction-precision", type=float, default=0.85, help="the share of dev `contradicted` verdicts its threshold must get right")
    parser.add_argument("--neutral-precision", type=float, default=0.60, help="the share of dev `unsupported` verdicts its threshold must get right")


def evaluate_options(parser: argparse.ArgumentParser) -> None:
    """The precisions, and the runs this one was chosen among."""
    precision_options(parser)
    parser.add_argument("--rivals", nargs="*", default=[], metavar="NPZ",
                        help="the dev probabilities (FOLDER.dev-probabilities.npz) of the runs this one was chosen among, so that the held-out figure chooses among them too")
