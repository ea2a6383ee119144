"""The JSON report: the Evaluation's versioned dict, one question per line.

Top-level keys and each question on a line of their own, so the file stays readable and
diffable; each value compact (:func:`ragauge.core.jsonl.compact`, orjson when installed), so a
7,000-question result with 20 documents a question is encoded in a few hundredths of a second.
Strings are UTF-8 text, but for what :func:`ragauge.core.jsonl.dumps` writes as ``\\u`` escapes
(lone surrogates, C1 and bidi controls), so the file always encodes and prints safely, and parses
back to the same result.

:func:`json_parts` gives the text piece by piece, a batch of questions at a time, so that a
result of any size is written without its whole text (or every row at once) in memory.
"""

from __future__ import annotations

from collections.abc import Iterator

from ragauge.core.jsonl import compact
from ragauge.evaluation.result import Evaluation

BATCH = 2048
"""Questions encoded into one piece of :func:`json_parts`."""


def render_json(evaluation: Evaluation) -> str:
    return "".join(json_parts(evaluation))


def json_parts(evaluation: Evaluation, batch: int = BATCH) -> Iterator[str]:
    """The text of :func:`render_json` in pieces (about ``batch`` questions each): joined, the same
    text, byte for byte."""
    sep = "{\n"
    for key, value in evaluation.to_dict(rows=False).items():
        if key == "queries" and evaluation.queries:
            lead = f"{sep}  {compact(key)}: [\n    "
            lines: list[str] = []
            for row in evaluation.query_dicts():
                lines.append(compact(row))
                if len(lines) == batch:
                    yield lead + ",\n    ".join(lines)
                    lead, lines = ",\n    ", []
            yield lead + ",\n    ".join(lines) + "\n  ]" if lines else "\n  ]"
        else:
            yield f"{sep}  {compact(key)}: {compact([] if key == 'queries' else value)}"
        sep = ",\n"
    yield "\n}\n"
