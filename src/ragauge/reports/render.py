"""One entry point for every report: ``render(evaluation, fmt, **options) -> str``.

Commands call only this. Each renderer is imported when asked for (the HTML one brings Jinja2).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError

if TYPE_CHECKING:  # not at import time: ``ragauge --help`` reads FORMATS from here
    from ragauge.evaluation.result import Evaluation

FORMATS = ("text", "json", "markdown", "html", "junit")
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
    if fmt == "text":
        from ragauge.reports.text import render_text

        return render_text(evaluation, worst, color=bool(options.get("color", False)), width=options.get("width"))
    if fmt == "json":
        from ragauge.reports.json import render_json

        return render_json(evaluation)
    if fmt == "markdown":
        from ragauge.reports.markdown import render_markdown

        return render_markdown(evaluation, worst)
    if fmt == "html":
        from ragauge.reports.html import render_html

        return render_html(evaluation)
    if fmt == "junit":
        from ragauge.reports.junit import render_junit

        return render_junit(evaluation)
    raise InputError(f"unknown report format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}")


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
    worst = int(options.get("worst", 15))
    if worst < 0:
        raise InputError("--worst must be zero or a positive number of questions")
    return worst
