"""What a run file records about the run that made it, and the rule that a file holds ONE run:
``--resume`` continues a file only with the same retriever, settings, depth and golden set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragauge.core.jsonl import dumps, loads
from ragauge.errors import InputError, flag
from ragauge.redact import redact, redact_value

IDENTITY: tuple[tuple[str, str | None], ...] = (
    ("retriever", "retriever"), ("settings", "settings"), ("fetch", None), ("golden_hash", "golden set"),
    ("fingerprint", "index fingerprint"), ("shard", None))
"""The ``_meta`` keys that identify a run, with the name a user knows them by (None: the option's,
as the caller spells it: ``errors.flag``)."""


def identity(spec: str, settings: Mapping[str, Any], fingerprint: str | None, golden_hash: str,
             fetch: int) -> dict[str, Any]:
    """The identifying part of ``_meta`` as it is stored: secrets redacted, settings as they
    read back from JSON (tuples become lists), so a stored and a fresh identity compare equal."""
    return {"retriever": redact(spec), "settings": loads(dumps(redact_value(dict(settings)))),
            "fingerprint": fingerprint, "golden_hash": golden_hash, "fetch": fetch}


def differences(stored: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """One line per identifying value that differs, ``what: X in the file, Y now``. A value the
    file does not record (an older ragauge, or an adapter that knows no fingerprint) is not compared."""
    out: list[str] = []
    for key, known_as in IDENTITY:
        label = known_as or flag(key)
        if stored.get(key) is None or now.get(key) is None:
            continue
        if key == "settings" and isinstance(stored[key], Mapping) and isinstance(now[key], Mapping):
            out += _settings_diff(stored[key], now[key], "settings")
        elif stored[key] != now[key]:
            if key == "shard":
                out.append(f"{label}: {_shard(stored[key])} in the file, {_shard(now[key])} now")
            elif key == "golden_hash":
                out.append(f"golden set: the file was made for another golden set ({stored[key]}, now {now[key]})")
            else:
                out.append(f"{label}: {stored[key]!r} in the file, {now[key]!r} now")
    return out


def _shard(record: Any) -> str:
    return f"{record.get('index')}/{record.get('count')}" if isinstance(record, Mapping) else repr(record)


def _settings_diff(old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> list[str]:
    out: list[str] = []
    for key in sorted(set(old) | set(new), key=str):
        where = f"{path}.{key}"
        if key not in old:
            out.append(f"{where}: not in the file, {new[key]!r} now")
        elif key not in new:
            out.append(f"{where}: {old[key]!r} in the file, not set now")
        elif isinstance(old[key], Mapping) and isinstance(new[key], Mapping):
            out += _settings_diff(old[key], new[key], where)
        elif old[key] != new[key]:
            out.append(f"{where}: {old[key]!r} in the file, {new[key]!r} now")
    return out


def check_resumable(stored: Mapping[str, Any], now: Mapping[str, Any], where: str) -> None:
    """InputError naming every difference when the file at ``where`` was made by another run:
    appending would mix two retrievers' answers in one file."""
    if not stored:
        raise InputError("cannot resume: the file has no '_meta' line, so nothing says which retriever made it",
                         where=where, hint="resume only a file written by 'ragauge run', or write a new one with "
                                           + flag("output", cli="-o"))
    diffs = differences(stored, now)
    if diffs:
        raise InputError("cannot resume: the run file was made with a different setup:\n    "
                         + "\n    ".join(diffs), where=where,
                         hint=f"resume with the same {flag('retriever')}, settings, {flag('fetch')} and golden set, "
                              f"or write a new run file with {flag('output', cli='-o')}")
