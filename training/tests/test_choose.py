import json

import numpy as np
import torch

from attest_training import twostage
from attest_training.pretrain_pairs import PretrainPair, write
from tests.tiny import tiny_base, tiny_data


def test_a_sweep_is_chosen_among_and_its_export_says_so_and_what_the_choice_costs(tmp_path):
    torch.set_num_threads(1)
    tiny_data(tmp_path / "data")
    base = tiny_base(tmp_path / "base")
    write([PretrainPair("Aspirin lowers the risk of stroke.", "Aspirin does not lower stroke risk.", "contradiction", "snli")] * 4, tmp_path / "stage1.jsonl.gz")
    work = tmp_path / "run"
    common = ["--work", str(work), "--base", str(base), "--threads", "1"]
    twostage.main(["prepare", *common, "--data", str(tmp_path / "data"), "--datasets", "scifact", "--stage1-pairs", str(tmp_path / "stage1.jsonl.gz"),
                   "--stage1-length", "32", "--stage2-length", "48"])
    twostage.main(["stage1", *common, "--batch-size", "4", "--curve-points"])
    for seed in ("13", "7"):
        twostage.main(["stage2", *common, "--seed", seed, "--batch-size", "4", "--init", str(work / "stage1" / "after-all"), "--name", f"seed{seed}", "--epochs", "1"])

    choice = twostage.choose(twostage.parse_args(["choose", *common]))
    assert set(choice["runs"]) == {"seed13", "seed7"}
    assert json.loads((work / "choice.json").read_text()) == choice
    # Each run's dev probabilities are kept for the export's --rivals, in the order of the dev pairs.
    kept = {name: np.load(work / "stage2" / f"{name}.dev-probabilities.npz")["scifact"] for name in choice["runs"]}
    assert all(probabilities.shape[1] == 3 for probabilities in kept.values())
    # Chosen as they would judge with the claim alone taken out, the runs are judged, and kept, so.
    corrected = twostage.choose(twostage.parse_args(["choose", *common, "--claim-only-correction", "2"]))
    assert corrected["claim_only_correction"] == 2.0
    assert not any(np.allclose(kept[name], np.load(work / "stage2" / f"{name}.dev-probabilities.npz")["scifact"], atol=0.01) for name in kept)
    choice = twostage.choose(twostage.parse_args(["choose", *common]))

    chosen, other = choice["chosen"], ({"seed13", "seed7"} - {choice["chosen"]}).pop()
    twostage.main(["export", *common, "--weights", str(work / "stage2" / chosen / "best"), "--out", str(tmp_path / "model"), "--min-agreement", "0",
                   "--rivals", str(work / "stage2" / f"{other}.dev-probabilities.npz")])
    metrics = json.loads((tmp_path / "model" / "metrics.json").read_text())
    assert metrics["choice"]["chosen"] == chosen
    assert set(metrics["contradiction_held_out_among_runs"]["runs_chosen"]) == {"this run", other}
    assert "- **Chosen** on dev among 2 stage-2 runs (seed13, seed7): the one with the most `contradicted`" in (tmp_path / "model" / "README.md").read_text()

    # Another run of the sweep, exported, was not the one chosen; nor is a run "chosen" among itself alone: neither card says it was.
    twostage.main(["export", *common, "--weights", str(work / "stage2" / other / "best"), "--out", str(tmp_path / "other"), "--min-agreement", "0"])
    assert "choice" not in json.loads((tmp_path / "other" / "metrics.json").read_text())
    twostage.choose(twostage.parse_args(["choose", *common, "--runs", "seed7"]))
    twostage.main(["export", *common, "--weights", str(work / "stage2" / "seed7" / "best"), "--out", str(tmp_path / "alone"), "--min-agreement", "0"])
    assert "choice" not in json.loads((tmp_path / "alone" / "metrics.json").read_text())
