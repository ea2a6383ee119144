"""Reading JSON Lines with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragauge.data.files import read_input
from ragauge.errors import InputError, where


def read_jsonl(path: str | Path, *, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file.

    A UTF-8 BOM and blank lines are accepted. Raises InputError naming ``path:line`` for
    unreadable files, invalid UTF-8, invalid JSON and lines that are not JSON objects.
    """
    path = Path(path)
    raw = read_input(path, what)
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"not valid UTF-8 (byte {exc.start + 1})", where=where(path, number),
                hint=f"save the {what} file as UTF-8",
            ) from None
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON at column {exc.colno}: {exc.msg}", where=where(path, number),
                hint="each line must be one complete JSON object",
            ) from None
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}", where=where(path, number),
                hint='each line must look like {"id": ..., ...}',
            )
        yield number, obj
