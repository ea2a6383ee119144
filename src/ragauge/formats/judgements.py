"""Judgements logs: JSON Lines, one record per action, appended and flushed to disk one at a time.

**Format, version 1** (what ``ragauge golden judge`` writes)::

    {"v": 1, "question": "q1", "doc_id": "d7", "action": "grade", "grade": 2, "annotator": "ana",
     "time": "2026-11-03T09:12:04.518Z"}
    {"v": 1, "question": "q1", "doc_id": "d3", "action": "skip", "annotator": "ana", "time": "2026-11-03T09:12:09.002Z"}
    {"v": 1, "question": "q1", "doc_id": "d7", "action": "undo", "annotator": "ana", "time": "2026-11-03T09:12:11.730Z"}

(the first record is shown on two lines here; in the file each record is one line)

- ``action`` is ``grade`` (with a ``grade``: 0 not relevant, 1 relevant, 2 highly relevant),
  ``skip`` (seen, not judged) or ``undo`` (takes back the annotator's last grade or skip of that
  document for that question; see :mod:`ragauge.data.judgements`).
- ``time`` is ISO 8601 in UTC; ``annotator`` a name. Several annotators may share one log, and
  logs can be concatenated: every record stands alone.

Each record is one ``write`` of a whole line followed by ``fsync`` (:func:`ragauge.core.files.append_line`),
so a record is on disk before the page shows it saved. Reading is strict (every field has its type,
unknown fields and versions are refused, each error names the file and line), with one exception: a
last line without its newline that is not valid JSON is a write the machine did not finish (power
lost mid-record); it is left out with a note, and :func:`open_log` cuts it off before appending.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ragauge.core.files import append_line, read_input, write_error
from ragauge.core.jsonl import dumps, loads
from ragauge.data.judgements import Judgement, parse_judgement
from ragauge.errors import InputError, where

WHAT = "judgements log"


@dataclass(frozen=True)
class JudgementsLog:
    """The records of a log in file order, and the notes about what was left out (a torn last line)."""

    path: str
    records: tuple[Judgement, ...]
    notes: tuple[str, ...] = ()


def read_judgements(path: str | Path, *, missing_ok: bool = False) -> JudgementsLog:
    """The records of a judgements log. A missing file is an InputError, or no record with
    ``missing_ok`` (a first session). See the module docstring for what is refused."""
    path = Path(path)
    if missing_ok and not path.exists():
        return JudgementsLog(str(path), ())
    raw = read_input(path, WHAT)
    pieces = raw.split(b"\n")
    records: list[Judgement] = []
    notes: list[str] = []
    for number, line in enumerate(pieces, start=1):
        if not line.strip():
            continue
        loc = where(path, number)
        try:
            obj = loads(line, fast=True)
        except ValueError as exc:
            if number == len(pieces):  # the last line, without its newline: a torn write
                notes.append(f"{loc}: an unfinished last record (no newline, not JSON) was left out")
                break
            raise InputError(f"not a judgement: {str(exc).replace(' at line 1 column', ' at column')}", where=loc,
                             hint="each line must be one complete JSON object") from None
        if not isinstance(obj, dict):
            raise InputError(f"expected a JSON object, got {type(obj).__name__}", where=loc)
        records.append(parse_judgement(obj, loc, number))
    return JudgementsLog(str(path), tuple(records), tuple(notes))


def open_log(path: str | Path) -> JudgementsLog:
    """Read the log a session is about to append to (none yet is fine), after making its end safe
    to append at: a torn last record is cut off, a whole one that lost its newline gets it back."""
    path = Path(path)
    log = read_judgements(path, missing_ok=True)
    if not path.exists():
        return log
    try:
        with open(path, "rb+") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                return log
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return log
            fh.seek(0)
            data = fh.read()
            start = data.rfind(b"\n") + 1
            if log.notes:  # torn: drop the partial record
                fh.truncate(start)
            else:
                fh.write(b"\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise write_error(path, exc, WHAT) from None
    return log


def append_judgement(path: str | Path, record: Judgement) -> None:
    """Append one record and flush it to disk (InputError when it cannot be written; the log keeps
    no partial line)."""
    append_line(path, dumps(record.to_dict()), what=WHAT)


def default_log_path(pool_path: str | Path) -> Path:
    """Where a pool's judgements go unless told: ``pool.jsonl`` -> ``pool.judgements.jsonl``."""
    pool_path = Path(pool_path)
    stem = pool_path.name[:-len(".jsonl")] if pool_path.name.endswith(".jsonl") else pool_path.name
    return pool_path.with_name(f"{stem}.judgements.jsonl")
