import random

import pytest

from attest_training.rerank import bm25_rankings, citation_integrity_groups, keep_layers, mixed_order, ndcg_at_10, read_candidates, split, training_groups


def test_the_held_out_claims_are_a_fifth_chosen_by_the_seed_and_never_fitted():
    claims = [str(i) for i in range(100)]
    fit, held_out = split(claims, seed=13)
    assert len(held_out) == 20 and not set(fit) & set(held_out) and set(fit) | set(held_out) == set(claims)
    assert split(claims, seed=13) == (fit, held_out)
    assert split(claims, seed=14)[1] != held_out


def test_each_judged_paper_leads_a_group_of_the_claims_best_ranked_wrong_ones():
    ranking = [(f"d{i}", 10.0 - i) for i in range(20)]
    groups = training_groups(["c"], {"c": ranking}, {"c": {"d3": 1, "gone": 1}}, size=6, rng=random.Random(1))
    assert sorted(docs[0] for _, docs in groups) == ["d3", "gone"], "a judged paper the ranking missed still leads a group"
    for claim, docs in groups:
        assert claim == "c" and len(docs) == 6 and len(set(docs)) == 6
        assert docs[1:3] == ["d0", "d1"] and "d3" not in docs[1:]
    assert training_groups(["c"], {"c": ranking[:4]}, {"c": {"d3": 1}}, size=6, rng=random.Random(1)) == [], "too few wrong papers for a group"


def test_the_mix_reorders_only_the_reranked_head_and_weight_zero_keeps_the_ranking():
    ranking = [("a", 3.0), ("b", 2.0), ("c", 1.0), ("tail", 0.5)]
    assert mixed_order(ranking, [0.0, 1.0, 5.0], 0.0) == ["a", "b", "c", "tail"]
    assert mixed_order(ranking, [0.0, 1.0, 5.0], 1.0) == ["c", "b", "a", "tail"]


def test_ndcg_counts_only_the_first_ten_and_is_one_when_the_judged_paper_leads():
    assert ndcg_at_10(["x", "y"], {"x": 1}) == 1.0
    assert ndcg_at_10([f"n{i}" for i in range(10)] + ["x"], {"x": 1}) == 0.0
    assert 0 < ndcg_at_10(["n", "x"], {"x": 1}) < 1


def test_candidates_of_a_claim_that_is_not_a_training_claim_are_refused(tmp_path):
    file = tmp_path / "top50.jsonl"
    file.write_text('{"query_id": "7", "results": [{"id": "d1", "score": 1.5, "sentence": null}]}\n')
    assert read_candidates(file, {"7"}) == {"7": [("d1", 1.5)]}
    with pytest.raises(SystemExit, match="not a training claim"):
        read_candidates(file, {"8"})


def test_a_shallower_reranker_keeps_the_bases_first_layers_and_reloads_as_such(tmp_path):
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=4, num_attention_heads=2, intermediate_size=32, num_labels=1)
    base = BertForSequenceClassification(config).eval()
    first = [layer.attention.self.query.weight.clone() for layer in base.bert.encoder.layer[:2]]
    shallow = keep_layers(base, 2)
    assert len(shallow.bert.encoder.layer) == 2 and shallow.config.num_hidden_layers == 2
    assert all(torch.equal(a, layer.attention.self.query.weight) for a, layer in zip(first, shallow.bert.encoder.layer))
    shallow.save_pretrained(tmp_path)
    ids = torch.tensor([[1, 5, 7, 2]])
    again = BertForSequenceClassification.from_pretrained(tmp_path).eval()
    assert torch.allclose(again(input_ids=ids).logits, shallow(input_ids=ids).logits)
    assert keep_layers(again, None) is again
    with pytest.raises(SystemExit, match="has 2 layers"):
        keep_layers(again, 3)


def test_citation_integrity_gives_each_training_claim_a_group_of_its_cited_passages_first_and_never_reads_dev(tmp_path):
    import json

    topics = ["aspirin stroke", "glacier retreat", "coffee sleep", "statin liver", "protein folding"]
    claims = [{"id": i, "claim": f"Claim about {t} [<|multi_cit|>,7].", "cited_doc_ids": [100 + i], "evidence": {}} for i, t in enumerate(topics)]
    (tmp_path / "claims_train.jsonl").write_text("\n".join(json.dumps(c) for c in claims) + "\n")
    (tmp_path / "claims_dev.jsonl").write_text(json.dumps({"id": 99, "claim": "aspirin stroke dev", "cited_doc_ids": [199], "evidence": {}}) + "\n")
    docs = [{"doc_id": 100 + i, "title": "", "abstract": [f"Passage on {t}.", "More."]} for i, t in enumerate(topics)]
    docs.append({"doc_id": 199, "title": "", "abstract": ["A dev passage on aspirin stroke."]})
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    made = citation_integrity_groups(tmp_path, size=3, limit=None, rng=random.Random(1))
    assert "ci:199" not in made.passages and all("dev" not in text for text in made.claims.values())
    assert made.claims["ci:claim:0"] == "Claim about aspirin stroke.", "the citation marker is taken out"
    assert len(made.groups) == 5
    for claim, docs in made.groups:
        assert docs[0] == "ci:" + str(100 + int(claim.split(":")[-1])) and len(set(docs)) == 3
    assert len(citation_integrity_groups(tmp_path, size=3, limit=2, rng=random.Random(1)).groups) == 2


def test_bm25_ranks_the_document_that_shares_the_rarer_words_first():
    docs = {"a": "aspirin lowers stroke risk", "b": "glaciers retreat in warm summers", "c": "stroke care in hospitals and aspirin dosing for stroke"}
    ranked = bm25_rankings({"q": "aspirin stroke"}, docs)["q"]
    assert ranked[-1] == "b" and set(ranked[:2]) == {"a", "c"}
