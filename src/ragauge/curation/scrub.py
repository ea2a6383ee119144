"""Redact personal and secret data in golden-set text fields, with a report of what changed.

The core is :func:`scrub_text`: detect (see :mod:`ragauge.curation.detectors`), resolve overlaps
(higher kind first, then the longer span, then the earlier one), and replace each kept span by a
typed, numbered placeholder such as ``<EMAIL_1>``. Within one text, and across a whole file scrubbed
together (one :class:`Numbering`), the same value (by its canonical key: an address in lower case, a
phone number in E.164, a card's digits) always gets the same placeholder, and different values get
different numbers. Placeholders already in the text are
never detected again and their numbers are not reused, so scrubbing is idempotent.

Spans in a :class:`Redaction` are ``[start, end)`` character offsets (Python string indices) into
the *original* text. Neither a redaction nor a report ever carries the original value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from ragauge.curation import NER_MODEL, PHONE_REGIONS, SCRUB_FIELDS
from ragauge.curation.detectors import PRIORITY, Detection, Detector, default_detectors

REPORT_VERSION = 1
PLACEHOLDER = re.compile(r"<(?P<kind>[A-Z]+(?:_[A-Z]+)*)_(?P<n>\d+)>")
"""A placeholder ragauge wrote: ``<KIND_N>``."""


@dataclass(frozen=True)
class Redaction:
    """``original[start:end]`` (a ``kind`` value) became ``placeholder``."""

    kind: str
    placeholder: str
    start: int
    end: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "placeholder": self.placeholder, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class ScrubResult:
    """The scrubbed text and what was replaced (in order of position)."""

    text: str
    redactions: tuple[Redaction, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.redactions)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.redactions:
            out[r.kind] = out.get(r.kind, 0) + 1
        return out


def resolve(detections: Iterable[Detection], protected: Sequence[tuple[int, int]] = ()) -> list[Detection]:
    """Keep non-overlapping detections: by kind priority, then length, then position; drop any that
    touch a ``protected`` span (an existing placeholder). Returned sorted by start."""
    ranked = sorted({d for d in detections if d.end > d.start},
                    key=lambda d: (-PRIORITY.get(d.kind, 0), -(d.end - d.start), d.start, d.kind))
    kept: list[Detection] = []
    taken = list(protected)
    for d in ranked:
        if any(d.start < e and s < d.end for s, e in taken):
            continue
        kept.append(d)
        taken.append((d.start, d.end))
    return sorted(kept, key=lambda d: d.start)


@dataclass
class Numbering:
    """The placeholders given so far: one per (kind, canonical value), numbered per kind. Shared by
    every text of one scrub, so two different addresses in two questions never both become
    ``<EMAIL_1>`` (mutable on purpose: the caller makes one per scrub and passes it in)."""

    numbers: dict[str, int] = field(default_factory=dict)
    assigned: dict[tuple[str, str], str] = field(default_factory=dict)


def apply(text: str, detections: Sequence[Detection], numbering: Numbering | None = None) -> ScrubResult:
    """Replace resolved, non-overlapping ``detections`` (sorted by start) with numbered placeholders
    (from ``numbering``, shared across texts, or numbered for this text alone)."""
    numbering = Numbering() if numbering is None else numbering
    numbers, assigned = numbering.numbers, numbering.assigned
    for m in PLACEHOLDER.finditer(text):
        numbers[m.group("kind")] = max(numbers.get(m.group("kind"), 0), int(m.group("n")))
    parts: list[str] = []
    redactions: list[Redaction] = []
    cursor = 0
    for d in detections:
        placeholder = assigned.get((d.kind, d.key))
        if placeholder is None:
            numbers[d.kind] = numbers.get(d.kind, 0) + 1
            placeholder = assigned[(d.kind, d.key)] = f"<{d.kind}_{numbers[d.kind]}>"
        parts.append(text[cursor:d.start])
        parts.append(placeholder)
        redactions.append(Redaction(d.kind, placeholder, d.start, d.end))
        cursor = d.end
    parts.append(text[cursor:])
    return ScrubResult("".join(parts), tuple(redactions))


def detect(text: str, detectors: Sequence[Detector]) -> list[Detection]:
    """Every detector's findings, resolved (overlaps and existing placeholders removed)."""
    found = [d for detector in detectors for d in detector(text)]
    protected = [m.span() for m in PLACEHOLDER.finditer(text)]
    return resolve(found, protected)


def _to_original(position: int, redactions: Sequence[Redaction]) -> int:
    """Map a position in scrubbed text (outside any placeholder) back to the original text."""
    shift = 0
    for r in redactions:
        if position < r.start - shift + len(r.placeholder):
            break
        shift += (r.end - r.start) - len(r.placeholder)
    return position + shift


def scrub_text(text: str, detectors: Sequence[Detector] | None = None,
               numbering: Numbering | None = None) -> ScrubResult:
    """Redact ``text`` with ``detectors`` (default: every rule-based detector, phone region US).

    Detection is repeated on the scrubbed text until it finds nothing new (a value hidden by an
    overlapping, higher-priority detection can surface once its neighbour became a placeholder),
    so that ``scrub_text(scrub_text(x).text)`` never changes anything.
    """
    use = default_detectors() if detectors is None else detectors
    kept: list[Detection] = []
    result = ScrubResult(text)
    while True:
        new = detect(result.text, use)
        if not new:
            return result
        kept += [Detection(_to_original(d.start, result.redactions), _to_original(d.end, result.redactions),
                           d.kind, d.key) for d in new]
        kept.sort(key=lambda d: d.start)
        result = apply(text, kept, numbering)


@dataclass(frozen=True)
class ScrubOptions:
    """What ``scrub`` looks at: ``fields`` of each line (strings only), phone ``regions``, and whether
    to find person names with the NER extra (``ner_model``: an installed spaCy model)."""

    fields: tuple[str, ...] = SCRUB_FIELDS
    regions: tuple[str, ...] = PHONE_REGIONS
    ner: bool = False
    ner_model: str | None = None

    def detectors(self) -> tuple[Detector, ...]:
        """Build the detectors (the NER model is loaded here, once)."""
        found = default_detectors(self.regions)
        if self.ner:
            from ragauge.curation.ner import person_finder

            found += (person_finder(self.ner_model or NER_MODEL),)
        return found


@dataclass(frozen=True)
class LineReport:
    """What changed in one line: its id (when it has one), line number and redactions by field."""

    id: str | None
    line: int
    fields: Mapping[str, tuple[Redaction, ...]] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for redactions in self.fields.values():
            for r in redactions:
                out[r.kind] = out.get(r.kind, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "line": self.line, "counts": self.counts(),
            "redactions": {name: [r.to_dict() for r in rs] for name, rs in self.fields.items()},
        }


def is_text(value: Any) -> TypeGuard[str | list[str]]:
    """Whether a field's value is what scrubbing reads: a string, or a list of strings (each one)."""
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def scrub_record(obj: Mapping[str, Any], line: int, fields: Sequence[str], detectors: Sequence[Detector],
                 numbering: Numbering | None = None) -> tuple[dict[str, Any], LineReport | None]:
    """Scrub the string ``fields`` of one decoded line (placeholders numbered by ``numbering``,
    shared across the file); other fields are kept as they are."""
    out = dict(obj)
    changed: dict[str, tuple[Redaction, ...]] = {}
    for name in fields:
        value = obj.get(name)
        if isinstance(value, str):
            result = scrub_text(value, detectors, numbering)
            if result.changed:
                out[name] = result.text
                changed[name] = result.redactions
        elif is_text(value):  # a list of texts: each one
            items = list(value)
            for i, item in enumerate(value):
                result = scrub_text(item, detectors, numbering)
                if result.changed:
                    items[i] = result.text
                    changed[f"{name}[{i}]"] = result.redactions
            out[name] = items
    if not changed:
        return out, None
    qid = obj.get("id")
    return out, LineReport(qid if isinstance(qid, str) else None if qid is None else str(qid), line, changed)


@dataclass(frozen=True)
class ScrubSummary:
    """Totals over a file: lines seen, lines changed, redactions by kind, and the fields asked for
    that were not text (a number, an object) with the lines where they were: left as they are, and
    said (they were skipped in silence)."""

    lines: int
    changed: int
    counts: Mapping[str, int]
    not_text: Mapping[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        skipped = "".join(f"; field {f!r} is not text on {n} line(s): not scrubbed" for f, n in self.not_text.items())
        return f"scrubbed {self.changed} of {self.lines} lines" + (f": {kinds}" if kinds else "") + skipped


def scrub_records(records: Iterable[tuple[int, Mapping[str, Any]]], options: ScrubOptions,
                  detectors: Sequence[Detector] | None = None,
                  ) -> tuple[list[dict[str, Any]], list[LineReport], ScrubSummary]:
    """Scrub ``(line, object)`` pairs: the new objects (same order), a report per changed line, totals."""
    use = options.detectors() if detectors is None else detectors
    objects: list[dict[str, Any]] = []
    reports: list[LineReport] = []
    totals: dict[str, int] = {}
    numbering = Numbering()  # one for the file: distinct values stay distinct across questions
    not_text: dict[str, int] = {}
    for line, obj in records:
        for name in options.fields:
            value = obj.get(name)
            if value is not None and not is_text(value):
                not_text[name] = not_text.get(name, 0) + 1
        new, report = scrub_record(obj, line, options.fields, use, numbering)
        objects.append(new)
        if report is not None:
            reports.append(report)
            for kind, n in report.counts().items():
                totals[kind] = totals.get(kind, 0) + n
    return objects, reports, ScrubSummary(len(objects), len(reports), totals, not_text)


def report_lines(reports: Sequence[LineReport], summary: ScrubSummary, options: ScrubOptions,
                 source: str) -> Iterator[dict[str, Any]]:
    """The report as JSON Lines objects: a ``_meta`` line with the totals, then one per changed line."""
    yield {"_meta": {
        "report": "ragauge golden scrub", "version": REPORT_VERSION, "source": source,
        "fields": list(options.fields), "regions": list(options.regions), "ner": options.ner,
        "lines": summary.lines, "changed": summary.changed, "counts": dict(summary.counts),
        "spans": "[start, end) character offsets into the original field value",
    }}
    for report in reports:
        yield report.to_dict()


def scrub_golden(source: str | Path, output: str | Path, *, report: str | Path | None = None,
                 options: ScrubOptions | None = None) -> ScrubSummary:
    """Scrub the ``options.fields`` of every line of the JSONL file ``source`` into ``output``
    (atomically; other fields and lines unchanged) and, with ``report``, write what changed (ids,
    types, counts, character spans, never the values). Returns the totals."""
    from ragauge.core.files import atomic_write, check_not_an_input
    from ragauge.core.jsonl import read_jsonl, to_jsonl

    check_not_an_input(output, [source])
    check_not_an_input(report, [source, output], "report")
    options = options or ScrubOptions()
    check_regions(options.regions)
    if not options.fields:
        from ragauge.errors import InputError, flag

        raise InputError("no field to scrub", hint="e.g. " + flag("fields", "query,notes"))
    objects, reports, summary = scrub_records(list(read_jsonl(source, what="input")), options)
    atomic_write(output, to_jsonl(objects))
    if report is not None:
        atomic_write(report, to_jsonl(report_lines(reports, summary, options, str(source))), what="report")
    return summary


def check_regions(codes: Sequence[str]) -> None:
    """InputError naming the phone regions that are not ISO 3166 codes libphonenumber knows."""
    import phonenumbers

    from ragauge.errors import InputError

    unknown = [c for c in codes if c not in phonenumbers.SUPPORTED_REGIONS]
    if unknown:
        raise InputError(f"unknown phone region{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}",
                         hint="use ISO 3166 codes such as US, GB, DE")
