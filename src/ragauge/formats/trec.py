"""TREC run files (``qid Q0 docno rank score tag``) and qrels (``qid iter docno rel``).

Read as trec_eval reads them: fields separated by any whitespace, lines starting with ``#``
are comments, blank lines skipped, the rank column ignored. Parsing is columnar (Arrow).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragauge.core.files import read_input
from ragauge.errors import InputError, where

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.core.grouping import Grouping

RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")


@dataclass(frozen=True)
class TrecRun:
    """A TREC run in file order: one row per line (string columns may be chunked)."""

    qid: pa.Array | pa.ChunkedArray
    docno: pa.Array | pa.ChunkedArray
    score: np.ndarray
    runid: str
    source: str

    @cached_property
    def grouped(self) -> Grouping:
        """The rows as runs of one query id each, in file order (``core.grouping.contiguous``: a
        query whose lines are scattered has several), worked out once for whoever asks."""
        from ragauge.core.grouping import contiguous

        return contiguous(self.qid)


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements: one row per (qid, docno) with an integer grade."""

    qid: pa.Array
    docno: pa.Array
    rel: np.ndarray
    source: str


def _strip_comments(data: bytes) -> bytes:
    if b"#" in data and (data.lstrip(b" \t").startswith(b"#") or re.search(rb"\n[ \t]*#", data)):
        data = re.sub(rb"(?m)^[ \t]*#[^\n]*(\n|$)", b"", data)
    return data


def _normalize(data: bytes) -> bytes:
    """Make ``data`` single-space separated with no leading or trailing blanks on any line."""
    data = re.sub(rb"[ \t\r\f\v]+", b" ", data)
    data = re.sub(rb" ?\n ?", b"\n", data)
    return data.lstrip(b" ")


def _locate(path: Path, data: bytes, fields: tuple[str, ...], types: Mapping[str, type], what: str,
            first_line: int = 1) -> InputError:
    """Find the first malformed line (slow path, only after the fast parser failed); ``data`` starts
    at line ``first_line`` of the file."""
    for number, raw in enumerate(data.split(b"\n"), start=first_line):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return InputError("not valid UTF-8", where=where(path, number), hint=f"save the {what} file as UTF-8")
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) < len(fields):
            return InputError(
                f"expected {len(fields)} fields ({' '.join(fields)}), found {len(parts)}: {line.strip()[:120]!r}",
                where=where(path, number), hint=f"is this really a {what} file?",
            )
        for name, conv in types.items():
            value = parts[fields.index(name)]
            try:
                conv(value)
            except ValueError:
                return InputError(
                    f"field '{name}' must be {'an integer' if conv is int else 'a number'}, got {value!r}",
                    where=where(path, number),
                )
    return InputError(f"could not parse the {what} file", where=str(path))


def _csv_options(fields: tuple[str, ...], keep: dict[str, pa.DataType]) -> dict[str, Any]:
    import pyarrow.csv as pcsv

    return dict(
        read_options=pcsv.ReadOptions(column_names=list(fields), block_size=1 << 23),
        parse_options=pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
        convert_options=pcsv.ConvertOptions(column_types=keep, include_columns=list(keep), strings_can_be_null=False,
                                            quoted_strings_can_be_null=False, null_values=[]),
    )


def _clean(table: pa.Table) -> bool:
    """A fast parse is trusted only if no string field holds a control character (a tab, a CR)
    and no line was a comment."""
    import pyarrow as pa

    for name in table.column_names:
        column = table.column(name)
        if not pa.types.is_string(column.type):
            continue
        for chunk in column.chunks:
            data = chunk.buffers()[2]
            if data is None or len(chunk) == 0:
                continue
            offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=len(chunk) + 1, offset=chunk.offset * 4)
            raw = np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]]
            if len(raw) and raw.min() < 14:  # tab, CR, other whitespace or control bytes
                return False
            if (name == table.column_names[0] and np.any(raw == 35)  # a '#' somewhere: at a line's start?
                    and np.any(raw[offsets[:-1][offsets[:-1] < offsets[1:]] - offsets[0]] == 35)):
                return False  # a line starting with '#'
    return True


def _read_table(path: Path, fields: tuple[str, ...], keep: dict[str, pa.DataType], what: str) -> pa.Table:
    """Fast path: Arrow reads the file itself (single-space separated, no comments). Otherwise the
    bytes are parsed by :func:`parse_lines`."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    if not path.is_file():
        read_input(path, what)  # raises the right "not found" / "cannot read" error
    if path.stat().st_size == 0:
        return _empty(keep)
    try:
        with open(path, "rb") as fh:
            bom = fh.read(3) == b"\xef\xbb\xbf"
        if not bom:
            table = pcsv.read_csv(str(path), **_csv_options(fields, keep))
            if _clean(table):
                return table
    except (pa.ArrowInvalid, UnicodeDecodeError):
        pass
    return parse_lines(read_input(path, what), path, fields, keep, what, fast=False)


def _empty(keep: dict[str, pa.DataType]) -> pa.Table:
    import pyarrow as pa

    return pa.table({name: pa.nulls(0, t) for name, t in keep.items()})


def parse_lines(data: bytes | pa.Buffer, path: Path, fields: tuple[str, ...], keep: dict[str, pa.DataType], what: str,
                *, first_line: int = 1, fast: bool = True, threads: bool = True) -> pa.Table:
    """The rows of ``data``: whole lines of a file (all of it, or a block of it starting at line
    ``first_line``, without a BOM). Arrow parses them as they are when they are single-space
    separated with no comments (``fast``); otherwise the bytes are normalized (comments, tabs,
    runs of blanks, trailing text) and parsed again; lines that still fail are scanned one by one
    to name the first bad line (InputError with file:line). ``threads``: Arrow may split the
    work over its own threads (a caller that parses blocks in threads of its own says no)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    options = _csv_options(fields, keep)
    options["read_options"].use_threads = threads
    if fast and len(data):
        try:
            table = pcsv.read_csv(pa.BufferReader(data), **options)
            if _clean(table):
                return table
        except (pa.ArrowInvalid, UnicodeDecodeError):
            pass
    if not isinstance(data, bytes):
        data = data.to_pybytes()
    normalized = _normalize(_strip_comments(data))
    if not normalized.strip():
        return _empty(keep)
    for attempt in range(2):
        try:
            return pcsv.read_csv(pa.BufferReader(normalized), **options)
        except (pa.ArrowInvalid, UnicodeDecodeError):
            if attempt == 0:  # text after the last field is ignored, as trec_eval does
                head = rb"\S+ " * (len(fields) - 1) + rb"\S+"
                normalized = re.sub(rb"(?m)^(" + head + rb") [^\n]*$", rb"\1", normalized)
    types = {name: (int if pa.types.is_integer(t) else float) for name, t in keep.items() if not pa.types.is_string(t)}
    raise _locate(path, data, fields, types, what, first_line)


def _numpy(column: pa.ChunkedArray) -> np.ndarray:
    """A numeric column (no nulls) as one numpy array: chunks viewed, then concatenated once."""
    from ragauge.core.arrow import to_numpy

    return to_numpy(column)


RUN_COLUMNS = ("qid", "docno", "score")


def run_columns() -> dict[str, pa.DataType]:
    """The columns of a TREC run line that evaluation reads, and their types."""
    import pyarrow as pa

    return {"qid": pa.string(), "docno": pa.string(), "score": pa.float64()}


def read_trec_run(path: str | Path) -> TrecRun:
    """Read a TREC run; the run id is the tag of the last line, as in trec_eval."""
    path = Path(path)
    table = _read_table(path, RUN_FIELDS, run_columns(), "TREC run")
    runid = run_id(path) if table.num_rows else ""
    score = _numpy(table.column("score"))
    row = first_not_finite(score)
    if row is not None:
        raise not_finite(path, score[row], row)
    return TrecRun(table.column("qid"), table.column("docno"), score, runid, str(path))


def run_id(path: Path) -> str:
    """The tag of a run file's last line (its run id in trec_eval's output)."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        fh.seek(max(0, fh.tell() - 4096))
        return tail_tag(fh.read())


def tail_tag(tail: bytes) -> str:
    """The tag (sixth field) of the last data line in ``tail``, the end of a run file; "" if none."""
    lines = [line.split() for line in _strip_comments(tail).splitlines() if line.strip()]
    return lines[-1][5].decode("utf-8", "replace") if lines and len(lines[-1]) > 5 else ""


def first_not_finite(score: np.ndarray) -> int | None:
    """The index of the first score that is not a number (NaN), if any. +-inf is a score, as in
    trec_eval (atof reads it; it ranks above, or below, every finite score); NaN has no rank."""
    bad = np.flatnonzero(np.isnan(score))
    return int(bad[0]) if len(bad) else None


def not_finite(path: Path, value: float, row: int) -> InputError:
    """The error for data row ``row`` (0-based, comments and blank lines not counted) of a run
    holding the score ``value``, which is not finite."""
    return InputError(f"score {value} is not a number", where=where(path, _line_of_row(path, row)),
                      hint="a score ranks the document: give a number (inf and -inf rank first and last, as in "
                           "trec_eval; nan has no rank)")


def _line_of_row(path: Path, row: int) -> int | None:
    """The 1-based line of data row ``row`` (comment and blank lines do not count as rows)."""
    seen = -1
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
            stripped = line.strip()
            if stripped and not stripped.startswith(b"#"):
                seen += 1
                if seen == row:
                    return number
    return None


def read_qrels(path: str | Path) -> Qrels:
    """Read TREC qrels; duplicate (qid, docno) pairs are an error, as in trec_eval."""
    import pyarrow as pa

    from ragauge.core.arrow import as_string_array

    path = Path(path)
    table = _read_table(path, QRELS_FIELDS, {"qid": pa.string(), "docno": pa.string(), "rel": pa.int64()}, "qrels")
    qrels = Qrels(as_string_array(table.column("qid")), as_string_array(table.column("docno")),
                  _numpy(table.column("rel")), str(path))
    _check_unique_pairs(qrels.qid, qrels.docno, str(path), "qrels")
    return qrels


def _check_unique_pairs(qid: pa.Array, docno: pa.Array, source: str, what: str) -> None:
    """Error on the first (query, document) pair that occurs twice: fingerprints sorted, equal
    neighbours compared exactly."""
    from ragauge.core.arrow import hash64, take

    if len(qid) < 2:
        return
    with np.errstate(over="ignore"):
        key = hash64(qid) * np.uint64(0x9E3779B97F4A7C15) ^ hash64(docno)
    order = np.argsort(key, kind="stable")
    key = key[order]
    tied = np.flatnonzero(key[1:] == key[:-1])
    if len(tied) == 0:
        return
    rows = np.unique(np.concatenate([order[tied], order[tied + 1]]))
    seen: dict[tuple[str, str], int] = {}
    for row, pair in sorted(zip(rows.tolist(), zip(take(qid, rows).to_pylist(), take(docno, rows).to_pylist()))):
        if pair in seen:
            raise InputError(
                f"duplicate judgement for query {pair[0]!r}, document {pair[1]!r}", where=source,
                hint=f"each (query, document) pair may appear once in the {what}",
            )
        seen[pair] = row


def trec_ranking(run: TrecRun) -> Grouping:
    """The run's rows grouped by query, each ranked by score descending, ties by docno
    descending (strcmp), as trec_eval ranks them.

    Files are usually written query by query, best first: then only runs of tied scores need
    their docnos compared, and the rows stay where they are: the grouping records the few
    moves that put tied rows in order.
    """
    import pyarrow as pa

    from ragauge.core import compute as pc
    from ragauge.core.arrow import from_numpy, ragged_arange, take, to_numpy
    from ragauge.core.grouping import Grouping, contiguous

    n = len(run.qid)
    grouping = run.grouped
    if n < 2:
        return grouping
    s = run.score
    new_q = np.zeros(n, dtype=bool)
    new_q[grouping.starts] = True
    same_q = ~new_q[1:]
    if len(set(grouping.ids)) != len(grouping.ids) or np.any(same_q & (s[1:] > s[:-1])):
        table = pa.table({"q": run.qid, "s": from_numpy(run.score), "d": run.docno})
        order = to_numpy(pc.sort_indices(table, sort_keys=[("q", "ascending"), ("s", "descending"),
                                                           ("d", "descending")])).astype(np.int64)
        return contiguous(run.qid, order)
    tie = np.flatnonzero(same_q & (s[1:] == s[:-1]))  # rows that tie with the next row
    if len(tie) == 0:
        return grouping
    in_order = to_numpy(pc.greater(take(run.docno, tie), take(run.docno, tie + 1)))
    if in_order.all():
        return grouping
    ties_next = np.zeros(n, dtype=bool)
    ties_next[tie] = True
    opens = np.flatnonzero(~ties_next[tie - 1] | (tie == 0))  # tie[opens]: first row of each run of tied rows
    first = tie[opens]
    size = np.diff(np.append(opens, len(tie))) + 1
    pair = size == 2  # most runs are two rows: swap them when out of order
    swap = first[pair][~in_order[opens[pair]]]
    positions, rows = [swap, swap + 1], [swap + 1, swap]
    if not pair.all():  # longer runs: sort each by docno descending
        span = ragged_arange(first[~pair], size[~pair])
        run_id = np.repeat(np.arange(int((~pair).sum())), size[~pair])
        table = pa.table({"r": from_numpy(run_id), "d": take(run.docno, span)})
        local = to_numpy(pc.sort_indices(table, sort_keys=[("r", "ascending"), ("d", "descending")])).astype(np.int64)
        positions.append(span)
        rows.append(span[local])
    moves = (np.concatenate(positions).astype(np.int64), np.concatenate(rows).astype(np.int64))
    return Grouping(grouping.ids, grouping.starts, grouping.lengths, moves=moves)


def format_trec_run_line(qid: str, docno: str, rank: int, score: float, tag: str) -> str:
    return f"{qid} Q0 {docno} {rank} {score} {tag}\n"
