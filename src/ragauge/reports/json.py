"""The JSON report: the Evaluation's versioned dict, one question per line.

Written with the C-accelerated encoder (no ``indent``): top-level keys and each question on a
line of their own, so the file stays readable and diffable and a 7,000-question result is
written in well under a second. Strings are UTF-8 text, but for what
:func:`ragauge.core.jsonl.dumps` writes as ``\\u`` escapes (lone surrogates, C1 and bidi controls),
so the file always encodes and prints safely, and parses back to the same result.
"""

from __future__ import annotations

from ragauge.core.jsonl import dumps as _dump
from ragauge.evaluation.result import Evaluation


def render_json(evaluation: Evaluation) -> str:
    parts = []
    for key, value in evaluation.to_dict().items():
        if key in ("queries",) and isinstance(value, list) and value:
            inner = ",\n".join(f"    {_dump(item)}" for item in value)
            parts.append(f"  {_dump(key)}: [\n{inner}\n  ]")
        else:
            parts.append(f"  {_dump(key)}: {_dump(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
