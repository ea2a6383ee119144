"""TREC run files (``qid Q0 docno rank score tag``) and qrels (``qid iter docno rel``).

Read as trec_eval reads them: fields separated by any whitespace, lines starting with ``#``
are comments, blank lines skipped, the rank column ignored. Parsing is columnar (Arrow).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ragauge.errors import InputError, where

if TYPE_CHECKING:
    import pyarrow as pa

RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")


@dataclass(frozen=True)
class TrecRun:
    """A TREC run in file order: one row per line."""

    qid: "pa.Array"
    docno: "pa.Array"
    score: np.ndarray
    runid: str
    source: str


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements: one row per (qid, docno) with an integer grade."""

    qid: "pa.Array"
    docno: "pa.Array"
    rel: np.ndarray
    source: str


def _read_bytes(path: Path, what: str) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} file not found", where=str(path), hint="check the path") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} file: {exc.strerror}", where=str(path)) from None
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _strip_comments(data: bytes) -> bytes:
    if b"#" in data and (data.lstrip(b" \t").startswith(b"#") or re.search(rb"\n[ \t]*#", data)):
        data = re.sub(rb"(?m)^[ \t]*#[^\n]*(\n|$)", b"", data)
    return data


def _normalize(data: bytes) -> bytes:
    """Make ``data`` single-space separated with no leading or trailing blanks on any line."""
    data = re.sub(rb"[ \t\r\f\v]+", b" ", data)
    data = re.sub(rb" ?\n ?", b"\n", data)
    return data.lstrip(b" ")


def _locate(path: Path, data: bytes, fields: tuple[str, ...], types: dict[str, type], what: str) -> InputError:
    """Find the first malformed line (slow path, only after the fast parser failed)."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
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


def _read_table(path: Path, fields: tuple[str, ...], keep: dict[str, "pa.DataType"], what: str) -> "pa.Table":
    import pyarrow as pa
    import pyarrow.csv as pcsv

    raw = _read_bytes(path, what)
    data = _strip_comments(raw)
    if b"\t" in data or b"\r" in data:
        data = _normalize(data)
    if not data.strip():
        return pa.table({name: pa.array([], type=t) for name, t in keep.items()})
    options = dict(
        read_options=pcsv.ReadOptions(column_names=list(fields), block_size=1 << 24),
        parse_options=pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
        convert_options=pcsv.ConvertOptions(column_types=keep, include_columns=list(keep), strings_can_be_null=False,
                                            quoted_strings_can_be_null=False, null_values=[]),
    )
    for attempt in range(3):
        try:
            return pcsv.read_csv(pa.BufferReader(data), **options)
        except (pa.ArrowInvalid, UnicodeDecodeError):
            if attempt == 0:  # runs of blanks, or blanks at line ends
                data = _normalize(data)
            elif attempt == 1:  # text after the last field is ignored, as trec_eval does
                head = rb"\S+ " * (len(fields) - 1) + rb"\S+"
                data = re.sub(rb"(?m)^(" + head + rb") [^\n]*$", rb"\1", data)
    types = {name: (int if pa.types.is_integer(t) else float) for name, t in keep.items() if not pa.types.is_string(t)}
    raise _locate(path, raw, fields, types, what)


def read_trec_run(path: str | Path) -> TrecRun:
    """Read a TREC run; the run id is the tag of the last line, as in trec_eval."""
    import pyarrow as pa

    from ragauge.data.arrow import as_string_array

    path = Path(path)
    table = _read_table(path, RUN_FIELDS, {"qid": pa.string(), "docno": pa.string(), "score": pa.float64()}, "TREC run")
    runid = ""
    if table.num_rows:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 4096))
            tail = _strip_comments(fh.read())
        lines = [line.split() for line in tail.splitlines() if line.strip()]
        runid = lines[-1][5].decode("utf-8", "replace") if lines and len(lines[-1]) > 5 else ""
    score = table.column("score").to_numpy()
    if np.isnan(score).any():
        raise InputError("a score is NaN", where=str(path), hint="scores must be numbers")
    return TrecRun(as_string_array(table.column("qid")), as_string_array(table.column("docno")), score, runid, str(path))


def read_qrels(path: str | Path) -> Qrels:
    """Read TREC qrels; duplicate (qid, docno) pairs are an error, as in trec_eval."""
    import pyarrow as pa

    from ragauge.data.arrow import as_string_array

    path = Path(path)
    table = _read_table(path, QRELS_FIELDS, {"qid": pa.string(), "docno": pa.string(), "rel": pa.int64()}, "qrels")
    qrels = Qrels(as_string_array(table.column("qid")), as_string_array(table.column("docno")),
                  table.column("rel").to_numpy(), str(path))
    _check_unique_pairs(qrels.qid, qrels.docno, str(path), "qrels")
    return qrels


def _check_unique_pairs(qid: "pa.Array", docno: "pa.Array", source: str, what: str) -> None:
    import pyarrow as pa

    if len(qid) == 0:
        return
    t = pa.table({"q": qid, "d": docno})
    counts = t.group_by(["q", "d"]).aggregate([([], "count_all")])
    if counts.num_rows != t.num_rows:
        dup = counts.filter(counts.column("count_all").to_numpy() > 1).slice(0, 1).to_pylist()[0]
        raise InputError(
            f"duplicate judgement for query {dup['q']!r}, document {dup['d']!r}", where=source,
            hint=f"each (query, document) pair may appear once in the {what}",
        )


def trec_ranking_order(run: TrecRun) -> np.ndarray | None:
    """Row order that ranks each query by score descending, ties by docno descending (strcmp),
    queries grouped; None when the file is already in that order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(run.qid)
    if n < 2:
        return None
    same_q = pc.equal(run.qid[1:], run.qid[:-1]).to_numpy(zero_copy_only=False)
    s = run.score
    ok = (s[:-1] > s[1:]) | ((s[:-1] == s[1:]) & pc.greater(run.docno[:-1], run.docno[1:]).to_numpy(zero_copy_only=False))
    if np.all(ok | ~same_q):
        return None  # groups may still be split; build_rankings regroups stably
    table = pa.table({"q": run.qid, "s": run.score, "d": run.docno})
    return pc.sort_indices(table, sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")]).to_numpy()


def format_trec_run_line(qid: str, docno: str, rank: int, score: float, tag: str) -> str:
    return f"{qid} Q0 {docno} {rank} {score} {tag}\n"
