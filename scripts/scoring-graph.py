#!/usr/bin/env python3
"""Writes src/core/index/scoringGraph.ts: the ONNX graph the dense index scores its vectors with.

  python3 scripts/scoring-graph.py

One MatMul: the index's vectors row by row [n, d] times the query's unit vector [d, 1] gives every
paper's cosine, [n, 1]. Both sizes are symbolic, so one graph serves every encoder and library size.
ONNX Runtime's MatMul runs SIMD kernels on its own threads: at 100,000 papers of 384 dimensions it
scores them about six times faster than a JavaScript loop (see scoring.ts).
The graph is written into a TypeScript module rather than shipped as a file, so that the extension's
bundle, the CLI and the tests find it alike. Made with onnx 1.23.1 (pip, Python 3.11).
"""
import base64
import pathlib
import textwrap

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [helper.make_node("MatMul", ["vectors", "query"], ["scores"])],
    "attest-dense-scores",
    [
        helper.make_tensor_value_info("vectors", TensorProto.FLOAT, ["rows", "dimension"]),
        helper.make_tensor_value_info("query", TensorProto.FLOAT, ["dimension", 1]),
    ],
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["rows", 1])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8, producer_name="attest")
onnx.checker.check_model(model)
encoded = base64.b64encode(model.SerializeToString()).decode("ascii")
lines = "\n".join(f"  '{chunk}' +" for chunk in textwrap.wrap(encoded, 100))[: -len(" +")]
out = pathlib.Path(__file__).resolve().parent.parent / "src/core/index/scoringGraph.ts"
out.write_text(
    "/**\n"
    " * The ONNX graph that scores the dense index: MatMul(vectors [n, d], query [d, 1]) → scores [n, 1].\n"
    " * Written by scripts/scoring-graph.py; do not edit.\n"
    " */\n"
    f"export const SCORING_GRAPH_BASE64 =\n{lines};\n"
)
print(f"{out}: {len(encoded)} base64 characters")
