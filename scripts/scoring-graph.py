#!/usr/bin/env python3
"""Writes src/core/index/scoringGraph.ts: the ONNX graph the dense index searches its vectors with.

  python3 scripts/scoring-graph.py

A MatMul, then a TopK: the index's vectors row by row [n, d] times the query's unit vector [d, 1]
give every paper's cosine, [n, 1], of which TopK keeps the best k, best first, the lower row first
among equal scores (ONNX's TopK since opset 11), as values and rows [k, 1]. The sizes are symbolic,
so one graph serves every encoder and library size. ONNX Runtime runs both on its own threads, with
SIMD kernels: at 100,000 papers of 384 dimensions the MatMul scores them about six times faster
than a JavaScript loop, and the TopK saves a loop over the 100,000 scores (see scoring.ts).
The graph is written into a TypeScript module rather than shipped as a file, so that the extension's
bundle, the CLI and the tests find it alike. Made with onnx 1.23.2 (pip, Python 3.11).
"""
import base64
import pathlib
import textwrap

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [
        helper.make_node("MatMul", ["vectors", "query"], ["scores"]),
        helper.make_node("TopK", ["scores", "k"], ["best", "rows"], axis=0, largest=1, sorted=1),
    ],
    "attest-dense-search",
    [
        helper.make_tensor_value_info("vectors", TensorProto.FLOAT, ["rows", "dimension"]),
        helper.make_tensor_value_info("query", TensorProto.FLOAT, ["dimension", 1]),
        helper.make_tensor_value_info("k", TensorProto.INT64, [1]),
    ],
    [
        helper.make_tensor_value_info("best", TensorProto.FLOAT, ["k", 1]),
        helper.make_tensor_value_info("rows", TensorProto.INT64, ["k", 1]),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8, producer_name="attest")
onnx.checker.check_model(model)
encoded = base64.b64encode(model.SerializeToString()).decode("ascii")
lines = "\n".join(f"  '{chunk}' +" for chunk in textwrap.wrap(encoded, 100))[: -len(" +")]
out = pathlib.Path(__file__).resolve().parent.parent / "src/core/index/scoringGraph.ts"
out.write_text(
    "/**\n"
    " * The ONNX graph that searches the dense index: TopK(MatMul(vectors [n, d], query [d, 1]), k) → best\n"
    " * and rows [k, 1].\n"
    " * Written by scripts/scoring-graph.py; do not edit.\n"
    " */\n"
    f"export const SCORING_GRAPH_BASE64 =\n{lines};\n"
)
print(f"{out}: {len(encoded)} base64 characters")
