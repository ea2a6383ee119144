"""Content hashes that identify a golden set or a run independently of file layout."""

from __future__ import annotations

import json
import mmap
import os
from importlib import import_module
from pathlib import Path
from typing import Any

SMALL_INPUT = 16 << 20
"""Inputs below this many bytes are hashed by the interpreter's own SHA-256; larger ones by
hashlib's (OpenSSL). Both give the same digest: OpenSSL is several times faster per byte, but
loading it costs ~5 ms, more than hashing a golden set or a small run takes (issue 17)."""

_BUILTIN = ("_sha2", "_sha256")  # CPython's own SHA-256 module: _sha2 from 3.12, _sha256 before


def sha256(size: int) -> Any:
    """A new SHA-256 object for about ``size`` bytes of input (see :data:`SMALL_INPUT`)."""
    if size < SMALL_INPUT:
        for name in _BUILTIN:
            try:
                return import_module(name).sha256()
            except (ImportError, AttributeError):
                continue
    import hashlib

    return hashlib.sha256()


def content_hash(payload: Any) -> str:
    """``sha256:`` + hex digest of the canonical JSON of ``payload`` (sorted keys, no spaces)."""
    data = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    h = sha256(len(data))
    h.update(data)
    return "sha256:" + str(h.hexdigest())


FILE_BLOCK = 1 << 23
"""Bytes of a file hashed at a time (a multiple of ``mmap.ALLOCATIONGRANULARITY``)."""


def file_hash(path: str | Path) -> str:
    """``sha256:`` + hex digest of a file's bytes (any size). A regular file is hashed where it lies,
    mapped into memory a block at a time (so memory holds one block): reading would first copy
    every byte into fresh memory, about 15 % of the hash's CPU on a 300 MB run. What cannot be
    mapped (an empty file, a pipe) is read in blocks."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        h = sha256(size)
        at = 0
        while at < size:
            length = min(FILE_BLOCK, size - at)
            try:
                block = mmap.mmap(fh.fileno(), length, access=mmap.ACCESS_READ, offset=at)
            except (OSError, ValueError):
                break
            with block:
                h.update(block)
            at += length
        if at:
            fh.seek(at)
        for rest in iter(lambda: fh.read(FILE_BLOCK), b""):
            h.update(rest)
    return "sha256:" + str(h.hexdigest())
