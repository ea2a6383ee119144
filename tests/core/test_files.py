"""Reading a file in blocks of whole lines gives its bytes and line numbers, in bounded pieces."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.core import files
from ragauge.core.files import line_blocks, read_input
from ragauge.core.jsonl import read_jsonl
from ragauge.errors import InputError


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(["a", "bb ", "\n", "\r\n", "é", "\ufeff", " "]), max_size=40).map("".join),
       bom=st.booleans(), block=st.integers(1, 12))
def test_blocks_join_to_the_file_and_number_their_lines(tmp_path_factory: pytest.TempPathFactory, text: str,
                                                        bom: bool, block: int) -> None:
    path = tmp_path_factory.mktemp("f") / "data"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    blocks = list(line_blocks(path, "test", block))
    assert b"".join(data for data, _ in blocks) == read_input(path, "test")
    line = 1
    for data, first in blocks:
        assert first == line
        assert data.endswith(b"\n") or data is blocks[-1][0]  # whole lines; the last may lack its newline
        line += data.count(b"\n")


def test_a_line_longer_than_a_block_comes_whole(tmp_path: Path) -> None:
    path = tmp_path / "data"
    path.write_bytes(b"x" * 50 + b"\nshort\n")
    assert list(line_blocks(path, "test", 4)) == [(b"x" * 50 + b"\n", 1), (b"short\n", 2)]


def test_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="test file not found"):
        list(line_blocks(tmp_path / "missing", "test"))
    with pytest.raises(InputError, match="expected a test file, found a folder"):
        list(line_blocks(tmp_path, "test"))


def test_jsonl_lines_keep_their_numbers_across_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\r\n{"a": 3}\n[1]\n')
    monkeypatch.setattr(files, "BLOCK_BYTES", 5)
    got = []
    with pytest.raises(InputError) as info:
        for number, obj in read_jsonl(path, what="test"):
            got.append((number, obj))
    assert got == [(1, {"a": 1}), (3, {"a": 2}), (4, {"a": 3})]
    assert info.value.where == f"{path}:5"
