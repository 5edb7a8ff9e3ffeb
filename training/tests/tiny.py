"""Tiny data in the shared data folder's layout and a tiny base model in all-MiniLM-L6-v2's folder's shape: the training steps run on them in seconds."""
import json
from pathlib import Path

import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

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


def tiny_data(root: Path) -> Path:
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


def tiny_base(folder: Path, layers: int = 2, width: int = 32) -> Path:
    """A BERT of `layers` layers and `width` (two and 32 by default) with a word-level tokenizer over the data's words: the shape of all-MiniLM-L6-v2's folder."""
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
    config = BertConfig(vocab_size=len(vocab), hidden_size=width, num_hidden_layers=layers, num_attention_heads=2, intermediate_size=2 * width, max_position_embeddings=64)
    BertModel(config).save_pretrained(str(folder))
    return folder
