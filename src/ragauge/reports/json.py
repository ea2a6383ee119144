"""The JSON report: the Evaluation's versioned dict, one question per line.

Top-level keys and each question on a line of their own, so the file stays readable and
diffable; each value compact (:func:`ragauge.core.jsonl.compact`, orjson when installed), so a
7,000-question result with 20 documents a question is encoded in a few hundredths of a second.
Strings are UTF-8 text, but for what :func:`ragauge.core.jsonl.dumps` writes as ``\\u`` escapes
(lone surrogates, C1 and bidi controls), so the file always encodes and prints safely, and parses
back to the same result.
"""

from __future__ import annotations

from ragauge.core.jsonl import compact
from ragauge.evaluation.result import Evaluation


def render_json(evaluation: Evaluation) -> str:
    parts = []
    for key, value in evaluation.to_dict().items():
        if key in ("queries",) and isinstance(value, list) and value:
            inner = ",\n    ".join(map(compact, value))
            parts.append(f"  {compact(key)}: [\n    {inner}\n  ]")
        else:
            parts.append(f"  {compact(key)}: {compact(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
