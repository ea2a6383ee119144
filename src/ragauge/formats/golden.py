"""Golden-set files: ragauge's JSONL format, read with file:line errors and written atomically."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ragauge.core.collection import no_cycle_collection
from ragauge.core.files import atomic_writer
from ragauge.core.jsonl import dumps, read_jsonl
from ragauge.data.golden import GoldenQuery, GoldenSet, parse_golden_line
from ragauge.errors import InputError, where


def load_golden(path: str | Path, *, unlabelled: bool = False) -> GoldenSet:
    """Load a golden set from JSONL (the format: docs/reference/inputs.md; its JSON Schema:
    ``ragauge.schemas.schema("golden")``).

    Raises InputError with ``file:line`` for bad JSON, non-objects, missing ``id``/``query``/
    ``relevant``, wrong types and duplicate ids (naming both lines). A line whose ``relevant`` is
    null is an unlabelled question with ``unlabelled`` (where automatic labels stand in for human
    ones), refused without.
    """
    with no_cycle_collection():  # thousands of questions, none in a reference cycle
        return _load_golden(path, unlabelled)


def _load_golden(path: str | Path, unlabelled: bool) -> GoldenSet:
    queries: list[GoldenQuery] = []
    first_line: dict[str, int] = {}
    turns: dict[tuple[str, int], int] = {}
    for number, obj in read_jsonl(path, what="golden set"):
        loc = where(path, number)
        q = parse_golden_line(obj, loc, line=number, unlabelled=unlabelled)
        if q.id in first_line:
            raise InputError(
                f"duplicate question id {q.id!r} (first seen on line {first_line[q.id]})", where=loc,
                hint="give every question a unique id",
            )
        first_line[q.id] = number
        if q.conversation is not None and q.turn is not None:
            key = (q.conversation, q.turn)
            if key in turns:
                raise InputError(f"conversation {q.conversation!r} has turn {q.turn} twice (first on line "
                                 f"{turns[key]})", where=loc, hint="number a conversation's turns 1, 2, 3, ...")
            turns[key] = number
        queries.append(q)
    if not queries:
        raise InputError("the golden set has no questions", where=str(path))
    return GoldenSet(tuple(queries), str(path))


def write_golden(golden: Iterable[GoldenQuery], path: str | Path) -> None:
    """Write questions as JSONL (one object a line, UTF-8), replacing ``path`` atomically."""
    with atomic_writer(path, what="golden set") as fh:
        for q in golden:
            fh.write(dumps(q.to_dict()) + "\n")


def as_golden(value: GoldenSet | str | Path | Iterable[GoldenQuery | Mapping[str, Any]], *,
              unlabelled: bool = False) -> GoldenSet:
    """A GoldenSet from a GoldenSet, a golden-set file's path, or questions as GoldenQuery objects or
    dicts in the file's line format (``{"id", "query", "relevant", "tags"}``), checked like a file
    (``unlabelled``: read ``"relevant": null`` as an unlabelled question, as :func:`load_golden`)."""
    if isinstance(value, GoldenSet):
        return value
    if isinstance(value, (str, Path)):
        return load_golden(value, unlabelled=unlabelled)
    queries = []
    for number, item in enumerate(value, start=1):
        if isinstance(item, GoldenQuery):
            queries.append(item)
        elif isinstance(item, Mapping):
            queries.append(parse_golden_line(item, f"question {number}", unlabelled=unlabelled))
        else:
            raise InputError(f"question {number}: expected a GoldenQuery or a dict, got {type(item).__name__}")
    if not queries:
        raise InputError("the golden set has no questions")
    return GoldenSet.from_queries(queries)
