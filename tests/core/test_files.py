"""Reading a file in blocks of whole lines gives its bytes and line numbers, in bounded pieces."""

from __future__ import annotations

import os
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


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd here")
def test_a_name_of_a_descriptor_is_a_stream_even_when_it_is_a_regular_file(tmp_path: Path) -> None:
    """``-o /dev/stdout`` with ``> run.jsonl``: the name leads to a regular file, but writing it
    atomically would swap a new file in for the name (the descriptor would never see it)."""
    import os

    from ragauge.core.files import atomic_write, is_stream

    target = tmp_path / "redirected.jsonl"
    with open(target, "w") as fh:
        link = tmp_path / "outlink"
        link.symlink_to(f"/proc/self/fd/{fh.fileno()}")
        assert is_stream(link) and is_stream(Path(f"/proc/self/fd/{fh.fileno()}"))
        assert is_stream(Path("/dev/stdout")) and is_stream(Path("/dev/fd/1"))
        atomic_write(link, "written through the descriptor\n")
        assert link.is_symlink() and os.readlink(link) == f"/proc/self/fd/{fh.fileno()}"
    assert target.read_text() == "written through the descriptor\n"
    regular = tmp_path / "plain.jsonl"
    regular.write_text("x")
    (tmp_path / "to-plain").symlink_to(regular)
    assert not is_stream(regular) and not is_stream(tmp_path / "to-plain") and not is_stream(tmp_path / "new.jsonl")


def test_an_appender_cuts_a_failed_write_back_to_whole_records(tmp_path: Path) -> None:
    """A write that stores part of a record and then fails (a file size limit, in a child process
    so the limit binds nothing else) leaves the file as it was before that write."""
    import os
    import subprocess
    import sys

    path = tmp_path / "records.jsonl"
    code = (
        "import resource, sys\n"
        "from ragauge.core.files import Appender\n"
        "from ragauge.errors import InputError\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))\n"
        "with Appender(sys.argv[1], what='records') as out:\n"
        "    out.write(b'a' * 59 + b'\\n')\n"
        "    try:\n"
        "        out.write(b'b' * 79 + b'\\n')\n"
        "    except InputError as exc:\n"
        "        print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")})
    assert "cannot write records: File too large" in done.stdout, done.stderr
    assert path.read_bytes() == b"a" * 59 + b"\n"


def test_a_pipe_nothing_writes_to_is_refused_not_waited_on_forever(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import ragauge.core.files as files

    monkeypatch.setattr(files, "FIFO_WAIT", 0.2)
    fifo = tmp_path / "golden.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="a pipe that nothing wrote to within 0.2 s"):
        files.read_input(fifo, "golden set")


def test_a_pipe_with_a_writer_is_read_whole(tmp_path: Path) -> None:
    import threading

    from ragauge.core.files import read_input

    fifo = tmp_path / "golden.jsonl"
    os.mkfifo(fifo)
    body = b'{"id": "q1"}\n' * 50_000  # more than a pipe's buffer

    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(body)

    writer = threading.Thread(target=write)
    writer.start()
    assert read_input(fifo, "golden set") == body
    writer.join()


def test_a_gzipped_input_is_read_decompressed(tmp_path: Path) -> None:
    """golden import trec on a gzipped topics file said 'not valid UTF-8'."""
    import gzip

    from ragauge.curation.importing import import_golden

    topics = tmp_path / "topics.txt.gz"
    topics.write_bytes(gzip.compress(b"<top>\n<num> Number: 401\n<title> vpn certificate\n</top>\n"))
    qrels = tmp_path / "qrels"
    qrels.write_text("401 0 kb-1 1\n")
    result = import_golden("trec", [topics, qrels])
    assert [q.query for q in result.golden] == ["vpn certificate"]
    (tmp_path / "broken.gz").write_bytes(b"\x1f\x8b" + b"not really")
    with pytest.raises(InputError, match="gzip-compressed but cannot be decompressed"):
        read_input(tmp_path / "broken.gz", "topics")
