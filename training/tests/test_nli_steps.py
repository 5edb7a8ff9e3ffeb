import json
from pathlib import Path

import numpy as np
import pytest
import torch

from attest_training import export, nli
from attest_training.pairs import kinds, read_pairs
from tests.test_card import one_stage
from tests.tiny import CLAIMS, tiny_base, tiny_data

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "attest-nli"
# One thread: on shared cores, more make a tiny model slower, and the arithmetic the same in every run.
TINY = ["--max-length", "48", "--epochs", "1", "--batch-size", "4", "--threads", "1"]


@pytest.fixture(scope="module")
def stepwise(tmp_path_factory):
    """The four steps run one after the other, each from the files of the one before."""
    root = tmp_path_factory.mktemp("nli")
    data, base, work = tiny_data(root / "data"), tiny_base(root / "base"), root / "work"
    torch.set_num_threads(1)
    nli.main(["pairs", "--data", str(data), "--datasets", "scifact", "--out", str(work / "pairs")])
    nli.main(["train", "--pairs", str(work / "pairs"), "--out", str(work / "weights"), "--base", str(base), *TINY])
    nli.main(["export", "--weights", str(work / "weights"), "--pairs", str(work / "pairs"), "--out", str(work / "graph"), "--min-agreement", "0", "--threads", "1"])
    nli.main(["evaluate", "--model", str(work / "graph"), "--pairs", str(work / "pairs"), "--out", str(root / "attest-nli")])
    return root


def test_the_steps_write_the_folder_the_extension_reads(stepwise):
    folder = stepwise / "attest-nli"
    assert sorted(p.name for p in folder.rglob("*")) == sorted(p.name for p in SHIPPED.rglob("*"))
    metrics, shipped = (json.loads((f / "metrics.json").read_text()) for f in (folder, SHIPPED))
    # The shipped export was told the runs it was chosen among; this one was told none.
    assert list(metrics) == [key for key in one_stage(shipped) if key != "contradiction_held_out_among_runs"]
    # The shipped model is a two-stage export; every figure of its training a one-stage export gives too, and the card reads them by name.
    assert set(shipped["training"]) <= set(metrics["training"])
    made = json.loads((stepwise / "work" / "pairs" / "pairs.json").read_text())
    assert metrics["training"]["pairs"] == made["pairs"]["train"] and metrics["training"]["kinds"] == made["counts"]["train"]["scifact"]
    assert metrics["dev_int8_thresholds"]["scifact"]["pairs"] == made["pairs"]["dev"] == len(CLAIMS)
    assert [epoch["epoch"] for epoch in metrics["history"]] == [1] and metrics["training"]["max_length"] == 48
    assert json.loads((folder / "attest.json").read_text())["premise"] == "abstract"
    assert f"{metrics['model']}: Attest's claim verifier" in (folder / "README.md").read_text()
    assert (stepwise / "attest-nli.dev-probabilities.npz").exists()


def test_train_reads_back_the_pairs_file_and_trains_on_the_first_n_pairs_with_limit(stepwise):
    work = stepwise / "work"
    nli.main(["train", "--pairs", str(work / "pairs"), "--out", str(work / "few"), "--base", str(stepwise / "base"), "--limit", "5", *TINY])
    first = read_pairs(work / "pairs")[0]["train"][:5]
    data = json.loads((work / "few" / "training.json").read_text())["data"]
    assert data["pairs"] == 5 and data["kinds"] == kinds(first)


def test_the_one_command_writes_what_the_four_steps_write(stepwise, tmp_path):
    nli.main(["--data", str(stepwise / "data"), "--datasets", "scifact", "--base", str(stepwise / "base"), "--out", str(tmp_path / "attest-nli"), "--min-agreement", "0", *TINY])
    whole, steps = (json.loads((folder / "attest-nli" / "metrics.json").read_text()) for folder in (tmp_path, stepwise))
    for metrics in (whole, steps):
        for key in ("seconds", "commit", "exported_at", "export_only"):
            metrics["training"].pop(key)
        for epoch in metrics["history"]:
            epoch.pop("seconds")
    assert whole == steps
    assert (tmp_path / "attest-nli" / "attest.json").read_text() == (stepwise / "attest-nli" / "attest.json").read_text()
    probabilities = [np.load(folder / "attest-nli.dev-probabilities.npz")["scifact"] for folder in (tmp_path, stepwise)]
    assert np.array_equal(*probabilities)


STEP_COMMANDS = {
    "pairs_step": ["pairs", "--data", "D", "--out", "P"],
    "train_step": ["train", "--pairs", "P", "--out", "W"],
    "export_step": ["export", "--weights", "W", "--pairs", "P", "--out", "G"],
    "evaluate_step": ["evaluate", "--model", "G", "--pairs", "P", "--out", "O"],
}


def _run_recorded(monkeypatch, argv):
    """The one command with each step replaced by a record of what it was handed."""
    calls = []
    for name in STEP_COMMANDS:
        monkeypatch.setattr(nli, name, lambda args, name=name: calls.append((name, args)))
    nli.main(argv)
    return calls


def test_the_one_command_runs_the_four_steps_in_order_each_on_what_the_one_before_wrote(monkeypatch, tmp_path):
    calls = _run_recorded(monkeypatch, ["--data", "D", "--out", "O", "--keep-weights", str(tmp_path / "K"), "--limit", "50", "--epochs", "2", "--min-agreement", "0.9"])
    assert [name for name, _ in calls] == list(STEP_COMMANDS)
    pairs, train, export, evaluate = (args for _, args in calls)
    assert train.pairs == export.pairs == evaluate.pairs == pairs.out
    assert train.out == export.weights == tmp_path / "K"
    assert evaluate.model == export.out and evaluate.out == "O"
    assert (pairs.limit, train.limit, train.epochs, export.min_agreement, export.export_only) == (50, 0, 2, 0.9, False)
    for name, args in calls:
        assert set(vars(nli.parse_args(STEP_COMMANDS[name]))) <= set(vars(args)), f"{name} is handed every option its own command has"


def test_export_only_exports_the_weights_in_base_without_training(monkeypatch):
    calls = _run_recorded(monkeypatch, ["--data", "D", "--out", "O", "--export-only", "--base", "W"])
    assert [name for name, _ in calls] == ["pairs_step", "export_step", "evaluate_step"]
    assert calls[1][1].weights == Path("W") and calls[1][1].export_only is True


def test_export_only_without_weights_to_export_is_refused():
    with pytest.raises(SystemExit):
        nli.parse_args(["--data", "D", "--out", "O", "--export-only"])


def test_every_option_of_the_one_command_is_still_taken():
    args = nli.parse_args(
        "--data D --out O --cache C --base B --datasets scifact check-covid --max-length 128 --epochs 2 --batch-size 32 --learning-rate 1e-4 --seed 7 "
        "--threads 2 --device cuda --balance-labels --contradiction-precision 0.85 --neutral-precision 0.7 --min-agreement 0.9 --keep-weights K --limit 120".split()
    )
    assert args.step is None and args.datasets == ["scifact", "check-covid"] and args.balance_labels and args.keep_weights == "K" and not args.export_only
    assert (args.max_length, args.epochs, args.batch_size, args.learning_rate, args.seed, args.threads, args.limit) == (128, 2, 32, 1e-4, 7, 2, 120)


def test_each_step_takes_its_own_options_with_the_one_commands_defaults():
    whole = nli.parse_args(["--data", "D", "--out", "O"])
    for name, argv in STEP_COMMANDS.items():
        step = nli.parse_args(argv)
        assert step.step == argv[0]
        assert all(getattr(step, key) == getattr(whole, key) for key in vars(step) if key not in ("step", "out", "pairs", "weights", "model", "export_only", "keep_weights")), name
    assert nli.parse_args(STEP_COMMANDS["export_step"]).export_only is True
    with pytest.raises(SystemExit):
        nli.parse_args(["train", "--out", "W"])


def test_the_int8_graph_is_judged_with_exact_products_as_the_extension_runs_it(stepwise, monkeypatch):
    # session.ts asks the same: on x86 CPUs without VNNI, ONNX Runtime's int8 products otherwise saturate.
    asked = []
    real = export.onnxruntime.InferenceSession

    def recording(path, options, **kwargs):
        asked.append(options.get_session_config_entry("session.x64quantprecision"))
        return real(path, options, **kwargs)

    monkeypatch.setattr(export.onnxruntime, "InferenceSession", recording)
    probabilities = export.onnx_probabilities(stepwise / "attest-nli" / "onnx" / "model_quantized.onnx", [([1, 2, 3], [0, 0, 1], 0)])
    assert asked == ["1"] and probabilities.shape == (1, 3)


def test_told_the_runs_it_was_chosen_among_the_export_says_what_the_choice_cost(stepwise, tmp_path):
    work = stepwise / "work"
    rival = stepwise / "attest-nli.dev-probabilities.npz"
    nli.main(["evaluate", "--model", str(work / "graph"), "--pairs", str(work / "pairs"), "--out", str(tmp_path / "chosen"), "--rivals", str(rival)])
    metrics = json.loads((tmp_path / "chosen" / "metrics.json").read_text())
    among = metrics["contradiction_held_out_among_runs"]
    assert set(among["runs_chosen"]) == {"this run", "attest-nli"}
    assert {k: v for k, v in among.items() if k != "runs_chosen"}.keys() == metrics["contradiction_held_out"].keys()
    assert "contradiction_held_out_among_runs" not in json.loads((stepwise / "attest-nli" / "metrics.json").read_text())
