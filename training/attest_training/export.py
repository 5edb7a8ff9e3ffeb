"""ONNX export of the trained cross-encoder, its int8 quantisation, and running the result."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import torch
from onnxruntime.quantization import QuantType, quant_pre_process, quantize_dynamic

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
PRECISE_INT8 = "session.x64quantprecision"


class _Logits(torch.nn.Module):
    """The classifier with positional inputs and the logits alone, the graph's one output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def export_int8(model, folder: Path, workdir: Path) -> Path:
    """Writes `folder/model_quantized.onnx` (dynamic int8 weights) by way of an fp32 export in `workdir`."""
    folder.mkdir(parents=True, exist_ok=True)
    workdir.mkdir(parents=True, exist_ok=True)
    fp32, prepared, int8 = workdir / "model.onnx", workdir / "model.prepared.onnx", folder / "model_quantized.onnx"
    example = tuple(torch.ones((1, 8), dtype=torch.long) for _ in INPUTS)
    axes = {name: {0: "batch", 1: "sequence"} for name in INPUTS} | {"logits": {0: "batch"}}
    torch.onnx.export(
        _Logits(model.eval()), example, str(fp32), input_names=list(INPUTS), output_names=["logits"],
        dynamic_axes=axes, opset_version=17, do_constant_folding=True, dynamo=False,
    )
    quant_pre_process(str(fp32), str(prepared), skip_symbolic_shape=True)
    # Per-channel scales: with one scale per tensor, 6-9% of dev labels changed from the trained model's.
    quantize_dynamic(str(prepared), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    return int8


def int8_session(graph: Path, threads: int = 0) -> onnxruntime.InferenceSession:
    """
    A session over an int8 graph as the extension runs it (src/core/models/session.ts): exact int8
    products on x86 CPUs without VNNI, whose 16-bit pair sums otherwise saturate, so that what is
    measured and chosen here holds on every CPU.
    """
    options = onnxruntime.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.add_session_config_entry(PRECISE_INT8, "1")
    return onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])


def onnx_probabilities(graph: Path, inputs, threads: int = 0) -> np.ndarray:
    session = int8_session(graph, threads)
    # One pair at a time, as the extension runs a quantized graph: its activations are scaled by their
    # range over the batch, padding included, so a batch would change each pair's probabilities.
    out = []
    for ids, types, _ in inputs:
        feed = {
            "input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
            "token_type_ids": np.array([types], dtype=np.int64),
        }
        logits = session.run(["logits"], feed)[0]
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        out.append(exp / exp.sum(axis=1, keepdims=True))
    return np.concatenate(out)
