"""What a tracker run holds, as a value: parameters, metrics, tags, artifacts and child runs.

Every result kind builds one (``tracking.evaluation``, ``tracking.comparison``, ``tracking.sweep``)
without the tracker; ``tracking.mlflow`` writes it. Parameter and tag values pass through
``ragauge.redact`` here, so no writer can log a password a spec or a URL holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragauge.core.jsonl import dumps
from ragauge.redact import redact
from ragauge.tracking.names import key, value


@dataclass(frozen=True)
class Artifact:
    """A file of the run: its ``name`` among the run's artifacts and its text, made (in pieces)
    only when it is written."""

    name: str
    text: Callable[[], Iterable[str]]


def _no_children() -> Iterator[Record]:
    return iter(())


@dataclass(frozen=True)
class Record:
    """One tracker run. ``kind`` is what was logged (evaluation, comparison, sequential, sweep,
    configuration), ``name`` the run's name (None: the tracker names it). ``children`` makes the
    nested runs one at a time (a sweep's configurations), each logged under this one."""

    kind: str
    name: str | None
    params: dict[str, str]
    metrics: dict[str, float]
    tags: dict[str, str] = field(default_factory=dict)
    artifacts: tuple[Artifact, ...] = ()
    children: Callable[[], Iterator[Record]] = _no_children


def text_of(item: Any) -> str:
    """A parameter's text: a string as it is, anything else as compact JSON (``null``, ``true``,
    ``[1,5,10]``); redacted and cut to the tracker's length."""
    text = item if isinstance(item, str) else dumps(item, separators=(",", ":"))
    return value(redact(text))


def params(prefix: tuple[str, ...], item: Any) -> dict[str, str]:
    """``item`` as parameters under ``prefix``: a mapping is spread one key per entry, nested ones
    with dotted keys (``retriever.settings.k1``); anything else is one parameter (:func:`text_of`)."""
    if isinstance(item, Mapping):
        out: dict[str, str] = {}
        for name, inner in item.items():
            out.update(params((*prefix, str(name)), inner))
        return out
    return {key(*prefix): text_of(item)} if prefix else {}


def number(item: Any) -> float | None:
    """``item`` as a metric value: a number (bools as 0/1; NaN kept: a mean over no question),
    else None (not logged)."""
    if isinstance(item, bool):
        return float(item)
    if isinstance(item, (int, float)):
        return float(item)
    return None


def metrics(prefix: tuple[str, ...], means: Mapping[str, Any], *, specs: bool = True) -> dict[str, float]:
    """The numbers of ``means`` as metrics under ``prefix``: ``{"hit@5": 0.8}`` under ``("tag",
    "billing")`` is ``tag.billing.hit_at_5``. ``specs``: the keys are metric specs (``@`` ->
    ``_at_``); otherwise names (``tracking.names.part``). Entries that are not numbers are left out."""
    out = {}
    for name, item in means.items():
        found = number(item)
        if found is not None:
            out[key(*prefix, metric=name) if specs else key(*prefix, name)] = found
    return out


def description(text: str) -> dict[str, str]:
    """The tag MLflow shows as a run's description (``mlflow.note.content``), redacted; {} for no text."""
    return {"mlflow.note.content": value(redact(text))} if text else {}


def tags(kind: str, **more: str) -> dict[str, str]:
    """The run tags ragauge sets: ``ragauge.kind`` and ``ragauge.version``, plus ``more`` as
    ``ragauge.NAME`` (values redacted)."""
    from ragauge._version import __version__

    found = {"ragauge.kind": kind, "ragauge.version": __version__}
    found.update({f"ragauge.{name}": value(redact(text)) for name, text in more.items()})
    return found


def run_name(text: str | None) -> str | None:
    """A run's name: redacted, at most 250 characters; None stays None."""
    return None if text is None else redact(text)[:250]
