"""A real PostgreSQL with pgvector for the adapter tests.

``pg_dsn`` is $RAGAUGE_TEST_PG_DSN, which ``.ci/run`` exports after starting a throwaway server
with ``.ci/start-postgres``. Plain ``pytest`` never installs or starts a server: without the
variable the tests SKIP and say how to get one, except in CI ($CI set), where they FAIL: CI must
never skip them quietly.
"""

from __future__ import annotations

import os

import pytest


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL with pgvector is required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    """A DSN whose database has the vector extension; its role may create tables and databases."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed: pip install 'ragauge[pgvector]'")
    dsn = os.environ.get("RAGAUGE_TEST_PG_DSN")
    if not dsn:
        _unavailable("no PostgreSQL with pgvector: set RAGAUGE_TEST_PG_DSN to a DSN, e.g. "
                     "RAGAUGE_TEST_PG_DSN=$(bash .ci/start-postgres), which installs and starts a throwaway server")
        raise AssertionError("unreachable")
    import psycopg

    try:
        with psycopg.connect(dsn, connect_timeout=10) as conn:
            found = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    except psycopg.Error as exc:
        _unavailable(f"cannot connect to {dsn}: {exc}")
    if found is None:
        _unavailable(f"the vector extension is not installed in {dsn}")
    return dsn
