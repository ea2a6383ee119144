"""A ``pgvector:`` spec parsed into the DSN to connect with and ragauge's table settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from ragauge.errors import InputError
from ragauge.retrieve.base import RetrieverOptions, split_spec

COLUMNS = {"table": "chunks", "doc_id": "doc_id", "chunk_id": "chunk_id", "embedding": "embedding"}
OPTIONS = {*COLUMNS, "embedder"}


@dataclass(frozen=True)
class Target:
    """A parsed spec: the DSN to connect with, the same without its password, and the settings."""

    dsn: str
    shown: str
    table: str
    doc_id: str
    chunk_id: str | None
    embedding: str
    embedder: str | None
    chunk_id_given: bool = False
    shown_spec: str = ""


def redact(dsn: str) -> str:
    """``dsn`` without its password (in the user part or a ``password=`` parameter)."""
    parts = urlsplit(dsn)
    if parts.password is not None:
        host, user = parts.netloc.rpartition("@")[2], parts.username or ""
        parts = parts._replace(netloc=f"{user}@{host}" if user else host)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "password"]
    return urlunsplit(parts._replace(query=urlencode(query, safe="/:", quote_via=quote)))


def parse_target(spec: str, options: RetrieverOptions | None = None) -> Target:
    """Split ``spec`` (``pgvector:DSN?...``, or a bare DSN) into the DSN and ragauge's settings;
    settings come from ragauge.toml's ``[retriever.pgvector]``, then ``options.extra``, then the spec."""
    scheme, _, rest = spec.partition(":")
    if scheme != "pgvector":
        rest = spec
    dsn, params = rest.partition("?")[0], split_spec("x:" + rest)[2]
    if not dsn.startswith(("postgresql://", "postgres://")):
        raise InputError(f"pgvector needs a postgresql:// DSN, got {redact(dsn)!r}",
                         hint="e.g. pgvector:postgresql://user@localhost:5432/db?table=chunks")
    settings: dict[str, str] = {}
    config = options.config if options else {}
    section = config.get("pgvector", config) if isinstance(config, Mapping) else {}
    settings.update({k: str(v) for k, v in section.items() if k in OPTIONS})
    settings.update({k: v for k, v in (options.extra if options else {}).items() if k in OPTIONS})
    settings.update({k: v for k, v in params.items() if k in OPTIONS})
    driver = {k: v for k, v in params.items() if k not in OPTIONS}
    if driver:
        dsn += "?" + urlencode(driver, quote_via=quote)  # libpq reads %20 as a space, never "+"
    values = {k: settings.get(k, default) for k, default in COLUMNS.items()}
    for key in ("table", "doc_id", "embedding"):
        if not values[key]:
            raise InputError(f"pgvector option {key!r} must not be empty in {redact(rest)!r}")
    return Target(dsn, redact(dsn), values["table"], values["doc_id"], values["chunk_id"] or None,
                  values["embedding"], settings.get("embedder") or None, "chunk_id" in settings, redact(rest))
