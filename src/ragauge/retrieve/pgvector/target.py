"""A ``pgvector:`` spec parsed into the DSN to connect with and ragauge's table settings."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from ragauge.errors import InputError
from ragauge.redact import find_secrets, redact, userinfo_password
from ragauge.retrieve.base import RetrieverOptions, split_spec

COLUMNS = {"table": "chunks", "doc_id": "doc_id", "chunk_id": "chunk_id", "embedding": "embedding"}
OPTIONS = {*COLUMNS, "embedder"}


@dataclass(frozen=True)
class Target:
    """A parsed spec: the DSN to connect with, the same with its password hidden (``shown``),
    the settings, and the secret values in the DSN (to hide them in the driver's messages)."""

    dsn: str
    shown: str
    table: str
    doc_id: str
    chunk_id: str | None
    embedding: str
    embedder: str | None
    chunk_id_given: bool = False
    shown_spec: str = ""
    secrets: tuple[str, ...] = ()


def check_password_encoding(dsn: str) -> None:
    """InputError (without the password) when the user part of ``dsn`` holds a character that
    must be percent-encoded: libpq would read the rest as host, port or database and echo it."""
    password = userinfo_password(dsn)
    if password is None:
        return
    if re.search(r"[/?#@]", password):
        raise InputError(f"the password in the DSN {redact(dsn)!r} holds an unencoded '/', '?', '#' or '@'",
                         hint="percent-encode them in the DSN (/ as %2F, ? as %3F, # as %23, @ as %40), "
                              "or set PGPASSWORD instead")
    if re.search(r"%(?![0-9A-Fa-f]{2})", password):
        raise InputError(f"the password in the DSN {redact(dsn)!r} holds a '%' that starts no %XX escape",
                         hint="write a literal % as %25, or set PGPASSWORD instead")


def parse_target(spec: str, options: RetrieverOptions | None = None) -> Target:
    """Split ``spec`` (``pgvector:DSN?...``, or a bare DSN) into the DSN and ragauge's settings;
    settings come from ragauge.toml's ``[retriever.pgvector]``, then ``options.extra``, then the spec."""
    scheme, _, rest = spec.partition(":")
    if scheme != "pgvector":
        rest = spec
    dsn, params = rest.partition("?")[0], split_spec("x:" + rest)[2]
    check_password_encoding(rest)
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
    secrets = tuple(find_secrets(rest))
    return Target(dsn, redact(dsn, secrets), values["table"], values["doc_id"], values["chunk_id"] or None,
                  values["embedding"], settings.get("embedder") or None, "chunk_id" in settings,
                  redact(rest, secrets), secrets)
