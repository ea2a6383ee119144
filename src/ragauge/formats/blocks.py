"""Run files read block by block, so that memory stays bounded whatever the file's size.

A block holds every row of each query it names (rows of one query written apart in the file
are gathered, as trec_eval gathers them): evaluating block after block and joining the per-query
results gives what evaluating the whole file at once gives. Large files stream on their own
(:func:`streams`); ``STREAM_BYTES`` and ``BLOCK_BYTES`` are the knobs.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from ragauge.core.background import ahead, prefetch
from ragauge.core.files import line_blocks
from ragauge.errors import InputError

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.formats.trec import TrecRun

STREAM_BYTES = 32 << 20
"""Run files larger than this are evaluated block by block (pipes always are)."""

BLOCK_BYTES = 16 << 20
"""About how much of a run file one block reads."""

PARSE_THREADS = max(2, min(4, os.cpu_count() or 1))
"""Blocks parsed at once, each by Arrow in one thread of its own, while the block before them is
evaluated: a block per thread spends less than Arrow splitting each block over its own threads."""


def streams(path: str | Path, threshold: int | None = None) -> bool:
    """Whether the run at ``path`` is read block by block: a regular file larger than
    ``threshold`` (default ``STREAM_BYTES``), or a pipe. Anything else (missing, a folder) is
    read whole, which reports what is wrong with it."""
    try:
        mode = Path(path).stat()
    except OSError:
        return False
    if stat.S_ISFIFO(mode.st_mode):
        return True
    limit = STREAM_BYTES if threshold is None else threshold
    return stat.S_ISREG(mode.st_mode) and mode.st_size > limit


def trec_run_blocks(path: str | Path, block_bytes: int | None = None) -> Iterator[TrecRun]:
    """The rows of a TREC run, block by block, each block holding every row of its queries.

    Rows arrive in file order; a query at the end of a block moves on to the next one. A query
    whose rows are scattered (they come back after other queries' rows) is found by the end of
    the file; a regular file is then read a second time for those queries' rows, which come last,
    in one more block: a query that two blocks name is answered by the later one. A pipe cannot
    be read twice: InputError. The run id (the last line's tag) is known from the start for a
    file; from a pipe, the last block's is the run's. Errors are those of reading the whole file:
    the first malformed line (file:line) at once; then, at the end of the first reading, the first
    score that is not a finite number.
    """
    from ragauge.core.arrow import to_numpy
    from ragauge.formats.trec import first_not_finite, not_finite, run_columns, run_id

    path = Path(path)
    size = BLOCK_BYTES if block_bytes is None else block_bytes
    regular = path.is_file()
    runid = run_id(path) if regular else ""
    seen: set[str] = set()
    scattered: set[str] = set()
    bad: tuple[float, int] | None = None
    empty = True
    for table, first_row, tag in prefetch(_complete_queries(path, size)):  # parse the next block meanwhile
        score = to_numpy(table.column("score"))
        if bad is None:
            row = first_not_finite(score)
            if row is not None:
                bad = (float(score[row]), first_row + row)
        if bad is not None:
            continue  # the file is wrong: read on only for an earlier-reported malformed line
        block = _trec_run(table, score, runid if regular else tag, str(path))
        ids = set(block.grouped.ids)  # the ranking reads the same grouping
        scattered.update(ids & seen)
        seen.update(ids)
        empty = False
        yield block
    if empty and bad is None:  # an empty run is still a run (of no rows)
        import pyarrow as pa

        table = pa.table({name: pa.nulls(0, t) for name, t in run_columns().items()})
        yield _trec_run(table, to_numpy(table.column("score")), "", str(path))
    if bad is not None:
        raise not_finite(path, *bad)
    if not scattered:
        return
    if not regular:
        example = sorted(scattered)[0]
        raise InputError(
            f"the lines of query {example!r} are scattered ({len(scattered)} quer(y/ies) come back after other "
            "queries' lines), and a pipe cannot be read a second time to gather them", where=str(path),
            hint="sort the run by query id (sort -s -k1,1), or pass a file rather than a pipe")
    yield _gather(path, size, scattered, runid)


def _complete_queries(path: Path, size: int) -> Iterator[tuple[pa.Table, int, str]]:
    """``(table, first_row, tag)``: the parsed rows of the file, cut so that the rows of the last
    query of each block (which may go on in the next) move on to the next block; ``tag`` is the
    tag of the last line read so far (the run id once the file is read)."""
    import pyarrow as pa

    from ragauge.formats.trec import RUN_FIELDS, parse_lines, run_columns, tail_tag

    columns = run_columns()
    carry: pa.Table | None = None
    first_row, tag = 0, ""

    def parse(raw: tuple[bytes | pa.Buffer, int | None, int]) -> pa.Table:
        data, first_line, _ = raw
        return parse_lines(data, path, RUN_FIELDS, columns, "TREC run", first_line=first_line or 1, threads=False)

    for (data, first_line, offset), parsed in ahead(parse, _raw_blocks(path, size), PARSE_THREADS):
        try:
            table = parsed()
        except InputError:
            if first_line is not None:
                raise
            # name the line: count the lines before the block (only now, on the way to an error)
            parse_lines(data, path, RUN_FIELDS, columns, "TREC run", first_line=_lines_before(path, offset))
            raise
        if first_line is not None:  # a pipe: the run id is the tag of the last line read
            tag = tail_tag(bytes(data[-4096:])) or tag
        del data
        if carry is not None and carry.num_rows:
            table = pa.concat_tables([carry, table])
        n = table.num_rows
        if n == 0:
            carry = table
            continue
        cut = _last_query_start(table.column("qid"))  # the last query's rows end the block
        carry = table.slice(cut)
        if cut:
            yield table.slice(0, cut), first_row, tag
            first_row += cut
    if carry is not None and carry.num_rows:
        yield carry, first_row, tag


def _raw_blocks(path: Path, size: int) -> Iterator[tuple[bytes | pa.Buffer, int | None, int]]:
    """``(data, first_line, offset)``: blocks of whole lines of the file, from byte ``offset``.
    A regular file is mapped into memory a block at a time (``_mapped``), and ``first_line`` is
    None: counting lines is left to an error. A pipe is read as it flows (``core.files.line_blocks``)."""
    if not path.is_file():
        for data, first_line in line_blocks(path, "TREC run", size):
            yield data, first_line, 0
        return
    try:
        with open(path, "rb") as fh:
            total = os.fstat(fh.fileno()).st_size
            offset = 3 if fh.read(3) == b"\xef\xbb\xbf" else 0
            want = max(1, size)
            while offset < total:
                buffer = _mapped(fh, offset, min(want, total - offset))
                cut = len(buffer)
                if offset + cut < total:
                    view = np.frombuffer(buffer, dtype=np.uint8)
                    ends = np.flatnonzero(view[-(1 << 16):] == 10)
                    if not len(ends):
                        ends = np.flatnonzero(view == 10)
                        if not len(ends):  # a line longer than the block: read more at once
                            want *= 2
                            continue
                        cut = int(ends[-1]) + 1
                    else:
                        cut = len(view) - min(len(view), 1 << 16) + int(ends[-1]) + 1
                yield buffer.slice(0, cut), None, offset
                offset += cut
                want = max(1, size)
    except OSError as exc:
        raise InputError(f"cannot read TREC run file: {exc.strerror or exc}", where=str(path)) from None


def _mapped(fh: BinaryIO, offset: int, length: int) -> pa.Buffer:
    """``length`` bytes of the open file ``fh`` from byte ``offset``: that stretch of the file
    mapped into memory, unmapped once nothing holds it. Reading would copy every byte into fresh
    memory, which the kernel first clears; mapping one block at a time, not the whole file, keeps
    the memory of one block. Read as usual where a file cannot be mapped. (As with any mapping, a
    file cut shorter while it is being evaluated stops the process.)"""
    import mmap

    import pyarrow as pa

    base = offset - offset % mmap.ALLOCATIONGRANULARITY
    try:
        view = mmap.mmap(fh.fileno(), length + offset - base, access=mmap.ACCESS_READ, offset=base)
    except (OSError, ValueError):
        fh.seek(offset)
        return pa.py_buffer(fh.read(length))
    return pa.py_buffer(view).slice(offset - base)


def _last_query_start(qid: pa.ChunkedArray) -> int:
    """The first of the rows at the end of ``qid`` (not empty) that hold its last query id: a
    stretch at the end is compared, growing until a row of another query is in it."""
    from ragauge.core import compute as pc
    from ragauge.core.arrow import to_numpy

    n = len(qid)
    last = qid[n - 1]
    window = 1 << 12
    while True:
        low = max(0, n - window)
        cut = n - _trailing_true(to_numpy(pc.equal(qid.slice(low), last)))
        if cut > low or low == 0:
            return cut
        window <<= 3


def _lines_before(path: Path, offset: int) -> int:
    """The 1-based number of the line that starts at byte ``offset`` of the file."""
    lines = 1
    with open(path, "rb") as fh:
        while offset > 0:
            chunk = fh.read(min(offset, 1 << 22))
            if not chunk:
                break
            lines += chunk.count(b"\n")
            offset -= len(chunk)
    return lines


def _trailing_true(values: np.ndarray) -> int:
    """How many of the last values of a boolean array are all True."""
    false = np.flatnonzero(~values)
    return len(values) if len(false) == 0 else len(values) - int(false[-1]) - 1


def _trec_run(table: pa.Table, score: np.ndarray, runid: str, source: str) -> TrecRun:
    from ragauge.formats.trec import TrecRun

    return TrecRun(table.column("qid"), table.column("docno"), score, runid, source)


def _gather(path: Path, size: int, wanted: set[str], runid: str) -> TrecRun:
    """Every row of the ``wanted`` queries, in file order (a second reading of the file)."""
    import pyarrow as pa

    from ragauge.core import compute as pc
    from ragauge.core.arrow import strings, to_numpy

    value_set = strings(sorted(wanted))
    parts = [pc.filter(table, pc.is_in(table.column("qid"), value_set))
             for table, _, _ in _complete_queries(path, size)]
    table = pa.concat_tables(parts).combine_chunks()
    return _trec_run(table, to_numpy(table.column("score")), runid, str(path))
