"""core.hashing: both SHA-256 backends give hashlib's digest, for contents and for files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.core import hashing


@given(st.binary(max_size=3000))
def test_both_backends_give_hashlibs_digest(data: bytes) -> None:
    for size in (0, hashing.SMALL_INPUT):  # the built-in backend, then OpenSSL's
        h = hashing.sha256(size)
        h.update(data)
        assert h.hexdigest() == hashlib.sha256(data).hexdigest()


def test_small_inputs_use_the_interpreters_own_sha256() -> None:
    assert type(hashing.sha256(0)).__module__ != type(hashlib.sha256()).__module__  # not OpenSSL's object
    assert type(hashing.sha256(hashing.SMALL_INPUT)).__module__ == type(hashlib.sha256()).__module__


def test_content_and_file_hashes_are_sha256_of_the_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = {"b": [1, "é"], "a": None}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert hashing.content_hash(payload) == "sha256:" + hashlib.sha256(canonical).hexdigest()
    path = tmp_path / "run.trec"
    path.write_bytes(b"q1 Q0 d1 1 2.5 t\n" * 1000)
    expected = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    assert hashing.file_hash(path) == expected
    monkeypatch.setattr(hashing, "SMALL_INPUT", 0)  # the same file through OpenSSL
    assert hashing.file_hash(path) == expected


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 10_000])
def test_a_mapped_file_hashes_as_its_bytes_read_in_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          size: int) -> None:
    """Blocks that end inside the file, at its end, and an empty file (which cannot be mapped)."""
    monkeypatch.setattr(hashing, "FILE_BLOCK", 4096)
    path = tmp_path / "run.trec"
    path.write_bytes(bytes(range(256)) * (size // 256) + bytes(size % 256))
    assert hashing.file_hash(path) == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
