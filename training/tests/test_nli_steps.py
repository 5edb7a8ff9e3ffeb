import json
from pathlib import Path

import numpy as np
import pytest
import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

from attest_training import nli
from attest_training.pairs import kinds, read_pairs

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "attest-nli"
# One thread: on shared cores, more make a tiny model slower, and the arithmetic the same in every run.
TINY = ["--max-length", "48", "--epochs", "1", "--batch-size", "4", "--threads", "1"]

ABSTRACTS = {
    1: ["Vitamin D supplementation did not reduce acute respiratory infection.", "The trial enrolled adults.", "Funding was public.", "Follow up lasted a year."],
    2: ["Aspirin lowers the risk of stroke in adults.", "Bleeding was more common.", "The cohort was large.", "Doses were low."],
    3: ["Statins reduce mortality after infarction.", "Cholesterol fell in every arm.", "Adherence was high.", "Outcomes were blinded."],
    4: ["Coffee disturbs sleep in most drinkers.", "Caffeine was measured.", "Sleep was recorded at home.", "Effects lasted hours."],
}
CLAIMS = [
    ("Vitamin D supplementation reduces respiratory infection.", 1, "CONTRADICT", [0]),
    ("Aspirin lowers stroke risk.", 2, "SUPPORT", [0]),
    ("Statins reduce mortality.", 3, "SUPPORT", [0]),
    ("Coffee improves sleep.", 4, "CONTRADICT", [0]),
    ("Aspirin causes no bleeding.", 2, "CONTRADICT", [1]),
    ("Statins lower cholesterol.", 3, None, []),
]


def _data(root: Path) -> Path:
    """SciFact's layout with a few claims, and the other datasets' corpora empty."""
    scifact = root / "scifact"
    scifact.mkdir(parents=True)
    (scifact / "corpus.jsonl").write_text("".join(json.dumps({"doc_id": i, "abstract": a}) + "\n" for i, a in ABSTRACTS.items()))
    for split, claims in (("train", CLAIMS * 2), ("dev", CLAIMS)):
        rows = [{"id": n, "claim": c, "cited_doc_ids": [d], "evidence": {str(d): [{"label": label, "sentences": s}]} if label else {}} for n, (c, d, label, s) in enumerate(claims)]
        (scifact / f"claims_{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for corpus in ("citation-integrity/processed/corpus.jsonl", "check-covid/corpus.jsonl"):
        (root / corpus).parent.mkdir(parents=True)
        (root / corpus).write_text("")
    return root


def _base(folder: Path) -> Path:
    """A two-layer BERT of width 32 with a word-level tokenizer over the data's words: the shape of all-MiniLM-L6-v2's folder."""
    words = sorted({w.strip(".,").lower() for texts in ABSTRACTS.values() for s in texts for w in s.split()} | {w.strip(".,").lower() for c, *_ in CLAIMS for w in c.split()})
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, ".": 4, **{w: 5 + i for i, w in enumerate(words)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", model_input_names=["input_ids", "token_type_ids", "attention_mask"]
    ).save_pretrained(str(folder))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def stepwise(tmp_path_factory):
    """The four steps run one after the other, each from the files of the one before."""
    root = tmp_path_factory.mktemp("nli")
    data, base, work = _data(root / "data"), _base(root / "base"), root / "work"
    torch.set_num_threads(1)
    nli.main(["pairs", "--data", str(data), "--datasets", "scifact", "--out", str(work / "pairs")])
    nli.main(["train", "--pairs", str(work / "pairs"), "--out", str(work / "weights"), "--base", str(base), *TINY])
    nli.main(["export", "--weights", str(work / "weights"), "--pairs", str(work / "pairs"), "--out", str(work / "graph"), "--min-agreement", "0", "--threads", "1"])
    nli.main(["evaluate", "--model", str(work / "graph"), "--pairs", str(work / "pairs"), "--out", str(root / "attest-nli")])
    return root


def test_the_steps_write_the_folder_the_extension_reads(stepwise):
    folder = stepwise / "attest-nli"
    assert sorted(p.name for p in folder.rglob("*")) == sorted(p.name for p in SHIPPED.rglob("*"))
    metrics, shipped = (json.loads((f / "metrics.json").read_text()) for f in (folder, SHIPPED))
    assert list(metrics) == list(shipped)
    # The shipped model was trained before --balance-labels was an option.
    assert [key for key in metrics["training"] if key != "balance_labels"] == list(shipped["training"])
    made = json.loads((stepwise / "work" / "pairs" / "pairs.json").read_text())
    assert metrics["training"]["pairs"] == made["pairs"]["train"] and metrics["training"]["kinds"] == made["counts"]["train"]["scifact"]
    assert metrics["dev_int8_thresholds"]["scifact"]["pairs"] == made["pairs"]["dev"] == len(CLAIMS)
    assert [epoch["epoch"] for epoch in metrics["history"]] == [1] and metrics["training"]["max_length"] == 48
    assert json.loads((folder / "attest.json").read_text())["premise"] == "abstract"
    assert f"{metrics['model']}: Attest's claim verifier" in (folder / "README.md").read_text()
    assert (stepwise / "attest-nli.dev-probabilities.npz").exists()


def test_train_reads_back_the_pairs_file_and_trains_on_the_first_n_pairs_with_limit(stepwise):
    work = stepwise / "work"
    nli.main(["train", "--pairs", str(work / "pairs"), "--out", str(work / "few"), "--base", str(stepwise / "base"), "--limit", "5", *TINY])
    first = read_pairs(work / "pairs")[0]["train"][:5]
    data = json.loads((work / "few" / "training.json").read_text())["data"]
    assert data["pairs"] == 5 and data["kinds"] == kinds(first)


def test_the_one_command_writes_what_the_four_steps_write(stepwise, tmp_path):
    nli.main(["--data", str(stepwise / "data"), "--datasets", "scifact", "--base", str(stepwise / "base"), "--out", str(tmp_path / "attest-nli"), "--min-agreement", "0", *TINY])
    whole, steps = (json.loads((folder / "attest-nli" / "metrics.json").read_text()) for folder in (tmp_path, stepwise))
    for metrics in (whole, steps):
        for key in ("seconds", "commit", "exported_at", "export_only"):
            metrics["training"].pop(key)
        for epoch in metrics["history"]:
            epoch.pop("seconds")
    assert whole == steps
    assert (tmp_path / "attest-nli" / "attest.json").read_text() == (stepwise / "attest-nli" / "attest.json").read_text()
    probabilities = [np.load(folder / "attest-nli.dev-probabilities.npz")["scifact"] for folder in (tmp_path, stepwise)]
    assert np.array_equal(*probabilities)


STEP_COMMANDS = {
    "pairs_step": ["pairs", "--data", "D", "--out", "P"],
    "train_step": ["train", "--pairs", "P", "--out", "W"],
    "export_step": ["export", "--weights", "W", "--pairs", "P", "--out", "G"],
    "evaluate_step": ["evaluate", "--model", "G", "--pairs", "P", "--out", "O"],
}


def _run_recorded(monkeypatch, argv):
    """The one command with each step replaced by a record of what it was handed."""
    calls = []
    for name in STEP_COMMANDS:
        monkeypatch.setattr(nli, name, lambda args, name=name: calls.append((name, args)))
    nli.main(argv)
    return calls


def test_the_one_command_runs_the_four_steps_in_order_each_on_what_the_one_before_wrote(monkeypatch, tmp_path):
    calls = _run_recorded(monkeypatch, ["--data", "D", "--out", "O", "--keep-weights", str(tmp_path / "K"), "--limit", "50", "--epochs", "2", "--min-agreement", "0.9"])
    assert [name for name, _ in calls] == list(STEP_COMMANDS)
    pairs, train, export, evaluate = (args for _, args in calls)
    assert train.pairs == export.pairs == evaluate.pairs == pairs.out
    assert train.out == export.weights == tmp_path / "K"
    assert evaluate.model == export.out and evaluate.out == "O"
    assert (pairs.limit, train.limit, train.epochs, export.min_agreement, export.export_only) == (50, 0, 2, 0.9, False)
    for name, args in calls:
        assert set(vars(nli.parse_args(STEP_COMMANDS[name]))) <= set(vars(args)), f"{name} is handed every option its own command has"


def test_export_only_exports_the_weights_in_base_without_training(monkeypatch):
    calls = _run_recorded(monkeypatch, ["--data", "D", "--out", "O", "--export-only", "--base", "W"])
    assert [name for name, _ in calls] == ["pairs_step", "export_step", "evaluate_step"]
    assert calls[1][1].weights == Path("W") and calls[1][1].export_only is True


def test_export_only_without_weights_to_export_is_refused():
    with pytest.raises(SystemExit):
        nli.parse_args(["--data", "D", "--out", "O", "--export-only"])


def test_every_option_of_the_one_command_is_still_taken():
    args = nli.parse_args(
        "--data D --out O --cache C --base B --datasets scifact check-covid --max-length 128 --epochs 2 --batch-size 32 --learning-rate 1e-4 --seed 7 "
        "--threads 2 --device cuda --balance-labels --contradiction-precision 0.85 --neutral-precision 0.7 --min-agreement 0.9 --keep-weights K --limit 120".split()
    )
    assert args.step is None and args.datasets == ["scifact", "check-covid"] and args.balance_labels and args.keep_weights == "K" and not args.export_only
    assert (args.max_length, args.epochs, args.batch_size, args.learning_rate, args.seed, args.threads, args.limit) == (128, 2, 32, 1e-4, 7, 2, 120)


def test_each_step_takes_its_own_options_with_the_one_commands_defaults():
    whole = nli.parse_args(["--data", "D", "--out", "O"])
    for name, argv in STEP_COMMANDS.items():
        step = nli.parse_args(argv)
        assert step.step == argv[0]
        assert all(getattr(step, key) == getattr(whole, key) for key in vars(step) if key not in ("step", "out", "pairs", "weights", "model", "export_only", "keep_weights")), name
    assert nli.parse_args(STEP_COMMANDS["export_step"]).export_only is True
    with pytest.raises(SystemExit):
        nli.parse_args(["train", "--out", "W"])
