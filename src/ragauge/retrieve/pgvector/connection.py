"""Connecting to PostgreSQL and turning psycopg's errors into ragauge's (fix it, or retry)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError, MissingExtra, RagaugeError
from ragauge.redact import redact
from ragauge.retrieve.base import RetryableError
from ragauge.retrieve.pgvector.target import Target

if TYPE_CHECKING:
    import psycopg

RETRYABLE_CLASSES = ("08", "40", "53", "57", "58")  # connection, rollback, resources, operator, system


def psycopg_module() -> Any:
    try:
        import psycopg
    except ImportError:
        raise MissingExtra("psycopg", "pgvector", "the pgvector retriever") from None
    return psycopg


def ident(name: str) -> Any:
    """A possibly schema-qualified name as a quoted SQL identifier."""
    from psycopg import sql

    return sql.Identifier(*name.split(".", 1))


def first_line(exc: BaseException, target: Target) -> str:
    """The first line of a driver error, with the DSN's secrets hidden (libpq echoes pieces of a
    DSN it cannot parse)."""
    return redact((str(exc).strip().splitlines() or [type(exc).__name__])[0], target.secrets)


def classify(exc: Exception, target: Target, *, connecting: bool = False) -> Exception:
    """A psycopg error as the error ragauge raises: an InputError the user can fix (names the
    retriever and what to check), or a RetryableError for a transient failure."""
    who = f"pgvector {target.shown}"
    state = getattr(exc, "sqlstate", None) or ""
    text = first_line(exc, target)
    low = text.lower()
    if state in ("28P01", "28000") or "password authentication failed" in low or "no password supplied" in low:
        return InputError(f"{who}: authentication failed ({text})",
                          hint="check the user in the DSN and its password (PGPASSWORD or ~/.pgpass)")
    if state == "3D000" or ("database" in low and "does not exist" in low):
        return InputError(f"{who}: {text}", hint="check the database name at the end of the DSN")
    if state == "42P01":
        return no_table(target)
    if state == "42703":
        return InputError(f"{who}: {text}", hint="name the columns with ?doc_id=&chunk_id=&embedding=")
    if state in ("42704", "42883") and "vector" in low:
        return InputError(f"{who}: the vector extension is missing ({text})",
                          hint="a superuser must run: CREATE EXTENSION vector; in this database")
    if state == "42501":
        return InputError(f"{who}: permission denied ({text})", hint="grant the user SELECT on the table")
    if state == "22000" and "dimensions" in low:
        return InputError(f"{who}: {text}", hint="query with the embedder the table was loaded with (?embedder=)")
    if connecting and not state:
        hint = ("is PostgreSQL running and listening there? check the host and port in the DSN"
                if "refused" in low or "could not connect" in low or "timeout" in low
                else "check the host, port and options of the DSN")
        if "translate host name" in low or "name or service not known" in low:
            hint = "check the host name in the DSN"
        return InputError(f"{who}: cannot connect ({text})", hint=hint)
    if state == "57014":
        return RetryableError(f"{who}: the query ran longer than the timeout (raise --timeout?)")
    if not state or state.startswith(RETRYABLE_CLASSES):
        return RetryableError(f"{who}: {text}")
    return InputError(f"{who}: {text}")


def no_table(target: Target) -> InputError:
    return InputError(f"pgvector {target.shown}: table {target.table!r} does not exist",
                      hint=f"check ?table=; load one with: ragauge index pgvector CORPUS DSN --table {target.table}")


def final_error(error: Exception) -> RagaugeError:
    """Outside a search nothing retries: a transient failure is reported like any other."""
    return error if isinstance(error, RagaugeError) else InputError(str(error))


def connect(target: Target, timeout: float, *, retryable: bool = False) -> psycopg.Connection[Any]:
    """One autocommit connection with ``statement_timeout`` set. Errors become InputError, except
    with ``retryable`` (a worker reconnecting) where an unreachable server is a RetryableError."""
    psycopg = psycopg_module()
    try:
        conn = psycopg.connect(target.dsn, **connect_kwargs(target, timeout))
        configure(conn, timeout)
    except psycopg.Error as exc:
        error = classify(exc, target, connecting=not retryable)
        raise (error if retryable else final_error(error)) from None
    return conn  # type: ignore[no-any-return, unused-ignore]  # typed only where psycopg is installed


def connect_kwargs(target: Target, timeout: float) -> dict[str, Any]:
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(target.dsn)
    kwargs: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in given:
        kwargs["connect_timeout"] = max(2, int(timeout + 0.999))
    if "application_name" not in given:
        kwargs["application_name"] = "ragauge"
    return kwargs


def configure(conn: psycopg.Connection[Any], timeout: float) -> None:
    conn.execute("SELECT set_config('statement_timeout', %s, false)", [f"{max(1, int(timeout * 1000))}ms"])


class Connections:
    """Connections for worker threads: a psycopg_pool pool when installed, else one per thread."""

    def __init__(self, target: Target, timeout: float, size: int, use_pool: bool = True) -> None:
        self.target, self.timeout = target, timeout
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self.pool: Any = None
        try:
            from psycopg_pool import ConnectionPool
        except ImportError:
            use_pool = False
        if not use_pool:
            return
        self.pool = ConnectionPool(target.dsn, kwargs=connect_kwargs(target, timeout), min_size=1, max_size=size,
                                   configure=lambda conn: configure(conn, timeout), timeout=max(timeout, 10.0),
                                   name="ragauge-pgvector", open=True)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        if self.pool is not None:
            with self.pool.connection() as conn:
                yield conn
            return
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            conn = connect(self.target, self.timeout, retryable=True)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        try:
            yield conn
        except Exception:
            if conn.broken or conn.closed:
                self._local.conn = None
            raise

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
