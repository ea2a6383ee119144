"""A real PostgreSQL with pgvector for the adapter tests.

``pg_dsn`` is $RAGAUGE_TEST_PG_DSN when set (``.ci/run`` exports it); otherwise the fixture runs
``.ci/start-postgres`` (which installs and starts a throwaway server when run as root, or reuses
one already running) and takes the DSN from its last line. When no server can be had the tests
SKIP with the reason, except in CI ($CI set), where they FAIL: CI must never skip them quietly.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

START_SCRIPT = Path(__file__).parents[2] / ".ci" / "start-postgres"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL with pgvector is required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def _start_server() -> str:
    """The DSN printed by .ci/start-postgres, or a reason it could not start."""
    try:
        done = subprocess.run(["bash", str(START_SCRIPT)], capture_output=True, text=True, timeout=900,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        _unavailable(f"{START_SCRIPT.name} could not run: {exc}")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        _unavailable(f"no PostgreSQL with pgvector: set RAGAUGE_TEST_PG_DSN, or run .ci/start-postgres as root "
                     f"({START_SCRIPT.name} exited {done.returncode}: {tail})")
    return lines[-1].strip()


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    """A DSN whose database has the vector extension; its role may create tables and databases."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed: pip install 'ragauge[pgvector]'")
    dsn = os.environ.get("RAGAUGE_TEST_PG_DSN") or _start_server()
    import psycopg

    try:
        with psycopg.connect(dsn, connect_timeout=10) as conn:
            found = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    except psycopg.Error as exc:
        _unavailable(f"cannot connect to {dsn}: {exc}")
    if found is None:
        _unavailable(f"the vector extension is not installed in {dsn}")
    return dsn
