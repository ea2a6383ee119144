"""One entry point for every report: ``render(evaluation, fmt, **options) -> str``.

Commands call only this. Each renderer is imported when asked for (the HTML one brings Jinja2).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError, flag
from ragauge.reports import WORST
from ragauge.reports.registry import formats

if TYPE_CHECKING:  # not at import time: ``ragauge --help`` reads FORMATS from here
    from ragauge.evaluation.result import Evaluation

FORMATS = formats("evaluation")
OPTIONS = {"worst", "color", "width"}


def render(evaluation: Evaluation, fmt: str, **options: Any) -> str:
    """Render ``evaluation`` as ``fmt`` (one of FORMATS).

    Options, each ignored by the formats it does not concern:
      ``worst`` (int, default 15): how many of the worst questions the text and Markdown reports list
        (the HTML table holds every question, worst first);
      ``color`` (bool, default False): ANSI styles in the text report;
      ``width`` (int or None, default None): fit the text report to this many columns.
    """
    worst = _worst(options)
    from ragauge.reports.registry import render as render_kind

    return render_kind("evaluation", evaluation, fmt, worst=worst, color=bool(options.get("color", False)),
                       width=options.get("width"))


def render_parts(evaluation: Evaluation, fmt: str, **options: Any) -> Iterator[str]:
    """:func:`render`'s text in pieces, for writing as they come: the JSON report a batch of
    questions at a time (``reports.json.json_parts``), so that the whole text of a large result
    never sits in memory; any other format in one piece."""
    if fmt == "json":
        from ragauge.reports.json import json_parts

        _worst(options)
        yield from json_parts(evaluation)
    else:
        yield render(evaluation, fmt, **options)


def _worst(options: dict[str, Any]) -> int:
    """The ``worst`` option, after checking every option is known."""
    unknown = set(options) - OPTIONS
    if unknown:
        raise TypeError(f"render() got unknown option(s): {', '.join(sorted(unknown))}")
    worst = int(options.get("worst", WORST))
    if worst < 0:
        raise InputError(f"{flag('worst')} must be zero or a positive number of questions")
    return worst
