"""The history over time: series per metric (overall and by tag), event markers, flips between two
points, the JSON form and the view the reports render (``reports.history_text``,
``reports.history_html``). Pure functions over ``Entry`` values; no files, no clock."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragauge.errors import InputError
from ragauge.history.model import Entry

HISTORY_JSON_VERSION = 1
BLOCKS = "▁▂▃▄▅▆▇█"
MISSING = "·"
BREAK = "|"
"""Drawn in a trend where the golden set or the contract changed: the values on either side are not
comparable, and no Δ is computed across it."""
LABEL_MARK, GOLDEN_MARK, CONTRACT_MARK, SHRUNK_MARK, BOTH_MARK = "L", "G", "C", "S", "*"
MIN_SPAN = 0.1
"""The smallest range a trend is drawn over, so that a 0.01 change does not look like a full swing."""


@dataclass(frozen=True)
class Point:
    entry_id: int | None
    recorded_at: str
    value: float | None
    n: int | None = None


@dataclass(frozen=True)
class Series:
    """One metric over time, overall (``tag`` None) or for one tag; a point per entry, None where the
    entry has no such value."""

    metric: str
    tag: str | None
    points: tuple[Point, ...]

    @property
    def values(self) -> list[float | None]:
        return [p.value for p in self.points]

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "tag": self.tag,
                "points": [{"entry": p.entry_id, "recorded_at": p.recorded_at, "value": p.value, "n": p.n}
                           for p in self.points]}


@dataclass(frozen=True)
class Marker:
    """What happened at an entry: a label (a re-index, say), whether the golden set changed (its
    hash differs from the previous entry's), which contract fields changed (``contract_changed``),
    and whether fewer questions were answerable than at the previous entry (``shrunk``: stale labels
    dropped, say). A golden-set or contract change is a ``breaks``: values across it are not
    comparable."""

    entry_id: int | None
    label: str | None
    golden_changed: bool
    contract_changed: tuple[str, ...] = ()
    shrunk: bool = False

    @property
    def breaks(self) -> bool:
        return self.golden_changed or bool(self.contract_changed)

    @property
    def mark(self) -> str:
        marks = [m for m, on in ((LABEL_MARK, bool(self.label)), (GOLDEN_MARK, self.golden_changed),
                                 (CONTRACT_MARK, bool(self.contract_changed)), (SHRUNK_MARK, self.shrunk)) if on]
        return BOTH_MARK if len(marks) > 1 else marks[0] if marks else " "


def markers(entries: Sequence[Entry]) -> list[Marker]:
    """One marker per entry, in order; the first entry never counts as a change."""
    from ragauge.evaluation.options import contract_differences

    out = []
    for i, e in enumerate(entries):
        before = entries[i - 1] if i > 0 else None
        changed = tuple(contract_differences(before.contract, e.contract)) if before is not None else ()
        n, m = (e.counts.get("answerable"), before.counts.get("answerable")) if before is not None else (None, None)
        shrunk = isinstance(n, int) and isinstance(m, int) and n < m
        out.append(Marker(e.id, e.label, before is not None and e.golden_hash != before.golden_hash, changed, shrunk))
    return out


def canonical_metrics(names: Sequence[str] | None) -> list[str] | None:
    """``["Recall@5"]`` -> ``["recall@5"]`` (None stays None)."""
    if not names:
        return None
    from ragauge.metrics.spec import parse_metrics

    return [str(s) for s in parse_metrics(list(names))]


def build_series(entries: Sequence[Entry], metrics: Sequence[str] | None = None,
                 tags: Sequence[str] | None = None) -> list[Series]:
    """For each metric (every one recorded, in first-seen order, or those asked for): the overall
    series, then one per tag (every tag recorded, by name, or those asked for).

    Raises InputError for a metric or tag that no entry has, naming those that exist.
    """
    known = list(dict.fromkeys(m for e in entries for m in e.metrics))
    known_tags = sorted({t for e in entries for t in e.by_tag})
    wanted = canonical_metrics(metrics) or known
    for m in wanted:
        if m not in known:
            raise InputError(f"no recorded evaluation has {m}", hint=f"recorded metrics: {', '.join(known) or 'none'}")
    for name in tags or ():
        if name not in known_tags:
            raise InputError(f"no recorded evaluation has the tag {name!r}",
                             hint=f"recorded tags: {', '.join(known_tags) or 'none'}")
    scopes: list[str | None] = [None, *(tags if tags else known_tags)]
    out = []
    for m in wanted:
        for tag in scopes:
            points = []
            for e in entries:
                if tag is None:
                    points.append(Point(e.id, e.recorded_at, e.summary.get(m), e.counts.get("answerable")))
                else:
                    row = e.by_tag.get(tag, {})
                    n = row.get("n")
                    points.append(Point(e.id, e.recorded_at, row.get(m), None if n is None else int(n)))
            if tag is None or any(p.value is not None for p in points):
                out.append(Series(m, tag, tuple(points)))
    return out


def scale(series: Sequence[Series]) -> tuple[float, float]:
    """The range every trend of one rendering is drawn over: the lowest to the highest value of all
    of them, widened to at least ``MIN_SPAN`` (shared, so rows compare and a small change looks small)."""
    return span(v for s in series for v in s.values)


def span(values: Iterable[float | None]) -> tuple[float, float]:
    """The lowest to the highest value present, widened to at least ``MIN_SPAN``; (0, 1) for none."""
    present = [v for v in values if v is not None]
    if not present:
        return (0.0, 1.0)
    lo, hi = min(present), max(present)
    if hi - lo < MIN_SPAN:
        middle = (lo + hi) / 2.0
        lo, hi = middle - MIN_SPAN / 2.0, middle + MIN_SPAN / 2.0
    return (lo, hi)


def last_delta(values: Sequence[float | None], breaks: Sequence[bool]) -> float | None:
    """The change between the last two values, None when one is missing or the last entry breaks
    the series (another golden set or contract: the values are not comparable)."""
    if len(values) < 2 or values[-1] is None or values[-2] is None or (breaks and breaks[-1]):
        return None
    return values[-1] - values[-2]


def resolve_entry(entries: Sequence[Entry], ref: str) -> Entry:
    """An entry by id (``3`` or ``#3``), or ``last``, ``prev`` (the one before last), ``first``."""
    if not entries:
        raise InputError("the history is empty", hint="record an evaluation: ragauge eval ... --record")
    text = ref.strip().lower().lstrip("#")
    named = {"last": -1, "latest": -1, "prev": -2, "previous": -2, "first": 0}
    if text in named:
        index = named[text]
        if len(entries) < (2 if index == -2 else 1):
            raise InputError(f"'{ref}' needs at least two recorded evaluations")
        return entries[index]
    if text.isdigit():
        for e in entries:
            if e.id == int(text):
                return e
    ids = ", ".join(str(e.id) for e in entries[-10:])
    raise InputError(f"no recorded evaluation {ref!r}", hint=f"use an id ({ids}) or last, prev, first")


@dataclass(frozen=True)
class Flip:
    id: str
    query: str
    tags: tuple[str, ...]
    before: float
    after: float
    rank_before: int | None
    rank_after: int | None


@dataclass(frozen=True)
class Flips:
    """Questions whose ``metric`` crossed zero between entries ``a`` and ``b``: ``lost`` went from a value
    above zero to zero (for hit@k: hit -> miss), ``gained`` the other way."""

    metric: str
    a: int | None
    b: int | None
    lost: tuple[Flip, ...]
    gained: tuple[Flip, ...]
    compared: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        def rows(flips: tuple[Flip, ...]) -> list[dict[str, Any]]:
            return [{"id": f.id, "query": f.query, "tags": list(f.tags), "before": f.before, "after": f.after,
                     "rank_before": f.rank_before, "rank_after": f.rank_after} for f in flips]
        return {"metric": self.metric, "a": self.a, "b": self.b, "compared": self.compared,
                "lost": rows(self.lost), "gained": rows(self.gained), "only_a": list(self.only_a),
                "only_b": list(self.only_b)}


def flip_metric(a: Entry, b: Entry, metric: str | None = None) -> str:
    """The metric flips are read on: ``metric`` when given, else the hit@k with the largest k that both
    entries have, else the first metric of ``a`` that ``b`` has too."""
    common = [m for m in a.metrics if m in b.metrics]
    if metric is not None:
        name = (canonical_metrics([metric]) or [metric])[0]
        if name not in common:
            raise InputError(f"{name} is not recorded in both evaluations",
                             hint=f"in both: {', '.join(common) or 'none'}")
        return name
    from ragauge.metrics.spec import parse_metric

    hits = [(parse_metric(m).k or 0, m) for m in common if m.startswith("hit@")]
    if hits:
        return max(hits)[1]
    if not common:
        raise InputError(f"evaluations {a.id} and {b.id} share no metric")
    return common[0]


def find_flips(a: Entry, b: Entry, metric: str | None = None) -> Flips:
    """The questions that flipped between ``a`` and ``b`` (both with their ``questions`` loaded), in ``a``'s
    order; questions in only one of them are listed apart."""
    name = flip_metric(a, b, metric)
    qa = {q.id: q for q in a.questions}
    qb = {q.id: q for q in b.questions}
    lost: list[Flip] = []
    gained: list[Flip] = []
    for qid, before in qa.items():
        after = qb.get(qid)
        if after is None or name not in before.values or name not in after.values:
            continue
        v0, v1 = before.values[name], after.values[name]
        if (v0 > 0) != (v1 > 0):
            flip = Flip(qid, after.query, after.tags, v0, v1, before.first_relevant_rank, after.first_relevant_rank)
            (lost if v0 > 0 else gained).append(flip)
    return Flips(name, a.id, b.id, tuple(lost), tuple(gained), len(qa.keys() & qb.keys()),
                 tuple(q for q in qa if q not in qb), tuple(q for q in qb if q not in qa))


# --- renderings --------------------------------------------------------------------------------------

def history_json(entries: Sequence[Entry], marks: Sequence[Marker], series: Sequence[Series],
                 flip: Flips | None = None) -> dict[str, Any]:
    """The raw series with the entries (without per-question rows), their markers and the flips."""
    out: dict[str, Any] = {
        "ragauge_history": HISTORY_JSON_VERSION,
        "entries": [{**e.to_dict(), "golden_changed": m.golden_changed, "contract_changed": list(m.contract_changed),
                     "shrunk": m.shrunk, "breaks": m.breaks} for e, m in zip(entries, marks)],
        "series": [s.to_dict() for s in series],
    }
    if flip is not None:
        out["flips"] = flip.to_dict()
    return out


@dataclass(frozen=True)
class HistoryView:
    """What a history report shows: the entries (cut to the last N as asked), their markers, the
    series drawn, the flips between two entries when asked, and the history file's name. Rendered by
    ``reports.registry`` (kind "history"); ``to_dict`` is the JSON report."""

    entries: Sequence[Entry]
    marks: Sequence[Marker]
    series: Sequence[Series]
    flips: Flips | None = None
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return history_json(self.entries, self.marks, self.series, self.flips)
