import gzip
import json
from pathlib import Path

from attest_training import twostage
from attest_training.pretrain_pairs import PretrainPair, write
from attest_training.twostage import load_inputs
from tests.tiny import tiny_base, tiny_data

FINDINGS = [
    {"premise": "Aspirin lowers the risk of stroke in adults.", "hypothesis": "Aspirin increased stroke.", "label": "contradiction"},
    {"premise": "Statins reduce mortality after infarction.", "hypothesis": "Statins reduce mortality.", "label": "entailment"},
    {"premise": "Coffee disturbs sleep in most drinkers.", "hypothesis": "Coffee improves sleep.", "label": "contradiction"},
]


def _prepare(root, work, stage1, *extra):
    twostage.main(["prepare", "--work", str(work), "--base", str(root / "base"), "--data", str(root / "data"), "--datasets", "scifact",
                   "--stage1-pairs", str(stage1), "--stage1-length", "32", "--stage2-length", "48", *extra])
    return json.loads((work / "inputs" / "meta.json").read_text())["stage2"], load_inputs(work / "inputs" / "stage2.npz")


def test_stage2_takes_trial_findings_stage1_did_not_train_on(tmp_path):
    tiny_data(tmp_path / "data")
    (tmp_path / "base").mkdir()
    tiny_base(tmp_path / "base")
    folder = tmp_path / "data" / "nli-pretrain" / "evidence-inference"
    folder.mkdir(parents=True)
    with gzip.open(folder / "pairs.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in FINDINGS)
    seen = PretrainPair(FINDINGS[0]["premise"], FINDINGS[0]["hypothesis"], "contradiction", "evidence-inference")
    write([seen, PretrainPair("The trial enrolled adults.", "Statins reduce mortality.", "neutral", "snli")], tmp_path / "stage1.jsonl.gz")

    without, plain = _prepare(tmp_path, tmp_path / "without", tmp_path / "stage1.jsonl.gz")
    with_findings, inputs = _prepare(tmp_path, tmp_path / "with", tmp_path / "stage1.jsonl.gz", "--stage2-evidence-inference", "5")

    assert not any(k.startswith("evidence-inference/") for k in without["kinds"])
    # The finding stage 1 trained on is left out; the other two join the scientific pairs, which stay as they were.
    assert {k: v for k, v in with_findings["kinds"].items() if k.startswith("evidence-inference/")} == {"evidence-inference/contradiction": 1, "evidence-inference/entailment": 1}
    assert with_findings["pairs"] == without["pairs"] + 2
    assert inputs[: len(plain)] == plain


def test_the_export_without_precisions_asks_what_one_run_needs_and_the_shipped_model_chosen_among_runs_asked_more():
    # The CPU recipe (cpu-twostage.sh) exports its one run without naming them: 85%, which held about 80% on held-out
    # halves for one run. The shipped model, chosen among many runs (as gpu-twostage.sh chooses), asked more.
    shipped = json.loads((Path(__file__).resolve().parents[2] / "models" / "attest-nli" / "metrics.json").read_text())["training"]
    args = twostage.parse_args(["export", "--work", "W", "--out", "O"])
    assert (args.contradiction_precision, args.neutral_precision) == (0.85, shipped["neutral_precision"])
    assert shipped["contradiction_precision"] > args.contradiction_precision
