"""Reading JSON Lines with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragauge.data.files import read_input
from ragauge.errors import InputError, where

_HINTS = {
    "utf8": "save the {what} file as UTF-8",
    "json": "each line must be one complete JSON object",
    "object": 'each line must look like {{"id": ..., ...}}',
}


def decode_lines(path: str | Path, *, what: str) -> Iterator[tuple[int, dict[str, Any] | tuple[str, str]]]:
    """Yield ``(line_number, object)`` for each non-blank line, or ``(line_number, (kind, message))``
    for a line that is not valid UTF-8 (kind "utf8"), not JSON ("json") or not a JSON object
    ("object"). A UTF-8 BOM and blank lines are accepted; a missing file is an InputError."""
    raw = read_input(path, what)
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            yield number, ("utf8", f"not valid UTF-8 (byte {exc.start + 1})")
            continue
        except json.JSONDecodeError as exc:
            yield number, ("json", f"invalid JSON at column {exc.colno}: {exc.msg}")
            continue
        if isinstance(obj, dict):
            yield number, obj
        else:
            yield number, ("object", f"expected a JSON object, got {type(obj).__name__}")


def read_jsonl(path: str | Path, *, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file.

    A UTF-8 BOM and blank lines are accepted. Raises InputError naming ``path:line`` for
    unreadable files, invalid UTF-8, invalid JSON and lines that are not JSON objects.
    """
    for number, obj in decode_lines(path, what=what):
        if isinstance(obj, tuple):
            kind, message = obj
            raise InputError(message, where=where(path, number), hint=_HINTS[kind].format(what=what))
        yield number, obj
