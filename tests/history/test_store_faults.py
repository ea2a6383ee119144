"""The history under faults: racing first records, corrupt columns."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from ragauge.cli.main import cli

MINI = Path(__file__).parents[2] / "tests" / "fixtures" / "mini"

RECORD = """
import sys
from ragauge.formats.golden import load_golden
from ragauge.formats.runs import read_run
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.history.store import record_evaluation
ev = evaluate_run(load_golden(sys.argv[2] + "/golden.jsonl"), read_run(sys.argv[2] + "/run.jsonl"), k=3,
                  doc_id_sep="#")
import os, time
while not os.path.exists(sys.argv[3]):  # start together
    time.sleep(0.005)
print(record_evaluation(sys.argv[1], ev, git_commit="x"))
"""


def test_concurrent_first_records_on_a_new_history_all_succeed(tmp_path: Path) -> None:
    history = tmp_path / "h" / "history.db"
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", RECORD, str(history), str(MINI), str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
    time.sleep(1.5)  # let every process import and evaluate, then release them at once
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, [err for _, err in outs]
    assert sorted(int(out) for out, _ in outs) == list(range(1, 7))


def test_a_corrupt_column_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    history = tmp_path / "history.db"
    runner = CliRunner()
    done = runner.invoke(cli, ["eval", str(MINI / "golden.jsonl"), "--run", str(MINI / "run.jsonl"), "-k", "3",
                               "--doc-id-sep", "#", "--record", "--history", str(history)])
    assert done.exit_code == 0, done.output
    with sqlite3.connect(history) as conn:
        conn.execute("UPDATE entries SET contract = '{not json'")
    r = runner.invoke(cli, ["history", "--history", str(history)])
    assert r.exit_code == 2, r.output
    assert "the history is corrupt: entry 1, column 'contract'" in r.stderr and "Traceback" not in r.output


class _LosesTheRace:
    """A connection whose first look at the schema version is followed at once by another process
    creating the schema (the interleaving that made one of two first records fail)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_raced", False)

    def execute(self, sql: str, *args: object) -> object:
        cursor = self._conn.execute(sql, *args)
        if sql.strip() != "PRAGMA user_version" or self._raced:
            return cursor
        rows = cursor.fetchall()  # our look is over (its read lock released) ...
        object.__setattr__(self, "_raced", True)
        from ragauge.history.store import _prepare

        other = sqlite3.connect(self._path)  # ... when the other process makes the schema
        _prepare(other, self._path, True)
        other.close()
        return type("Rows", (), {"fetchone": lambda _self: rows[0]})()

    def __enter__(self) -> object:
        return self._conn.__enter__()

    def __exit__(self, *exc: object) -> object:
        return self._conn.__exit__(*exc)

    def __getattr__(self, name: str) -> object:
        return getattr(self._conn, name)

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self._conn, name, value)


def test_the_loser_of_a_schema_race_finds_the_schema_made(tmp_path: Path) -> None:
    from ragauge.history.store import SCHEMA_VERSION, _prepare

    path = tmp_path / "history.db"
    conn = sqlite3.connect(path)
    _prepare(_LosesTheRace(conn, path), path, True)  # type: ignore[arg-type]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
