import json

import numpy as np
import torch

from attest_training import twostage
from attest_training.debias import ClaimCorrected, claim_pieces, claim_only_probabilities, cross_fitted, fit_claim_only, product_of_experts_loss
from attest_training.export import onnx_probabilities
from attest_training.metrics import CONTRADICTION, ENTAILMENT, NEUTRAL
from attest_training.pretrain_pairs import PretrainPair, write
from tests.tiny import tiny_base, tiny_data
from transformers import BertConfig
from transformers.modeling_outputs import SequenceClassifierOutput

NOT, OTHER_WORDS = 7, range(100, 400)


def _pairs_of(claims: list[list[int]], labels: list[int], premises: int = 3) -> tuple[list[list[int]], list[int]]:
    """Each claim against several premises, as the scientific pairs are: the claim's pieces repeated, its label with them."""
    return [c for c in claims for _ in range(premises)], [label for label in labels for _ in range(premises)]


def test_the_claim_is_the_second_segment_without_its_separator():
    # [CLS] premise [SEP] claim [SEP], the claim's tokens typed 1.
    inputs = [([2, 10, 11, 3, 20, 21, 22, 3], [0, 0, 0, 0, 1, 1, 1, 1], 0), ([2, 10, 3, 30, 3], [0, 0, 0, 1, 1], 1)]
    assert claim_pieces(inputs) == [[20, 21, 22], [30]]


def test_a_word_that_gives_the_label_away_is_learnt_from_other_claims():
    rng = np.random.default_rng(0)
    negated = rng.uniform(size=300) < 0.3
    claims = [[NOT, *rng.choice(OTHER_WORDS, 1)] if n else list(rng.choice(OTHER_WORDS, 2)) for n in negated]
    labels = [CONTRADICTION if n else int(rng.choice([ENTAILMENT, NEUTRAL])) for n in negated]
    pieces, per_pair = _pairs_of(claims, labels)
    probabilities = cross_fitted(pieces, per_pair, vocabulary=400)
    said_not = np.repeat(negated, 3)
    assert probabilities[said_not, CONTRADICTION].mean() > 0.6 > 0.2 > probabilities[~said_not, CONTRADICTION].mean()


def test_a_pair_is_judged_by_a_model_that_never_saw_its_claim_against_another_premise():
    rng = np.random.default_rng(1)
    # Each claim its own word and a label at random: nothing to learn but the claims themselves.
    claims = [[100 + i] for i in range(240)]
    labels = list(rng.integers(0, 3, 240))
    pieces, per_pair = _pairs_of(claims, labels)
    remembered = claim_only_probabilities(fit_claim_only(pieces, per_pair, vocabulary=400), pieces).argmax(1)
    held = cross_fitted(pieces, per_pair, vocabulary=400).argmax(1)
    gold = np.array(per_pair)
    # A model fitted on the claim remembers its label; folds by claim leave each pair's claim unseen, so chance.
    assert (remembered == gold).mean() > 0.95
    assert (held == gold).mean() < 0.45


def test_the_product_of_experts_pays_the_verifier_less_for_what_the_claim_alone_tells():
    logits = torch.zeros((2, 3), requires_grad=True)
    labels = torch.tensor([CONTRADICTION, CONTRADICTION])
    weights = torch.ones(3)
    # The claim alone says contradiction for the first pair (a "not"), nothing for the second.
    bias = torch.log(torch.tensor([[0.9, 0.05, 0.05], [1 / 3, 1 / 3, 1 / 3]]))
    product_of_experts_loss(logits, bias, labels, weights).backward()
    told, untold = logits.grad.norm(dim=1)
    assert told < untold / 3
    # With a claim-only model that knows nothing, it is the verifier's own balanced cross-entropy.
    plain = torch.nn.functional.cross_entropy(logits.detach(), labels, weight=weights)
    assert torch.isclose(product_of_experts_loss(logits.detach(), bias[[1, 1]], labels, weights), plain)


def test_both_stages_train_against_the_claim_alone_and_say_what_it_scored(tmp_path):
    torch.set_num_threads(1)
    tiny_data(tmp_path / "data")
    base = tiny_base(tmp_path / "base")
    write([PretrainPair("Aspirin lowers the risk of stroke.", "Aspirin does not lower stroke risk.", "contradiction", "snli"),
           PretrainPair("Aspirin lowers the risk of stroke.", "Aspirin lowers stroke risk.", "entailment", "snli")] * 4, tmp_path / "stage1.jsonl.gz")
    work = tmp_path / "run"
    common = ["--work", str(work), "--base", str(base), "--batch-size", "4", "--threads", "1", "--claim-only-expert"]
    twostage.main(["prepare", *common[:4], "--data", str(tmp_path / "data"), "--datasets", "scifact", "--stage1-pairs", str(tmp_path / "stage1.jsonl.gz"),
                   "--stage1-length", "32", "--stage2-length", "48"])
    twostage.main(["stage1", *common, "--curve-points"])
    twostage.main(["stage2", *common, "--init", str(work / "stage1" / "after-all"), "--name", "debiased", "--epochs", "1"])
    for done in (work / "stage1" / "done.json", work / "stage2" / "debiased" / "done.json"):
        assert set(json.loads(done.read_text())["claim_only_expert"]["dev_macro_f1"]) == {"scifact"}
    assert twostage.best_stage2(work) == work / "stage2" / "debiased" / "best"
    twostage.main(["export", *common[:4], "--threads", "1", "--out", str(tmp_path / "model"), "--min-agreement", "0"])
    card = (tmp_path / "model" / "README.md").read_text()
    # Both stages say so in the card, each with what the claim alone scored.
    assert card.count("as a product of experts with a claim-only model (logistic regression on the claim's word pieces, cross-fitted in 5 folds by claim)") == 2


class _Unsure(torch.nn.Module):
    """A verifier that reads nothing and leans to contradiction a little, whatever the pair."""

    config = BertConfig(vocab_size=400)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return SequenceClassifierOutput(logits=torch.tensor([[0.4, 0.0, 0.0]]).expand(len(input_ids), 3))


def test_the_claim_alone_is_taken_out_at_judging_time_and_only_the_claim_counts():
    rng = np.random.default_rng(0)
    negated = rng.uniform(size=300) < 0.3
    claims = [[NOT, *rng.choice(OTHER_WORDS, 1)] if n else list(rng.choice(OTHER_WORDS, 2)) for n in negated]
    labels = [CONTRADICTION if n else int(rng.choice([ENTAILMENT, NEUTRAL])) for n in negated]
    claim_only = fit_claim_only(claims, labels, vocabulary=400)
    corrected = ClaimCorrected(_Unsure(), claim_only, weight=0.5, separator_id=3)
    # [CLS] premise [SEP] claim [SEP] and padding; the premise says "not" too, and it must not count.
    ids = torch.tensor([[2, NOT, 3, NOT, 150, 3, 0], [2, NOT, 3, 150, 160, 3, 0]])
    types = torch.tensor([[0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 1, 1, 1, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 0]])
    probabilities = torch.softmax(corrected(input_ids=ids, attention_mask=mask, token_type_ids=types).logits, dim=-1).numpy()
    alone = claim_only_probabilities(claim_only, [[NOT, 150], [150, 160]])
    expected = np.log(torch.softmax(torch.tensor([0.4, 0.0, 0.0]), dim=-1).numpy()) - 0.5 * np.log(alone)
    expected = np.exp(expected) / np.exp(expected).sum(axis=1, keepdims=True)
    assert np.allclose(probabilities, expected, atol=1e-5)
    # The verifier alone leans to contradiction for both; with the claim's "not" taken out, the negated claim leans less.
    assert probabilities[0, CONTRADICTION] < probabilities[1, CONTRADICTION]


def test_the_export_builds_the_correction_into_the_graph_and_the_card_says_so(tmp_path):
    torch.set_num_threads(1)
    tiny_data(tmp_path / "data")
    base = tiny_base(tmp_path / "base")
    work = tmp_path / "run"
    common = ["--work", str(work), "--base", str(base), "--batch-size", "4", "--threads", "1"]
    write([PretrainPair("Aspirin lowers the risk of stroke.", "Aspirin lowers stroke risk.", "entailment", "snli")] * 4, tmp_path / "stage1.jsonl.gz")
    twostage.main(["prepare", *common[:4], "--data", str(tmp_path / "data"), "--datasets", "scifact", "--stage1-pairs", str(tmp_path / "stage1.jsonl.gz"),
                   "--stage1-length", "32", "--stage2-length", "48"])
    twostage.main(["stage1", *common, "--curve-points"])
    twostage.main(["stage2", *common, "--init", str(work / "stage1" / "after-all"), "--name", "plain", "--epochs", "1"])
    for name, weight in (("plain", "0"), ("corrected", "2")):
        twostage.main(["export", *common[:4], "--threads", "1", "--out", str(tmp_path / name), "--min-agreement", "0", "--claim-only-correction", weight])
    _, dev_inputs = twostage.read_dev(work)
    plain, corrected = (onnx_probabilities(tmp_path / name / "onnx" / "model_quantized.onnx", dev_inputs["scifact"]) for name in ("plain", "corrected"))
    # The graph itself judges differently; the tokenizer and thresholds the extension reads come with it.
    assert not np.allclose(plain, corrected, atol=0.01)
    metrics = json.loads((tmp_path / "corrected" / "metrics.json").read_text())
    assert metrics["claim_only_correction"]["weight"] == 2.0 and set(metrics["claim_only_correction"]["dev_macro_f1"]) == {"scifact"}
    assert "claim_only_correction" not in json.loads((tmp_path / "plain" / "metrics.json").read_text())
    assert "less 2.0 times the claim-only model's" in (tmp_path / "corrected" / "README.md").read_text()
