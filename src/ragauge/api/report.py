"""``render`` any result in any of its formats, and ``read_result`` to read a saved one back."""

from __future__ import annotations

from typing import Any

from ragauge.evaluation.load import read_result as read_result
from ragauge.reports import DEFAULT_FORMAT
from ragauge.reports.render import render_parts as render_parts

__all__ = ["loud_warnings", "read_result", "render", "render_parts"]


def loud_warnings(result: Any) -> list[str]:
    """The warnings (or notes) of ``result`` that must reach a person even when the report goes to a
    file: those that say a number misleads (``evaluation.diagnose.LOUD``)."""
    from ragauge.core.notes import LOUD

    said = result.warnings if hasattr(result, "warnings") else getattr(result, "notes", ())
    return [w for w in said if w.startswith(LOUD)]


def render(result: Any, fmt: str = DEFAULT_FORMAT, **options: Any) -> str:
    """``result`` (an Evaluation, Comparison, SequentialComparison, GateResult, PowerReport,
    SweepResult or Attribution) as ``fmt``, one of the formats ``reports.registry`` lists for its
    kind. Options reach only the renderers that take them: for an Evaluation ``worst`` (questions
    listed, default 15), ``color`` (ANSI styles in text) and ``width`` (fit text to this many
    columns); an option no renderer of any format takes is a TypeError, as ``reports.render`` says.
    The text of a Comparison and of a SweepResult takes ``color`` and ``width`` too (``reports.fit``:
    a table too wide comes in blocks of its columns, nothing is cut)."""
    from ragauge.reports.registry import kind_of
    from ragauge.reports.registry import render as render_kind

    kind = kind_of(result)
    if kind == "evaluation":
        from ragauge.reports.render import render as render_evaluation

        return render_evaluation(result, fmt, **options)
    return render_kind(kind, result, fmt, **options)
