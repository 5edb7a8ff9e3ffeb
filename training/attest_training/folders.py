"""Folders written whole: a run cut off, or refused part way, leaves the folder that was there before."""
from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def replaced_when_whole(folder: Path) -> Iterator[Path]:
    """An empty folder beside `folder` to write into, renamed over `folder` when the block ends without an error."""
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    yield partial
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
