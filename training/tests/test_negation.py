from attest_training.negation import negated
from attest_training.pairs import Corpus, Pair, augmented


def test_a_claim_in_the_present_tense_is_denied_with_does_not():
    assert negated("Active Ly49Q induces neutrophil polarization.") == "Active Ly49Q does not induce neutrophil polarization."


def test_a_claim_with_an_auxiliary_takes_not_after_it():
    assert negated("Suboptimal nutrition is a leading cause of premature death.") == "Suboptimal nutrition is not a leading cause of premature death."
    assert negated("Encephalopathy has occurred during hospitalisation.") == "Encephalopathy has not occurred during hospitalisation."


def test_a_direction_is_turned_round_before_anything_is_denied():
    assert negated("Statins are known to reduce mortality.") == "Statins are known to increase mortality."
    assert negated("Higher doses shorten recovery.") == "Lower doses shorten recovery."


def test_a_denied_claim_loses_its_denial():
    assert negated("Aspirin does not lower stroke risk.") == "Aspirin does lower stroke risk."
    assert negated("Masks cannot stop spread.") == "Masks can stop spread."


def test_a_claim_no_rule_fits_is_left_alone_rather_than_garbled():
    assert negated("Children have the potential to become seriously ill.") is None
    # "has" as a main verb takes no "not": "has not a role" is not English.
    assert negated("TRIM5 has a role in immunity.") is None
    # A verb form at the start is more likely a noun.
    assert negated("Causes of death in 2010 in children.") is None


def test_negated_claims_join_the_supported_pairs_as_contradictions_and_leave_the_rest_as_they_were():
    sentences = tuple(f"Sentence {i} about statins and mortality." for i in range(6))
    pairs = [Pair("x", f"Statins reduce mortality by {n}%.", sentences, "entailment" if n % 2 else "contradiction", (4,)) for n in range(40)]
    corpus = Corpus([sentences, ("Unrelated text about statins.", "More of it.")])
    plain = augmented(pairs, {"x": corpus}, seed=3)
    with_negated = augmented(pairs, {"x": corpus}, seed=3, negated_rate=1.0)
    added = [p for p in with_negated if p.kind == "negated"]
    assert [p for p in with_negated if p.kind != "negated"] == plain
    supported = [p for p in plain if p.label == "entailment"]
    assert len(added) == len(supported)
    assert all(p.label == "contradiction" and p.claim.startswith("Statins increase mortality") for p in added)
