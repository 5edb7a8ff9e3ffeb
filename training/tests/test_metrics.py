import numpy as np
import pytest

from attest_training.metrics import ABSTAIN, Thresholds, choose_run, choose_thresholds, contradiction_held_out, contradiction_threshold, contradictions_right_at, decide, macro_f1

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


def _pairs(contradiction: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return gold, np.stack([contradiction, (1 - contradiction) / 2, (1 - contradiction) / 2], axis=1)


def test_a_threshold_chosen_on_half_of_dev_holds_on_the_other_half_when_the_ranking_is_real():
    rng = np.random.default_rng(1)
    gold = np.array([C] * 60 + [E] * 140)
    # Refuting pairs score higher: the top of the ranking is mostly right in every half.
    contradiction = np.where(gold == C, rng.uniform(0.6, 0.99, 200), rng.uniform(0.0, 0.7, 200))
    held = contradiction_held_out({"a": _pairs(contradiction[:100], gold[:100]), "b": _pairs(contradiction[100:], gold[100:])}, 0.85, repeats=200)
    assert held["threshold_found"] > 0.95
    assert held["right_on_other_half"] > 0.8 and held["halves_at_75_percent"] > 0.8


def test_a_threshold_precise_on_dev_by_chance_is_not_precise_on_the_other_half():
    rng = np.random.default_rng(2)
    # Six pairs in ten refute: often enough that the top of a half is now and then 85% right by chance.
    gold = np.where(rng.uniform(size=300) < 0.6, C, E)
    # Scores that say nothing of the label: any threshold precise on one half is luck.
    held = contradiction_held_out({"d": _pairs(rng.uniform(0.3, 1.0, 300), gold)}, 0.85, repeats=200)
    assert held["threshold_found"] > 0.1
    assert held["right_on_other_half"] is None or held["right_on_other_half"] < 0.65
    assert held["halves_at_75_percent"] is None or held["halves_at_75_percent"] < 0.3


def test_the_held_out_threshold_is_chosen_as_the_export_chooses_it():
    gold = np.array([C] * 40 + [E] * 40)
    contradiction = np.array([0.9] * 40 + [0.2] * 40)
    assert contradiction_threshold(gold, _pairs(contradiction, gold)[1], 0.85) == 0.3
    held = contradiction_held_out({"d": _pairs(contradiction, gold)}, 0.85, repeats=20)
    # Every refuting pair is above every other: each half's lowest threshold is precise on the other, which holds half the refuting pairs.
    assert {k: held[k] for k in ("needed", "halvings", "threshold_found", "right_on_other_half", "halves_at_75_percent")} == {
        "needed": 0.85, "halvings": 20, "threshold_found": 1.0, "right_on_other_half": 1.0, "halves_at_75_percent": 1.0}
    assert 15 <= held["right_per_other_half"] <= 25


def test_choosing_the_run_on_the_same_halves_costs_precision_when_rivals_are_lucky():
    rng = np.random.default_rng(3)
    gold = np.where(rng.uniform(size=300) < 0.6, C, E)
    real = np.where(gold == C, rng.uniform(0.4, 1.0, 300), rng.uniform(0.3, 0.9, 300))
    alone = contradiction_held_out({"d": _pairs(real, gold)}, 0.85, repeats=200)
    # Eight runs whose rankings say nothing of the label: now and then one is luckier on the choosing half than the real one.
    rivals = {f"chance {i}": {"d": _pairs(rng.uniform(0.3, 1.0, 300), gold)[1]} for i in range(8)}
    chosen = contradiction_held_out({"d": _pairs(real, gold)}, 0.85, repeats=200, rivals=rivals)
    assert "runs_chosen" not in alone
    assert sum(chosen["runs_chosen"].values()) == round(chosen["threshold_found"] * 200)
    assert 100 < chosen["runs_chosen"]["this run"] < 200
    assert chosen["right_on_other_half"] < alone["right_on_other_half"] - 0.05


def test_a_rival_no_better_than_the_run_changes_nothing():
    rng = np.random.default_rng(1)
    gold = np.array([C] * 60 + [E] * 140)
    contradiction = np.where(gold == C, rng.uniform(0.6, 0.99, 200), rng.uniform(0.0, 0.7, 200))
    alone = contradiction_held_out({"d": _pairs(contradiction, gold)}, 0.85, repeats=50)
    # The same probabilities again: on every half they tie, and the first of equals, this run, is the one judged.
    chosen = contradiction_held_out({"d": _pairs(contradiction, gold)}, 0.85, repeats=50, rivals={"copy": {"d": _pairs(contradiction, gold)[1]}})
    assert chosen.pop("runs_chosen") == {"this run": round(alone["threshold_found"] * 50), "copy": 0}
    assert chosen == alone


def test_a_rival_judged_on_other_pairs_is_refused_by_name():
    gold = np.array([C] * 10 + [E] * 10)
    splits = {"d": _pairs(np.linspace(0.1, 0.9, 20), gold)}
    with pytest.raises(ValueError, match="the run older was not judged on the same dev pairs"):
        contradiction_held_out(splits, 0.85, repeats=5, rivals={"older": {"d": _pairs(np.linspace(0.1, 0.9, 19), gold[:19])[1]}})
    with pytest.raises(ValueError, match="the run other-data was not judged"):
        contradiction_held_out(splits, 0.85, repeats=5, rivals={"other-data": {"e": splits["d"][1]}})



# Ten refuting, ten supported and ten neutral dev pairs, for runs of a sweep.
SWEEP_GOLD = np.array([C] * 10 + [E] * 10 + [N] * 10)
# Six refuting pairs surely contradicted, and no other pair; the other refuting pairs and every neutral one taken for supported.
SURE_TOP = [[0.95, 0.03, 0.02]] * 6 + [[0.3, 0.6, 0.1]] * 4 + [[0.02, 0.95, 0.03]] * 5 + [[0.6, 0.35, 0.05]] * 5 + [[0.3, 0.6, 0.1]] * 10
# Every refuting pair contradicted, but as surely as two neutral ones (83%, under the 85% asked); the rest right.
VAGUE_TOP = [[0.7, 0.2, 0.1]] * 10 + [[0.02, 0.95, 0.03]] * 10 + [[0.7, 0.2, 0.1]] * 2 + [[0.05, 0.05, 0.9]] * 8


def test_the_run_chosen_among_a_sweep_is_the_one_whose_contradicted_is_right_most_often():
    chosen, figures = choose_run({"vague": {"d": (SWEEP_GOLD, np.array(VAGUE_TOP))}, "sure": {"d": (SWEEP_GOLD, np.array(SURE_TOP))}},
                                 contradiction_precision=0.85, neutral_precision=0.6)
    assert chosen == "sure"
    assert (figures["sure"]["contradicted_right"], figures["sure"]["contradicted_said"]) == (6, 6)
    # The run passed over never says `contradicted` and has the better macro-F1: the scarce figure decides first.
    assert figures["vague"]["contradicted_said"] == 0
    assert figures["vague"]["mean_macro_f1"] > figures["sure"]["mean_macro_f1"]


def test_of_runs_with_as_many_contradictions_right_the_one_with_the_better_macro_f1_is_chosen():
    # The same top, with six of the neutral pairs told apart.
    better = SURE_TOP[:20] + [[0.05, 0.05, 0.9]] * 6 + SURE_TOP[26:]
    chosen, figures = choose_run({"worse": {"d": (SWEEP_GOLD, np.array(SURE_TOP))}, "better": {"d": (SWEEP_GOLD, np.array(better))}},
                                 contradiction_precision=0.85, neutral_precision=0.6)
    assert chosen == "better"
    assert figures["better"]["contradicted_right"] == figures["worse"]["contradicted_right"] == 6
    assert figures["better"]["macro_f1"]["d"] > figures["worse"]["macro_f1"]["d"]
