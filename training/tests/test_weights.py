import torch

from attest_training.verifier import class_weights


def test_each_label_weighs_the_same_in_total_however_rare():
    labels = [0] * 10 + [1] * 30 + [2] * 60
    weights = class_weights(labels)
    totals = [weights[label].item() * labels.count(label) for label in range(3)]
    assert max(totals) - min(totals) < 1e-4
    assert weights[0] > weights[1] > weights[2]


def test_a_label_absent_from_training_does_not_divide_by_zero():
    assert torch.isfinite(class_weights([1, 2, 2])).all()
