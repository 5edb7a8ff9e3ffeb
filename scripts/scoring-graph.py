#!/usr/bin/env python3
"""Writes src/core/index/scoringGraph.ts: the ONNX graph the dense index scores its vectors with.

  python3 scripts/scoring-graph.py

One MatMul: the query's unit vector [1, d] times the index's blocks [blocks, d, k] gives every
paper's cosine, [blocks, 1, k]. All three sizes are symbolic, so one graph serves every encoder and
library size. ONNX Runtime's MatMul runs SIMD kernels on its own threads: at 100,000 papers of 384
dimensions it scores them about eight times faster than a JavaScript loop (see scoring.ts).
The graph is written into a TypeScript module rather than shipped as a file, so that the extension's
bundle, the CLI and the tests find it alike. Made with onnx 1.23.1 (pip, Python 3.11).
"""
import base64
import pathlib
import textwrap

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [helper.make_node("MatMul", ["query", "blocks"], ["scores"])],
    "attest-dense-scores",
    [
        helper.make_tensor_value_info("query", TensorProto.FLOAT, [1, "dimension"]),
        helper.make_tensor_value_info("blocks", TensorProto.FLOAT, ["blocks", "dimension", "rows"]),
    ],
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["blocks", 1, "rows"])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8, producer_name="attest")
onnx.checker.check_model(model)
encoded = base64.b64encode(model.SerializeToString()).decode("ascii")
lines = "\n".join(f"  '{chunk}' +" for chunk in textwrap.wrap(encoded, 100))[: -len(" +")]
out = pathlib.Path(__file__).resolve().parent.parent / "src/core/index/scoringGraph.ts"
out.write_text(
    "/**\n"
    " * The ONNX graph that scores the dense index: MatMul(query [1, d], blocks [b, d, k]) → scores [b, 1, k].\n"
    " * Written by scripts/scoring-graph.py; do not edit.\n"
    " */\n"
    f"export const SCORING_GRAPH_BASE64 =\n{lines};\n"
)
print(f"{out}: {len(encoded)} base64 characters")
