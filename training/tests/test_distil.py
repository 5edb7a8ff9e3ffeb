import json
import shutil

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from attest_training import distil, twostage
from attest_training.pretrain_pairs import PretrainPair, write
from attest_training.twostage import best_stage2, load_inputs
from attest_training.verifier import classifier, predict
from tests.tiny import ABSTRACTS, CLAIMS, tiny_base, tiny_data

# One thread: on shared cores, more make a tiny model slower, and the arithmetic the same in every run.
TRAIN = ["--batch-size", "4", "--threads", "1"]
STAGE1 = [
    PretrainPair("Aspirin lowers the risk of stroke.", "Aspirin lowers stroke risk.", "entailment", "snli"),
    PretrainPair("Coffee disturbs sleep.", "Coffee improves sleep.", "contradiction", "snli"),
    PretrainPair("The trial enrolled adults.", "Statins reduce mortality.", "neutral", "snli"),
    PretrainPair("Statins reduce mortality.", "Statins reduce mortality after infarction.", "entailment", "fever"),
] * 2


def _run(root, name, base, seed=13):
    """A two-stage run on the tiny data: prepared, stage 1, stage 2 from its end."""
    work = root / name
    common = ["--work", str(work), "--base", str(base), "--seed", str(seed)]
    twostage.main(["prepare", *common, "--data", str(root / "data"), "--datasets", "scifact", "--stage1-pairs", str(root / "stage1.jsonl.gz"), "--stage1-length", "32", "--stage2-length", "48"])
    twostage.main(["stage1", *common, *TRAIN, "--curve-points"])
    twostage.main(["stage2", *common, *TRAIN, "--init", str(work / "stage1" / "after-all"), "--name", "from-all", "--epochs", "1"])
    return work


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A teacher of three layers and a student of two, each a two-stage run on the same pairs, and the student's pairs made for distillation."""
    root = tmp_path_factory.mktemp("distil")
    torch.set_num_threads(1)
    tiny_data(root / "data")
    write(STAGE1, root / "stage1.jsonl.gz")
    teacher = _run(root, "teacher", tiny_base(root / "teacher-base", layers=3, width=48))
    student = _run(root, "student", tiny_base(root / "student-base"))
    distil.main(["prepare", "--work", str(root / "distil"), "--data", str(root / "data"), "--teacher-work", str(teacher), "--teacher-base", str(root / "teacher-base"),
                 "--student-work", str(student), "--student-base", str(root / "student-base")])
    return root


def test_the_student_reads_the_scientific_pairs_then_each_train_claim_against_each_sentence_it_cites(runs):
    scientific = load_inputs(runs / "student" / "inputs" / "stage2.npz")
    student, teacher = (load_inputs(runs / "distil" / "inputs" / f"{who}.npz") for who in ("student", "teacher"))
    claims_with_text = {claim for claim, _, label, _ in CLAIMS}
    # Each of the six train claims cites one four-sentence abstract; the train split lists each claim twice.
    assert len(student) == len(teacher) == len(scientific) + 4 * len(claims_with_text)
    assert student[: len(scientific)] == scientific
    assert [label for *_, label in student[len(scientific) :]] == [distil.UNLABELLED] * 4 * len(claims_with_text)
    assert [label for *_, label in teacher] == [label for *_, label in student]
    meta = json.loads((runs / "distil" / "inputs" / "meta.json").read_text())
    assert (meta["scientific_pairs"], meta["claim_sentences"]) == (len(scientific), 24)


def test_a_claim_sentence_pair_holds_one_sentence_of_the_cited_text(runs):
    pairs = distil.claim_sentences(runs / "data", ["scifact"], 13, 0)
    sentences = {s for texts in ABSTRACTS.values() for s in texts}
    assert all(len(p.sentences) == 1 and p.sentences[0] in sentences for p in pairs)
    assert distil.claim_sentences(runs / "data", ["scifact"], 13, 5) == pairs[:5]


def test_runs_prepared_with_other_seeds_are_not_distilled_into_each_other(runs, tmp_path):
    other = _run(runs, "other-seed", runs / "student-base", seed=5)
    with pytest.raises(SystemExit, match="prepared differently"):
        distil.main(["prepare", "--work", str(tmp_path), "--data", str(runs / "data"), "--teacher-work", str(runs / "teacher"), "--teacher-base", str(runs / "teacher-base"),
                     "--student-work", str(other), "--student-base", str(runs / "student-base")])


def test_the_student_learns_the_teachers_probabilities_and_its_run_competes_for_the_export(runs):
    teacher = runs / "teacher" / "stage2" / "from-all" / "best"
    distil.main(["label", "--work", str(runs / "distil"), "--teacher", str(teacher), "--threads", "1"])
    probabilities = np.load(runs / "distil" / "teacher.npy")
    assert probabilities.shape == (len(load_inputs(runs / "distil" / "inputs" / "student.npz")), 3)
    assert np.allclose(probabilities.sum(axis=1), 1, atol=1e-5)

    init = runs / "student" / "stage1" / "after-all"
    before = _divergence(init, runs, probabilities)
    distil.main(["train", "--work", str(runs / "distil"), "--student-work", str(runs / "student"), "--init", str(init), "--soft-weight", "1", "--epochs", "4", "--learning-rate", "1e-3", *TRAIN])
    done = json.loads((runs / "student" / "stage2" / "distilled" / "done.json").read_text())
    distilled = done["distilled_from"]
    assert distilled["teacher"]["teacher"] == str(teacher) and distilled["soft_weight"] == 1 and distilled["claim_sentences"] == 24
    after = _divergence(runs / "student" / "stage2" / "distilled" / "best", runs, probabilities)
    # Both tiny models begin near uniform, close to each other; what the student learns halves what is left at the least.
    assert after < before / 2
    assert best_stage2(runs / "student").parent.name in ("from-all", "distilled")


def _divergence(weights, runs, teacher: np.ndarray) -> float:
    """KL(teacher ‖ student) over the distillation pairs, from the student's predictions with `weights`."""
    inputs = load_inputs(runs / "distil" / "inputs" / "student.npz")
    student = predict(classifier(weights, torch.device("cpu")), AutoTokenizer.from_pretrained(str(weights)), inputs, torch.device("cpu"))
    return float(np.mean(np.sum(teacher * (np.log(teacher) - np.log(student)), axis=1)))


def test_several_teachers_label_each_pair_with_their_average_and_are_each_named(runs, tmp_path):
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "teacher.npz").write_bytes((runs / "distil" / "inputs" / "teacher.npz").read_bytes())
    teachers = [runs / "teacher" / "stage2" / "from-all" / "best", runs / "teacher" / "stage1" / "after-all"]

    def labels(*chosen):
        distil.main(["label", "--work", str(tmp_path), "--teacher", *map(str, chosen), "--threads", "1"])
        return np.load(tmp_path / "teacher.npy"), json.loads((tmp_path / "teacher.json").read_text())

    (first, _), (second, _), (both, record) = labels(teachers[0]), labels(teachers[1]), labels(*teachers)
    # Both tiny teachers are near uniform: they differ in the fourth decimal, which the average keeps to the seventh.
    assert np.abs(first - second).max() > 1e-4
    assert np.abs(both - (first + second) / 2).max() < 1e-7
    stage2 = json.loads((teachers[0].parent / "done.json").read_text())["best_score"]
    assert record == {"teachers": [{"teacher": str(teachers[0]), "dev_mean_macro_f1": stage2}, {"teacher": str(teachers[1]), "dev_mean_macro_f1": None}], "pairs": len(both)}


def test_a_teacher_that_labelled_other_pairs_is_refused(runs, tmp_path):
    (tmp_path / "inputs").mkdir()
    for name in ("student.npz", "meta.json"):
        (tmp_path / "inputs" / name).write_bytes((runs / "distil" / "inputs" / name).read_bytes())
    np.save(tmp_path / "teacher.npy", np.full((3, 3), 1 / 3, dtype=np.float32))
    (tmp_path / "teacher.json").write_text("{}")
    with pytest.raises(SystemExit, match="run `distil label` again"):
        distil.main(["train", "--work", str(tmp_path), "--student-work", str(runs / "student"), "--init", str(runs / "student" / "stage1" / "after-all"), "--name", "refused", *TRAIN])


def test_the_loss_is_the_teachers_divergence_and_the_gold_labels_where_there_are_some():
    weights = torch.ones(3)
    teacher = torch.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 3.0]])
    labels = torch.tensor([1, distil.UNLABELLED])
    assert distil.distillation_loss(teacher.clone(), teacher, labels, weights, 2.0, 1.0).item() == pytest.approx(0, abs=1e-6)
    other = torch.tensor([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])
    hard = torch.nn.functional.cross_entropy(other[:1], labels[:1])
    assert distil.distillation_loss(other, teacher, labels, weights, 2.0, 0.0).item() == pytest.approx(hard.item())
    soft = distil.distillation_loss(other, teacher, labels, weights, 2.0, 1.0).item()
    assert soft > 0
    assert distil.distillation_loss(other, teacher, labels, weights, 2.0, 0.5).item() == pytest.approx(0.5 * soft + 0.5 * hard.item())


def test_a_base_over_the_shard_size_travels_in_parts_that_load_as_the_whole(runs, tmp_path):
    base = runs / "teacher-base"
    twostage.main(["pack", "--work", str(runs / "teacher"), "--base", str(base), "--into", str(tmp_path / "gpu"), "--shard-mib", "0.05", "--distil", str(runs / "distil")])
    parts = sorted(p.name for p in tmp_path.glob("gpu/base-part-*"))
    assert len(parts) >= 2 and not list((tmp_path / "gpu" / "base").glob("*.safetensors"))[1:], "one shard in base/, each other in its own folder"
    listed = (tmp_path / "gpu" / "base" / "SHA256SUMS").read_text()
    assert all(shard.name in listed for shard in tmp_path.glob("gpu/base-part-*/*.safetensors"))
    assert (tmp_path / "gpu" / "inputs" / "distil-teacher.npz").name in (tmp_path / "gpu" / "inputs" / "SHA256SUMS").read_text()
    for shard in tmp_path.glob("gpu/base-part-*/*.safetensors"):
        shard.rename(tmp_path / "gpu" / "base" / shard.name)  # as the GPU script links them
    whole, carried = AutoModel.from_pretrained(str(base)), AutoModel.from_pretrained(str(tmp_path / "gpu" / "base"))
    for (name, a), b in zip(whole.state_dict().items(), carried.state_dict().values()):
        assert torch.allclose(a, b.float(), atol=1e-3), name


def test_two_runs_from_one_start_average_into_one_model_whose_card_says_so(runs, tmp_path):
    student = runs / "student"
    common = ["--work", str(student), "--base", str(runs / "student-base")]
    twostage.main(["stage2", *common, *TRAIN, "--seed", "5", "--init", str(student / "stage1" / "after-all"), "--name", "other-seed", "--epochs", "1"])
    twostage.main(["soup", *common, "--threads", "1", "--runs", "from-all", "other-seed", "--share", "0.75", "--name", "soup"])
    first, second, averaged = (classifier(student / "stage2" / name / "best", torch.device("cpu")).state_dict() for name in ("from-all", "other-seed", "soup"))
    assert any(not torch.equal(first[key], second[key]) for key in first)
    for key, value in averaged.items():
        if value.is_floating_point():
            assert torch.allclose(value, 0.75 * first[key] + 0.25 * second[key], atol=1e-6), key
    done = json.loads((student / "stage2" / "soup" / "done.json").read_text())
    assert done["soup"]["share_of_first"] == 0.75 and done["best_score"] == done["soup"]["dev_argmax"]["pooled"]["mean_macro_f1"]

    twostage.main(["export", *common, "--threads", "1", "--weights", str(student / "stage2" / "soup" / "best"), "--out", str(tmp_path / "model"), "--min-agreement", "0"])
    card = (tmp_path / "model" / "README.md").read_text()
    assert "75% those of the run `from-all` and 25% those of `other-seed`, from the same start" in card


def test_runs_from_different_starts_are_not_averaged(runs):
    student = runs / "student"
    common = ["--work", str(student), "--base", str(runs / "student-base")]
    twostage.main(["stage2", *common, *TRAIN, "--name", "from-base", "--epochs", "1"])
    with pytest.raises(SystemExit, match="start from different weights"):
        twostage.main(["soup", *common, "--runs", "from-all", "from-base", "--share", "0.5", "--name", "mixed"])
    assert not (student / "stage2" / "mixed").exists()


def test_a_stage2_stopped_after_its_first_epoch_is_that_epoch_of_the_longer_schedule(runs, tmp_path):
    student = tmp_path / "student"
    shutil.copytree(runs / "student", student, ignore=shutil.ignore_patterns("stage2"))
    common = ["--work", str(student), "--base", str(runs / "student-base")]
    start = ["--init", str(student / "stage1" / "after-all"), "--epochs", "2"]
    twostage.main(["stage2", *common, *TRAIN, *start, "--name", "whole"])
    twostage.main(["stage2", *common, *TRAIN, *start, "--name", "stopped", "--stop-after-epochs", "1"])
    whole, stopped = (json.loads((student / "stage2" / name / "done.json").read_text()) for name in ("whole", "stopped"))
    assert len(whole["history"]) == 2 and len(stopped["history"]) == 1
    # The same steps at the same learning rates: epoch 1's loss and dev figures are the longer run's.
    assert stopped["history"][0] == whole["history"][0]
    assert (stopped["epochs"], stopped["stopped_after_epoch"], stopped["best_epoch"]) == (2, 1, 1) and "stopped_after_epoch" not in whole

    twostage.main(["export", *common, "--threads", "1", "--weights", str(student / "stage2" / "stopped" / "best"), "--out", str(tmp_path / "model"), "--min-agreement", "0"])
    assert "a 2-epoch schedule stopped after epoch 1, batch 4" in (tmp_path / "model" / "README.md").read_text()
    with pytest.raises(SystemExit, match="give 1 to 2 epochs"):
        twostage.main(["stage2", *common, *TRAIN, *start, "--name", "too-long", "--stop-after-epochs", "3"])
