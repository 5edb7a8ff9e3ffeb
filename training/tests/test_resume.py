import argparse
import random

import torch
from transformers import BertConfig, BertForSequenceClassification

from attest_training.resume import CHECKPOINT, Run
from attest_training.twostage import fit, load_inputs, save_inputs

ARGS = argparse.Namespace(learning_rate=1e-3)
# One thread: on shared cores, more make a tiny model slower, and the arithmetic the same in every run.
torch.set_num_threads(1)


def _inputs(count=40):
    rng = random.Random(0)
    rows = []
    for _ in range(count):
        ids = [2] + [rng.randint(4, 49) for _ in range(rng.randint(4, 9))] + [3]
        rows.append((ids, [0] * (len(ids) // 2) + [1] * (len(ids) - len(ids) // 2), rng.randint(0, 2)))
    return rows


def _model(seed):
    """A tiny randomly initialised BERT; dropout on, so the generators' state matters to the weights."""
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=3, max_position_embeddings=32)
    return BertForSequenceClassification(config)


def _train(folder, model, stop_after=None):
    """Two epochs of ten steps, a checkpoint every three; returns the progress and the steps this call took."""
    taken = []

    def after_epoch(epoch, loss, progress):
        progress.record.setdefault("history", []).append(epoch)

    run = Run(folder, count=40, batch_size=4, epochs=2, seed=3, every=3)
    progress = fit(model, _inputs(), run, ARGS, torch.device("cpu"), 0, lambda step, _: taken.append(step), after_epoch, stop_after)
    return progress, taken


def test_a_run_cut_off_and_resumed_ends_with_the_weights_of_an_uninterrupted_run(tmp_path):
    torch.manual_seed(7)
    whole = _model(1)
    done, _ = _train(tmp_path / "whole", whole)
    assert done.step == 20 and done.record["history"] == [1, 2]

    torch.manual_seed(7)
    cut, taken = _train(tmp_path / "cut", _model(1), stop_after=7)
    assert taken == list(range(1, 8)) and (tmp_path / "cut" / CHECKPOINT).exists()

    # Started again as a new process would be: other initial weights and generator states, which the checkpoint replaces.
    again = _model(99)
    random.seed(123)
    resumed, taken = _train(tmp_path / "cut", again)
    assert taken == list(range(7, 21)), "the run continues after its last checkpoint (step 6), not from the start"
    assert resumed.record["history"] == [1, 2]
    for (name, a), b in zip(whole.state_dict().items(), again.state_dict().values()):
        assert torch.equal(a, b), name


def test_a_checkpoint_left_half_written_is_not_read(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / (CHECKPOINT + ".partial")).write_bytes(b"cut off while writing")
    done, taken = _train(tmp_path / "run", _model(1))
    assert done.step == 20 and taken[0] == 1


def test_inputs_read_back_as_they_were_written(tmp_path):
    inputs = _inputs(7)
    save_inputs(tmp_path / "x.npz", inputs)
    assert load_inputs(tmp_path / "x.npz") == inputs


def test_the_export_takes_the_stage_two_run_best_on_dev(tmp_path):
    import json

    import pytest

    from attest_training.twostage import best_stage2

    with pytest.raises(SystemExit, match="no finished stage-2 run"):
        best_stage2(tmp_path)
    for name, score in (("from-0", 0.52), ("from-all", 0.61), ("from-25000", 0.58)):
        (tmp_path / "stage2" / name).mkdir(parents=True)
        (tmp_path / "stage2" / name / "done.json").write_text(json.dumps({"best_score": score}))
    (tmp_path / "stage2" / "from-50000").mkdir()  # cut off: no done.json, not a candidate
    assert best_stage2(tmp_path) == tmp_path / "stage2" / "from-all" / "best"


def test_a_claim_judged_against_its_best_sentences_gets_them_in_the_abstracts_order():
    from attest_training.pairs import Pair
    from attest_training.twostage import best_sentences

    sentences = ("Background on cohorts.", "Statins lowered mortality.", "Funding was public.", "Mortality fell with statins in the trial.", "Limits.")
    pair = Pair("scifact", "Statins reduce mortality.", sentences, "entailment", (3,))
    best = best_sentences(pair, 2)
    assert best.sentences == (sentences[1], sentences[3]) and best.label == "entailment" and best.claim == pair.claim
