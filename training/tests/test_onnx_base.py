import json

import numpy as np
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import BertConfig, BertModel

from attest_training.onnx_base import HEADS, convert, weights
import onnx


class _Hidden(BertModel):
    """Hidden states out, as a feature-extraction export gives them; its weights keep BertModel's names."""

    def forward(self, input_ids, attention_mask, token_type_ids):
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state


def _exported_encoder(folder):
    """A small BERT exported as Xenova's encoders were (TorchScript exporter, hidden states out), with its tokenizer."""
    torch.manual_seed(3)
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, **{word: 4 + i for i, word in enumerate("vitamin d supplementation did not reduce the incidence of acute respiratory infection aspirin lowers risk stroke".split())}}
    model = _Hidden(BertConfig(vocab_size=len(vocab), hidden_size=48, num_hidden_layers=2, num_attention_heads=HEADS, intermediate_size=96, max_position_embeddings=64), add_pooling_layer=False).eval()
    # Trained weights all differ; freshly initialised biases are all zero, and the exporter would keep one copy.
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    (folder / "onnx").mkdir(parents=True)
    example = tuple(torch.ones(1, 5, dtype=torch.long) for _ in range(3))
    axes = {name: {0: "batch", 1: "sequence"} for name in ("input_ids", "attention_mask", "token_type_ids")}
    torch.onnx.export(model, example, str(folder / "onnx" / "model.onnx"), input_names=list(axes), output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({"_name_or_path": "tiny-bert", "model_type": "bert", "pad_token_id": 0}))
    return model


def test_every_weight_is_named_as_the_model_named_it(tmp_path):
    model = _exported_encoder(tmp_path / "encoder")
    named = weights(onnx.load(str(tmp_path / "encoder" / "onnx" / "model.onnx")).graph)
    state = {name: value.numpy() for name, value in model.state_dict().items() if not name.endswith("position_ids")}
    assert set(state) <= set(named)
    for name, value in state.items():
        assert np.array_equal(named[name], value), name


def test_the_written_folder_gives_the_graphs_hidden_states(tmp_path):
    _exported_encoder(tmp_path / "encoder")
    difference = convert(tmp_path / "encoder", tmp_path / "base")
    assert difference < 1e-4
    again = BertModel.from_pretrained(str(tmp_path / "base"))
    assert again.config.num_hidden_layers == 2 and again.config.hidden_size == 48
    assert json.loads((tmp_path / "base" / "base.json").read_text())["name"] == "tiny-bert"
