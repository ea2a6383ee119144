"""The JSON report: the Evaluation's versioned dict."""

from __future__ import annotations

import json

from ragauge.evaluation.result import Evaluation


def render_json(evaluation: Evaluation) -> str:
    return json.dumps(evaluation.to_dict(), indent=2, ensure_ascii=False) + "\n"
