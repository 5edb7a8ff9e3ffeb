import csv
import gzip
import io
import json
import random

from attest_training.pretrain_pairs import FEVER_FILES, build, detokenise, fever, read, write

ROWS = [
    ("1", "VERIFIABLE", "SUPPORTS", "Aspirin lowers the risk of stroke.", ["Aspirin -LRB- a salicylate -RRB- lowers stroke risk in adults ."]),
    ("2", "VERIFIABLE", "REFUTES", "Glaciers grow in warm summers.", ["Glaciers retreat in warm summers .", "Their ice melts ."]),
    ("3", "VERIFIABLE", "2", "Coffee improves sleep.", ["Coffee `` disturbs '' sleep in most drinkers ."]),
    ("1", "VERIFIABLE", "SUPPORTS", "A duplicate id is read once.", ["Never read ."]),
    ("7", "VERIFIABLE", "SUPPORTS", "Aspirin lowers the risk of stroke.", ["Aspirin -LRB- a salicylate -RRB- lowers stroke risk in adults ."]),
    ("4", "VERIFIABLE", "SUPPORTS", "Evidence that was lost.", []),
    ("5", "NOT VERIFIABLE", "NOT ENOUGH INFO", "Glaciers are studied by aspiring painters.", []),
    ("6", "NOT VERIFIABLE", "0", "Zebras hum.", []),
]


def _fever_raw(folder):
    (folder / "raw").mkdir(parents=True)
    text = io.StringIO()
    out = csv.writer(text)
    out.writerow(["id", "verifiable", "label", "claim", "evidence"])
    for row_id, verifiable, label, claim, evidence in ROWS:
        out.writerow([row_id, verifiable, label, claim, repr(evidence) if evidence else ""])
    # The rows in the first file, the others with their header alone.
    for index, name in enumerate(FEVER_FILES):
        with gzip.open(folder / "raw" / name, "wt", encoding="utf-8", newline="") as handle:
            handle.write(text.getvalue() if index == 0 else text.getvalue().splitlines()[0] + "\n")


def _data(root):
    _fever_raw(root / "nli-pretrain" / "fever")
    (root / "nli-pretrain" / "snli").mkdir(parents=True)
    with gzip.open(root / "nli-pretrain" / "snli" / "pairs.jsonl.gz", "wt", encoding="utf-8") as handle:
        for i in range(30):
            label = ("entailment", "neutral", "contradiction")[i % 3]
            handle.write(json.dumps({"premise": f"A man rides horse {i}.", "hypothesis": f"Someone rides {i}.", "label": label, "source": "snli", "split": "dev"}) + "\n")


def test_fever_premises_are_detokenised_as_the_converted_pairs_are():
    assert detokenise("Aspirin -LRB- a salicylate -RRB- lowers risk , often .") == "Aspirin (a salicylate) lowers risk, often."
    assert detokenise("Coffee `` disturbs '' sleep ; it does n't help .") == 'Coffee " disturbs " sleep; it doesn\'t help.'


def test_gold_fever_claims_keep_their_label_and_an_unverifiable_claim_is_judged_against_the_sentences_bm25_finds(tmp_path):
    _fever_raw(tmp_path)
    pairs = fever(tmp_path, random.Random(1))
    by_claim = {p.hypothesis: p for p in pairs}
    assert by_claim["Aspirin lowers the risk of stroke."].label == "entailment"
    assert by_claim["Aspirin lowers the risk of stroke."].premise == "Aspirin (a salicylate) lowers stroke risk in adults."
    assert by_claim["Glaciers grow in warm summers."].premise == "Glaciers retreat in warm summers. Their ice melts."
    assert by_claim["Coffee improves sleep."].label == "contradiction"
    assert "A duplicate id is read once." not in by_claim and "Evidence that was lost." not in by_claim
    neutral = by_claim["Glaciers are studied by aspiring painters."]
    assert neutral.label == "neutral" and neutral.source == "fever-nei"
    # Gold premises have one or two sentences; the retrieved one starts with the sentence sharing the claim's rarest word.
    assert neutral.premise in ("Glaciers retreat in warm summers.", "Glaciers retreat in warm summers. Their ice melts.")
    assert "Zebras hum." not in by_claim, "a claim sharing no word with the pool has no premise to be judged against"


def test_the_order_is_the_seeds_and_a_sample_is_the_start_of_the_full_order(tmp_path):
    _data(tmp_path)
    full = build(tmp_path, ["fever", "snli"], seed=5)
    assert len(full) == 30 + 4 and len(set(full)) == len(full) and {p.label for p in full} == {"entailment", "neutral", "contradiction"}
    assert build(tmp_path, ["fever", "snli"], seed=5) == full
    assert build(tmp_path, ["fever", "snli"], seed=5, max_pairs=10) == full[:10]
    assert build(tmp_path, ["fever", "snli"], seed=6) != full


def test_written_pairs_read_back_the_same(tmp_path):
    _data(tmp_path)
    pairs = build(tmp_path, ["snli"], seed=1)
    write(pairs, tmp_path / "out" / "stage1.jsonl.gz")
    assert read(tmp_path / "out" / "stage1.jsonl.gz") == pairs
