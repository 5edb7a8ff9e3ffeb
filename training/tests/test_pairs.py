import json
import random
from pathlib import Path

from attest_training.pairs import Corpus, Pair, augmented, by_dataset, clean_claim, other_sentences, read_pairs, relevance_order, select_sentences, write_pairs


def test_citation_integrity_markers_leave_the_claim_as_the_extension_sees_it():
    assert clean_claim("Recent studies have uncovered lncRNAs as targets of p53 [<|multi_cit|>,7].") == "Recent studies have uncovered lncRNAs as targets of p53."
    assert clean_claim("miR-211 is repressed <|cit|> in colon cancer.") == "miR-211 is repressed in colon cancer."
    assert clean_claim("Cirrhosis raises mortality [<|other_cit|>] in COVID-19 (<|cit|>).") == "Cirrhosis raises mortality in COVID-19."


def test_the_extension_ranks_an_abstract_as_training_does():
    """test/fixtures/premise-order.json is what the extension's premiseOrder is tested against."""
    for case in json.loads((Path(__file__).parents[2] / "test" / "fixtures" / "premise-order.json").read_text(encoding="utf-8")):
        assert relevance_order(case["claim"], case["sentences"]) == case["order"], case["claim"]


def test_a_long_premise_keeps_its_most_relevant_sentences_in_their_order():
    sentences = ["Background on cohorts.", "Methods were standard.", "Statins reduced mortality in the trial.", "Funding was public."]
    order = relevance_order("Statins reduce mortality.", sentences)
    assert order[0] == 2
    kept = select_sentences(sentences, [0, 2, 1, 3], budget=9, count_tokens=lambda s: len(s.split()))
    assert kept == ["Background on cohorts.", "Statins reduced mortality in the trial."]


def test_a_premise_that_fits_is_given_whole():
    sentences = ["One two.", "Three four."]
    assert select_sentences(sentences, [1, 0], budget=10, count_tokens=lambda s: len(s.split())) == sentences


def test_a_premise_is_never_empty_even_when_its_best_sentence_is_too_long():
    assert select_sentences(["a b c d e f"], [0], budget=2, count_tokens=lambda s: len(s.split())) == ["a b c d e f"]


def test_neutral_windows_never_hold_evidence():
    pair = Pair("x", "claim", tuple(f"s{i}" for i in range(8)), "entailment", (2, 3))
    rng = random.Random(1)
    for _ in range(50):
        window = other_sentences(pair, rng)
        assert window is not None and len(window) == 2 and not {"s2", "s3"} & set(window)


def test_derived_pairs_keep_labels_where_the_evidence_is_and_are_neutral_where_it_is_not():
    sentences = tuple(f"Sentence {i} about statins and mortality." for i in range(6))
    pairs = [Pair("x", f"Statins reduce mortality by {n}%.", sentences, "contradiction", (4,)) for n in range(40)]
    corpus = Corpus([sentences, ("Unrelated text about statins.", "More of it.")])
    derived = augmented(pairs, {"x": corpus}, seed=3)
    for pair in derived:
        if pair.kind == "evidence-only":
            assert pair.label == "contradiction" and pair.sentences == (sentences[4],)
        elif pair.kind != "cited":
            assert pair.label == "neutral" and sentences[4] not in pair.sentences
    assert {p.kind for p in derived} >= {"cited", "evidence-only", "other-sentences", "evidence-removed", "near-uncited"}


def test_pairs_written_are_read_back_as_they_were_with_their_counts(tmp_path):
    train = [
        Pair("scifact", "Aspirin lowers stroke risk.", ("Aspirin lowers stroke risk.", "Bleeding rose."), "entailment", (0,)),
        Pair("scifact", "Aspirin lowers stroke risk.", ("Aspirin lowers stroke risk.",), "entailment", (0,), "evidence-only"),
        Pair("check-covid", "Masks — « FFP2 » — work.", ("Les masques marchent.",), "neutral", (), "near-uncited"),
    ]
    dev = [Pair("check-covid", "Masks work.", ("Masks reduced spread.",), "contradiction", (0,))]
    record = write_pairs(tmp_path / "pairs", {"train": train, "dev": dev}, {"seed": 13})
    splits, read = read_pairs(tmp_path / "pairs")
    assert splits == {"train": train, "dev": dev} and read == record
    assert read["pairs"] == {"train": 3, "dev": 1}
    assert read["counts"]["train"] == {"scifact": {"cited/entailment": 1, "evidence-only/entailment": 1}, "check-covid": {"near-uncited/neutral": 1}}
    assert not (tmp_path / "pairs.partial").exists()


def test_pairs_are_grouped_by_dataset_in_the_order_they_come():
    pairs = [Pair(name, "c", ("s",), "neutral") for name in ("check-covid", "scifact", "check-covid")]
    assert list(by_dataset(pairs)) == ["check-covid", "scifact"] and len(by_dataset(pairs)["check-covid"]) == 2
