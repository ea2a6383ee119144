"""Content hashes that identify a golden set or a run independently of file layout."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


def content_hash(payload: Any) -> str:
    """``sha256:`` + hex digest of the canonical JSON of ``payload`` (sorted keys, no spaces)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_hash(path: str | Path) -> str:
    """``sha256:`` + hex digest of a file's bytes, read in blocks (any size)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()
