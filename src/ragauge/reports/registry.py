"""Every report renderer, keyed by result kind and format: the one table each command's ``--format``
choices and ``ragauge.render`` read. A new format is one renderer function and one line here.

Renderers are named ``module:function`` and imported when asked for (the HTML ones bring Jinja2),
so reading the formats at ``--help`` time imports nothing. A renderer takes the result and, as
keywords, only the options it declares; ``render`` passes each renderer the options it accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from ragauge.errors import InputError

JSON = "ragauge.reports.registry:as_json"

RENDERERS: dict[str, dict[str, str]] = {
    "evaluation": {
        "text": "ragauge.reports.text:render_text",
        "json": "ragauge.reports.json:render_json",
        "markdown": "ragauge.reports.markdown:render_markdown",
        "html": "ragauge.reports.html:render_html",
        "junit": "ragauge.reports.junit:render_junit",
    },
    "comparison": {
        "text": "ragauge.reports.comparison:render_comparison_text",
        "json": JSON,
        "markdown": "ragauge.reports.comparison:render_comparison_markdown",
        "html": "ragauge.reports.comparison:render_comparison_html",
    },
    "sequential": {
        "text": "ragauge.reports.sequential:render_sequential_text",
        "json": JSON,
        "markdown": "ragauge.reports.sequential:render_sequential_markdown",
    },
    "gate": {
        "text": "ragauge.reports.gate:render_gate_text",
        "json": JSON,
        "markdown": "ragauge.reports.gate:render_gate_markdown",
        "junit": "ragauge.reports.gate:render_gate_junit",
    },
    "power": {
        "text": "ragauge.reports.power:render_power_text",
        "json": JSON,
        "markdown": "ragauge.reports.power:render_power_markdown",
    },
    "sweep": {
        "text": "ragauge.reports.sweep:render_text",
        "json": JSON,
        "markdown": "ragauge.reports.sweep:render_markdown",
        "html": "ragauge.reports.sweep_html:render_html",
    },
    "validation": {"text": "ragauge.reports.validation:render_validation_text", "json": JSON},
    "pool": {"text": "ragauge.reports.pool:render_pool_text", "json": JSON},
    "agreement": {"text": "ragauge.reports.agreement:render_stats_text", "json": JSON},
    "history": {
        "text": "ragauge.reports.history_text:render_history_text",
        "json": JSON,
        "html": "ragauge.reports.history_html:render_history_html",
    },
    "attribution": {
        "text": "ragauge.reports.attribution:render_attribution_text",
        "json": "ragauge.reports.attribution:render_attribution_json",
        "markdown": "ragauge.reports.attribution:render_attribution_markdown",
    },
}
"""kind -> format -> ``module:function``; the first format of each kind is its default."""

KINDS: dict[str, str] = {
    "Evaluation": "evaluation", "Comparison": "comparison", "SequentialComparison": "sequential",
    "GateResult": "gate", "PowerReport": "power", "SweepResult": "sweep", "Attribution": "attribution",
    "ValidationReport": "validation", "PoolResult": "pool", "JudgeStats": "agreement", "HistoryView": "history",
}
"""The class name of each result type -> its kind."""


def as_json(result: Any) -> str:
    """``result.to_dict()`` as indented JSON: the JSON report of every result that has no own renderer."""
    from ragauge.core.jsonl import dumps

    return dumps(result.to_dict(), indent=2) + "\n"


def formats(kind: str) -> tuple[str, ...]:
    """The formats ``kind`` renders to, its default first."""
    return tuple(RENDERERS[kind])


def kind_of(result: Any) -> str:
    """The kind of a result object (InputError for an object no renderer takes)."""
    for cls in type(result).__mro__:
        if cls.__name__ in KINDS:
            return KINDS[cls.__name__]
    raise InputError(f"no report renders a {type(result).__name__}",
                     hint="render one of: " + ", ".join(KINDS))


def renderer(kind: str, fmt: str) -> Callable[..., str]:
    """The function rendering ``kind`` as ``fmt``; InputError naming the formats there are."""
    table = RENDERERS[kind]
    if fmt not in table:
        raise InputError(f"unknown report format {fmt!r}", hint=f"use one of: {', '.join(table)}")
    module, _, name = table[fmt].partition(":")
    found: Callable[..., str] = getattr(import_module(module), name)
    return found


def render(kind: str, result: Any, fmt: str, **options: Any) -> str:
    """``result`` (of ``kind``) as ``fmt``, each option passed only to a renderer that declares it."""
    import inspect  # not at import time: ``--help`` reads the formats from here

    function = renderer(kind, fmt)
    accepted = inspect.signature(function).parameters
    return function(result, **{name: value for name, value in options.items() if name in accepted})
