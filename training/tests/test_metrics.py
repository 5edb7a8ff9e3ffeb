import numpy as np

from attest_training.metrics import ABSTAIN, Thresholds, choose_thresholds, contradictions_right_at, decide, macro_f1

C, E, N = 0, 1, 2


def test_contradiction_needs_its_threshold_and_to_beat_entailment():
    probs = np.array([[0.6, 0.3, 0.1], [0.45, 0.5, 0.05], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    assert decide(probs, Thresholds(0.5, 0.5, 0.7)).tolist() == [C, E, N, ABSTAIN]


def test_abstaining_counts_against_recall():
    assert macro_f1([E, E], [E, ABSTAIN]) < macro_f1([E, E], [E, E])


def test_no_contradiction_threshold_when_no_threshold_is_precise_enough():
    gold = np.array([C, E] * 20)
    probs = np.array([[0.9, 0.05, 0.05]] * 40)
    thresholds, _ = choose_thresholds({"d": (gold, probs)}, contradiction_precision=0.85, neutral_precision=0.8)
    assert thresholds.contradiction > 1


def test_neutral_is_never_said_when_no_threshold_is_precise_enough_and_entailment_still_is():
    gold = np.array([E, N] * 20)
    probs = np.array([[0.05, 0.8, 0.15], [0.05, 0.15, 0.8]] * 10 + [[0.05, 0.15, 0.8], [0.05, 0.8, 0.15]] * 10)
    thresholds, chosen = choose_thresholds({"d": (gold, probs)}, contradiction_precision=0.85, neutral_precision=0.8)
    assert thresholds.neutral > 1
    assert thresholds.entailment <= 0.8
    assert chosen["mean_macro_f1"] > 0


def test_contradictions_right_at_counts_the_most_a_threshold_finds_at_each_precision():
    # Contradiction probabilities, highest first: right, right, wrong, right, wrong, wrong.
    gold = np.array([C, C, E, C, N, E])
    scores = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    probs = np.array([[s, 1 - s, 0.0] for s in scores])
    assert contradictions_right_at(gold, probs, (1.0, 0.75, 0.5)) == {"1.00": 2, "0.75": 3, "0.50": 3}


def test_contradictions_right_at_cannot_part_equal_probabilities():
    # The two at 0.9 are one wrong and one right: no threshold says only the right one.
    gold = np.array([C, E, C])
    probs = np.array([[0.9, 0.1, 0.0], [0.9, 0.1, 0.0], [0.3, 0.7, 0.0]])
    assert contradictions_right_at(gold, probs, (1.0, 0.5)) == {"1.00": 0, "0.50": 2}
