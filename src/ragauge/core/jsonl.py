"""Reading JSON and JSON Lines with errors that name the file and line.

One strict decoder serves every JSON ragauge reads: ``NaN``, ``Infinity`` and numbers that
overflow a float (``1e400``) are refused, and so are strings holding a lone UTF-16 surrogate
(``"\\ud800"``), which no UTF-8 output can carry.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from ragauge.core.files import decode_utf8, line_blocks, read_input
from ragauge.errors import InputError, where

_HINTS = {
    "utf8": "save the {what} file as UTF-8",
    "json": "each line must be one complete JSON object",
    "object": 'each line must look like {{"id": ..., ...}}',
    "number": "write numbers as finite JSON numbers (NaN and Infinity are not JSON)",
    "surrogate": "remove the lone \\ud800-\\udfff escape; write characters as UTF-8 or as a valid surrogate pair",
}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _BadValue(ValueError):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _constant(name: str) -> float:
    raise _BadValue("number", f"{name} is not a finite number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadValue("number", f"number {text} is too large for a float")
    return value


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_float)
_FAST = json.JSONDecoder(parse_constant=_constant)
"""For JSONL lines, which can hold millions of scores: a Python call per float would make reading a
run ~2.7x slower, so an overflowing number (``1e400``) decodes to inf here and is refused by the
number check of the field it sits in (``core.numbers.check_number``)."""


def _has_lone_surrogate(obj: Any) -> bool:
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(obj, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in obj.items())
    if isinstance(obj, list):
        return any(_has_lone_surrogate(v) for v in obj)
    return False


def loads(text: str | bytes, *, fast: bool = False) -> Any:
    """Decode one JSON document strictly; ValueError (with ``.kind`` "utf8", "json", "number" or
    "surrogate" and a message) when it is not UTF-8 or not valid JSON, has a non-finite number
    or a lone surrogate. ``fast`` skips the per-float overflow check (see ``_FAST``).

    orjson (about five times faster) decodes it when it is installed and agrees: it refuses
    everything refused here, and what it refuses, or any document with a run of 19 or more digits
    (an integer beyond 64 bits, which orjson would read as a float), is decoded by the standard
    library below, which gives the value or the error."""
    fast_loads = _orjson_loads()
    if fast_loads is not None:
        try:
            data = text if isinstance(text, bytes) else text.encode("utf-8")
            obj = fast_loads(data)
        except (ValueError, UnicodeEncodeError):  # orjson.JSONDecodeError, or a lone surrogate in text
            pass
        else:
            if _LONG_DIGITS not in data.translate(_DIGITS):
                return obj
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _BadValue("utf8", f"not valid UTF-8 (byte {exc.start + 1})") from None
    try:
        obj = (_FAST if fast else _DECODER).decode(text)
    except _BadValue:
        raise
    except json.JSONDecodeError as exc:
        raise _BadValue("json", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise _BadValue("json", "JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise _BadValue("number", str(exc)) from None
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(obj):
        raise _BadValue("surrogate", "a string holds a lone UTF-16 surrogate escape")
    return obj


_DIGITS = bytes(ord("0") if chr(c).isdigit() and c < 128 else ord(" ") for c in range(256))
_LONG_DIGITS = b"0" * 19
"""A run of 19 digits, found as ``_LONG_DIGITS in data.translate(_DIGITS)`` (every digit made 0,
everything else a space): ten times quicker than a regular expression."""


@cache
def _orjson_loads() -> Callable[[str | bytes], Any] | None:
    try:
        import orjson
    except ImportError:
        return None
    return orjson.loads


def decode_lines(path: str | Path, *, what: str) -> Iterator[tuple[int, dict[str, Any] | tuple[str, str]]]:
    """Yield ``(line_number, object)`` for each non-blank line, or ``(line_number, (kind, message))``
    for a line that is not valid UTF-8 (kind "utf8"), not JSON ("json"), not a JSON object
    ("object"), holds a non-finite number ("number") or a lone surrogate ("surrogate"). A UTF-8
    BOM and blank lines are accepted; a missing file is an InputError."""
    for block, first in line_blocks(path, what):
        yield from _decode_block(block, first)


def _decode_block(raw: bytes, first: int) -> Iterator[tuple[int, dict[str, Any] | tuple[str, str]]]:
    for number, line in enumerate(raw.split(b"\n"), start=first):
        if not line.strip():
            continue
        try:
            obj = loads(line, fast=True)
        except _BadValue as exc:
            message = str(exc).replace(" at line 1 column", " at column")
            yield number, (exc.kind, message)
            continue
        if isinstance(obj, dict):
            yield number, obj
        else:
            yield number, ("object", f"expected a JSON object, got {type(obj).__name__}")


def read_jsonl(path: str | Path, *, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file.

    A UTF-8 BOM and blank lines are accepted. Raises InputError naming ``path:line`` for
    unreadable files, invalid UTF-8, invalid JSON, non-finite numbers, lone surrogates and lines
    that are not JSON objects.
    """
    for number, obj in decode_lines(path, what=what):
        if isinstance(obj, tuple):
            kind, message = obj
            raise InputError(message, where=where(path, number), hint=_HINTS[kind].format(what=what))
        yield number, obj


def read_json(path: str | Path, *, what: str, hint: str | None = None) -> Any:
    """The JSON document in ``path``, decoded as strictly as a JSONL line; InputError naming the
    file (and line where known) otherwise, with ``hint`` for a file that is not JSON at all."""
    text = decode_utf8(read_input(path, what), path, what)
    try:
        return loads(text)
    except _BadValue as exc:
        found = re.search(r" at line (\d+) column (\d+)", str(exc))
        line = int(found.group(1)) if found else _line_of_bad_number(text) if exc.kind == "number" else None
        message = str(exc).replace(found.group(0), f" at column {found.group(2)}") if found else str(exc)
        if exc.kind == "json":
            message = f"not valid JSON: {message.removeprefix('invalid JSON ')}"
            hint = hint or f"the {what} file must be one JSON document"
        raise InputError(f"{what} file: {message}", where=where(path, line),
                         hint=hint if exc.kind == "json" else _HINTS[exc.kind].format(what=what)) from None


def read_records(path: str | Path, *, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_number, object)`` for each record of a JSON Lines file, or of a file holding one JSON
    array of objects (the line where each element starts), as other tools save lists of samples.
    Decoded as strictly as :func:`read_jsonl` and :func:`read_json`; InputError naming the line of
    an element that is not an object."""
    raw = read_input(path, what)
    if raw.lstrip()[:1] != b"[":
        yield from read_jsonl(path, what=what)
        return
    items = read_json(path, what=what)
    text = raw.decode("utf-8")  # read_json decoded it already
    decoder = json.JSONDecoder()
    at = text.index("[") + 1
    line, counted = 1, 0  # the line at offset ``counted``: each element counts on from the last
    for item in items:
        while text[at] in " \t\r\n,":
            at += 1
        line += text.count("\n", counted, at)
        counted = at
        if not isinstance(item, dict):
            raise InputError(f"expected a JSON object, got {type(item).__name__}", where=where(path, line),
                             hint=_HINTS["object"].format(what=what))
        _, at = decoder.raw_decode(text, at)
        yield line, item


def _line_of_bad_number(text: str) -> int | None:
    for number, line in enumerate(text.split("\n"), start=1):
        if re.search(r"(?<![\w\"])-?(NaN|Infinity)\b|\d[eE]\+?\d{3,}", line):
            return number
    return None


def finite_or_none(value: Any) -> Any:
    """``value`` with every NaN and infinity (at any depth) replaced by None: what JSON can hold
    of a number that does not exist, such as the mean over no questions."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_none(v) for v in value]
    return value


_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff]")


def to_jsonl(rows: Iterable[Any]) -> str:
    """JSON Lines text: each row through :func:`dumps`, one a line."""
    return "".join(dumps(row) + "\n" for row in rows)


def dumps(value: Any, *, indent: int | None = None, separators: tuple[str, str] | None = None) -> str:
    """The one JSON encoder for everything ragauge writes (run files, baselines, history, reports).

    UTF-8 text rather than ASCII escapes, except DEL, C1 controls, bidi controls, U+2028/U+2029
    and lone surrogates, which are written as ``\\u`` escapes, so the text always encodes, prints
    safely on a terminal, and parses back equal. Never ``NaN``/``Infinity`` (written as null)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators)
    except ValueError:
        text = json.dumps(finite_or_none(value), ensure_ascii=False, allow_nan=False, indent=indent,
                          separators=separators)
    return safe(text)


def safe(text: str) -> str:
    """JSON text with the characters :func:`dumps` escapes (DEL, C1 and bidi controls, U+2028,
    U+2029, lone surrogates) written as ``\\u`` escapes: for JSON text assembled by hand."""
    if text.isascii() and "\x7f" not in text:  # nothing to escape; far quicker than the search
        return text
    return _UNSAFE.sub(_escape, text)


def compact(value: Any) -> str:
    """:func:`dumps` with the separators ``,`` and ``:`` and no spaces: the same text, character for
    character, whether or not orjson is installed.

    orjson (about ten times faster on a large report) writes it when it can produce exactly that
    text; the standard library writes it otherwise: for values that are not plain JSON data (dict
    with string keys, list, tuple, str, int, float, bool, None), lone surrogates, integers beyond
    64 bits, and numbers below 1e-4 in magnitude, which orjson spells differently
    (``0.00001``, ``1.5e-7`` where Python writes ``1e-05``, ``1.5e-07``). Give it JSON data: orjson
    also writes enums and UUIDs, which the standard library refuses."""
    fast = _orjson()
    if fast is not None:
        encode, option = fast
        try:
            data = encode(value, option=option)
        except TypeError:  # orjson.JSONEncodeError: not plain JSON data, or beyond what orjson writes
            pass
        else:
            if b"0.0000" not in data and not _ONE_DIGIT_EXPONENT.search(data):
                return safe(data.decode("utf-8"))
    return dumps(value, separators=(",", ":"))


_ONE_DIGIT_EXPONENT = re.compile(rb"e-\d(?!\d)")
"""With ``0.0000``, where orjson's number text can differ from Python's ``repr``: both write the
shortest digits that read back to the same float, but below 1e-4 orjson writes ``0.0000d`` or a
one-digit exponent (``e-7``). A match inside a string only costs a fallback to the standard
library. (Two searches: a regex alternation of both scans several times slower.)"""


@cache
def _orjson() -> tuple[Callable[..., bytes], int] | None:
    """orjson's encoder and the options that make it refuse (rather than convert) what the standard
    library would not write the same way; None when orjson is not installed."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.dumps, (orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
                          | orjson.OPT_PASSTHROUGH_SUBCLASS)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"
