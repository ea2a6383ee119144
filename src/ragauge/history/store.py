"""The local history: recorded evaluations in one SQLite file (the stdlib ``sqlite3``), schema versioned.

Schema version 1 (``PRAGMA user_version``), three tables:

- ``entries``: one row per recorded evaluation: ``id`` (assigned in order), ``recorded_at`` (ISO 8601
  UTC), ``label``, the golden set's ``golden_hash``/``golden_path``/``golden_questions``, the run's
  ``run_path``/``run_hash``, ``retriever`` and ``fingerprint`` (from the run's metadata when known),
  ``git_commit``, ``ragauge_version``, and as JSON text ``metrics`` (in order), ``contract``, ``counts``
  and ``run_meta``.
- ``scores``: ``entry_id``, ``tag`` (NULL for the overall mean), ``metric``, ``value``, ``n`` (questions
  behind the value).
- ``questions``: ``entry_id``, ``query_id``, ``query``, ``tags`` (JSON), ``first_relevant_rank``,
  ``status`` and ``metric_values`` (JSON object, metric -> value) for every answerable question.

A file written by a newer ragauge (a higher version) is refused rather than misread.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import dumps, loads
from ragauge.errors import InputError, flag
from ragauge.evaluation.result import Evaluation
from ragauge.history import DEFAULT_HISTORY
from ragauge.history.model import Entry, QuestionPoint, entry_from_evaluation

__all__ = ["DEFAULT_HISTORY", "SCHEMA_VERSION", "HistoryStore", "open_history", "record_evaluation"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at TEXT NOT NULL,
  label TEXT,
  golden_hash TEXT NOT NULL,
  golden_path TEXT,
  golden_questions INTEGER,
  run_path TEXT,
  run_hash TEXT,
  retriever TEXT,
  fingerprint TEXT,
  git_commit TEXT,
  ragauge_version TEXT,
  metrics TEXT NOT NULL,
  contract TEXT NOT NULL,
  counts TEXT NOT NULL,
  run_meta TEXT NOT NULL
);
CREATE TABLE scores (
  entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
  tag TEXT,
  metric TEXT NOT NULL,
  value REAL,
  n INTEGER
);
CREATE INDEX scores_entry ON scores(entry_id);
CREATE TABLE questions (
  entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
  query_id TEXT NOT NULL,
  query TEXT NOT NULL,
  tags TEXT NOT NULL,
  first_relevant_rank INTEGER,
  status TEXT NOT NULL,
  metric_values TEXT NOT NULL,
  PRIMARY KEY (entry_id, query_id)
);
"""

_ENTRY_COLUMNS = ("id", "recorded_at", "label", "golden_hash", "golden_path", "golden_questions", "run_path",
                  "run_hash", "retriever", "fingerprint", "git_commit", "ragauge_version", "metrics", "contract",
                  "counts", "run_meta")


def _dumps(value: Any) -> str:
    return dumps(value)


def _loads(text: Any, column: str, entry_id: Any, path: Path) -> Any:
    """A JSON column read back; InputError naming the entry and column when it is corrupt."""
    try:
        return loads(text)
    except (TypeError, ValueError) as exc:
        raise InputError(f"the history is corrupt: entry {entry_id}, column {column!r}: {exc}", where=str(path),
                         hint="restore the file from a backup, or start a new history with "
                              + flag("history", "PATH")) from None


def _value(value: Any) -> float:
    """A stored score: NULL is an empty mean (no question behind it)."""
    return math.nan if value is None else float(value)


class HistoryStore:
    """An open history file. Use ``open_history`` (a context manager) rather than this directly."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    def append(self, entry: Entry) -> int:
        """Store ``entry`` (its ``id`` is ignored) in one transaction; return the id assigned."""
        values = [entry.recorded_at, entry.label, entry.golden_hash, entry.golden_path, entry.golden_questions,
                  entry.run_path, entry.run_hash, entry.retriever, entry.fingerprint, entry.git_commit,
                  entry.ragauge_version, _dumps(list(entry.metrics)), _dumps(entry.contract), _dumps(entry.counts),
                  _dumps(entry.run_meta)]
        with self.conn:
            cur = self.conn.execute(
                f"INSERT INTO entries ({', '.join(_ENTRY_COLUMNS[1:])}) VALUES ({', '.join('?' * len(values))})",
                values)
            entry_id = int(cur.lastrowid or 0)
            n_all = entry.counts.get("answerable", len(entry.questions) or None)
            rows: list[tuple[Any, ...]] = [(entry_id, None, m, v, n_all) for m, v in entry.summary.items()]
            for tag, tag_values in entry.by_tag.items():
                n = tag_values.get("n")
                rows += [(entry_id, tag, m, v, None if n is None else int(n))
                         for m, v in tag_values.items() if m != "n"]
            self.conn.executemany("INSERT INTO scores (entry_id, tag, metric, value, n) VALUES (?, ?, ?, ?, ?)", rows)
            self.conn.executemany(
                "INSERT INTO questions (entry_id, query_id, query, tags, first_relevant_rank, status, metric_values)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(entry_id, q.id, q.query, _dumps(list(q.tags)), q.first_relevant_rank, q.status, _dumps(q.values))
                 for q in entry.questions])
        return entry_id

    def entries(self, *, questions: bool = False) -> list[Entry]:
        """Every entry, oldest first (by ``recorded_at``, then id); with the per-question rows if asked."""
        scores: dict[int, tuple[dict[str, float], dict[str, dict[str, float]]]] = {}
        for entry_id, tag, metric, value, n in self.conn.execute(
                "SELECT entry_id, tag, metric, value, n FROM scores ORDER BY rowid"):
            summary, by_tag = scores.setdefault(entry_id, ({}, {}))
            if tag is None:
                summary[metric] = _value(value)
            else:
                by_tag.setdefault(tag, {"n": n} if n is not None else {})[metric] = _value(value)
        out = []
        for row in self.conn.execute(f"SELECT {', '.join(_ENTRY_COLUMNS)} FROM entries ORDER BY recorded_at, id"):
            d = dict(zip(_ENTRY_COLUMNS, row))
            summary, by_tag = scores.get(d["id"], ({}, {}))
            out.append(Entry(
                d["id"], d["recorded_at"], d["label"], d["golden_hash"], d["golden_path"], d["golden_questions"],
                d["run_path"], d["run_hash"], d["retriever"], d["fingerprint"], d["git_commit"], d["ragauge_version"],
                tuple(self._json(d, "metrics")), self._json(d, "contract"), summary, by_tag, self._json(d, "counts"),
                self._json(d, "run_meta"), self.questions(d["id"]) if questions else ()))
        return out

    def with_questions(self, entry: Entry) -> Entry:
        """``entry`` (read from this store) with its per-question rows."""
        if entry.id is None:
            raise ValueError("an entry that is not stored has no question rows to load")
        return replace(entry, questions=self.questions(entry.id))

    def questions(self, entry_id: int) -> tuple[QuestionPoint, ...]:
        """The per-question rows of one entry, in the order they were recorded."""
        rows = self.conn.execute(
            "SELECT query_id, query, tags, first_relevant_rank, status, metric_values FROM questions "
            "WHERE entry_id = ? ORDER BY rowid", (entry_id,))
        return tuple(QuestionPoint(qid, query, tuple(_loads(tags, "tags", entry_id, self.path)),
                                   _loads(values, "metric_values", entry_id, self.path), rank, status)
                     for qid, query, tags, rank, status, values in rows)

    def _json(self, row: dict[str, Any], column: str) -> Any:
        value = _loads(row[column], column, row["id"], self.path)
        fits = (isinstance(value, list) and all(isinstance(m, str) for m in value) if column == "metrics"
                else isinstance(value, dict))
        if not fits:
            raise InputError(f"the history is corrupt: entry {row['id']}, column {column!r} holds {value!r}",
                             where=str(self.path),
                             hint="restore the file from a backup, or start a new history with "
                                  + flag("history", "PATH"))
        return value


def _check_version(version: int, path: Path) -> None:
    if version > SCHEMA_VERSION:
        raise InputError(f"this history was written by a newer ragauge (schema {version}, this one reads "
                         f"{SCHEMA_VERSION})", where=str(path), hint="upgrade ragauge: pip install -U ragauge")


def _check_no_tables(conn: sqlite3.Connection, path: Path) -> None:
    if conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]:
        raise InputError("not a ragauge history (an SQLite file with other tables)", where=str(path),
                         hint=f"choose another file with {flag('history')}")


def _prepare(conn: sqlite3.Connection, path: Path, create: bool) -> None:
    """Check the file's schema version; with ``create``, make the schema in an empty file.

    Racing first records are safe: the schema is checked again and made inside one IMMEDIATE
    transaction, so the process that waited finds it made."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    _check_version(version, path)
    if version == SCHEMA_VERSION:
        return
    if not create:
        _check_no_tables(conn, path)
        raise InputError("the history file is empty", where=str(path),
                         hint="record an evaluation: ragauge eval GOLDEN --run RUN --record")
    conn.isolation_level = None
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        _check_version(version, path)
        if version != SCHEMA_VERSION:
            _check_no_tables(conn, path)
            for statement in filter(str.strip, _SCHEMA.split(";")):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.isolation_level = "DEFERRED"  # back to the default


@contextmanager
def open_history(path: str | Path, *, create: bool = False) -> Iterator[HistoryStore]:
    """Open the history at ``path``; with ``create``, make it (and its folders) when missing.

    Raises InputError when the file is missing (without ``create``), is not SQLite, holds other
    tables, or has a newer schema.
    """
    path = Path(path)
    if not path.exists():
        if not create:
            raise InputError("no history file", where=str(path),
                             hint="record one first: ragauge eval GOLDEN --run RUN --record "
                                  f"(or pass {flag('history', 'PATH')})")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create the history's folder: {exc.strerror}", where=str(path)) from None
    try:
        conn = sqlite3.connect(path, timeout=10)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the history: {exc}", where=str(path)) from None
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        _prepare(conn, path, create)
        yield HistoryStore(conn, path)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot use the history: {exc}", where=str(path),
                         hint=f"pass a file written by 'ragauge eval --record' with {flag('history')}") from None
    finally:
        conn.close()


def record_evaluation(path: str | Path, evaluation: Evaluation, *, label: str | None = None,
                      now: datetime | None = None, git_commit: str | None = None) -> int:
    """Append ``evaluation`` to the history at ``path`` (created when missing); return the entry id.

    ``now`` defaults to the current time; ``git_commit`` to ``git rev-parse HEAD`` in the working
    directory (None outside a repository).
    """
    if git_commit is None:
        from ragauge.core.gitinfo import git

        git_commit = git("rev-parse", "HEAD")
    entry = entry_from_evaluation(evaluation, recorded_at=now or datetime.now(timezone.utc), label=label,
                                  git_commit=git_commit)
    with open_history(path, create=True) as store:
        return store.append(entry)
