"""The one Jinja2 environment every HTML page uses (the reports, the history, the judging page), and
JSON safe inside its ``<script>`` elements.

Autoescape is on for every template, undefined names raise, and :func:`ragauge.core.escape.html`
is the ``finalize`` hook, so no printed string carries a control character, a bidi control or a
lone surrogate (which would make the page impossible to encode). Templates and the shared CSS and
script come from ``ragauge/reports/templates``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragauge.core.jsonl import dumps

if TYPE_CHECKING:
    import jinja2


def environment(what: str = "the HTML report") -> jinja2.Environment:
    """A fresh environment with the package's template loader. ``what`` names the report in the
    hint when Jinja2 is missing (a core dependency; a broken install gets a hint, not a traceback)."""
    try:
        import jinja2
    except ImportError:
        from ragauge.errors import RagaugeError

        raise RagaugeError(f"{what} needs Jinja2, which is not installed",
                           hint="pip install jinja2 (ragauge depends on it: reinstall ragauge)") from None
    from ragauge.core.escape import html

    return jinja2.Environment(loader=jinja2.PackageLoader("ragauge.reports", "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              finalize=html)


def static_file(env: jinja2.Environment, name: str) -> str:
    """The raw text of a file in the templates folder (CSS, script), unrendered."""
    loader = env.loader
    if loader is None:  # pragma: no cover - environment() always sets one
        raise LookupError("the environment has no loader")
    return loader.get_source(env, name)[0]


def script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` characters at all
    (so no ``</script>`` or ``<!--``), each written as its ``\\u`` escape, which JSON.parse reads back;
    lone surrogates and the other characters :func:`ragauge.core.jsonl.dumps` escapes likewise."""
    text = dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
