"""Grow a golden set from production failures: log lines become candidates, reviewed candidates merge in.

**Log format** (JSON Lines, one request a line; only the question is required)::

    {"query": "VPN-809 after the update", "retrieved": ["kb-12", {"doc_id": "kb-7", "score": 0.4}],
     "feedback": "thumbs_down", "timestamp": "2026-11-03T09:12:00Z", "tags": ["networking"]}

Key aliases, the first present wins: question ``query`` / ``question`` / ``q`` / ``user_query`` /
``prompt`` / ``input``; retrieved ``retrieved`` / ``hits`` / ``results`` / ``documents`` / ``docs`` /
``retrieved_ids`` / ``doc_ids`` / ``sources`` (doc-id strings, ``[doc_id, score]`` pairs or objects
with ``doc_id``/``id``/``chunk_id``); feedback ``feedback`` / ``rating`` / ``user_feedback`` / ``vote``
/ ``reaction``; time ``timestamp`` / ``ts`` / ``time`` / ``created_at`` / ``date``. Feedback values are
normalised (``normalise_feedback``): ``thumbs_down`` also from "thumbs-down", "down", "negative",
"👎", -1 and false; ``thumbs_up`` from "up", "positive", "👍", 1 and true; ``missed`` from "miss" and
"not_found"; any other text is lower-cased with spaces and hyphens as ``_``; an object is read through
its ``type``/``value``/``label`` key. Lines that are not JSON objects are skipped and counted, never
fatal (a log being written often ends in a partial line).

**Duplicates** are those of ``ragauge.curation.similarity`` (the rule ``golden validate`` applies):
equal normalised text, or a Jaccard similarity of the normalised word sets of at least 0.8: the
same words in another order, one word added or dropped among five or more, one replaced among nine
or more; "E-301" and "E-302" stay apart. Candidates are compared with the golden set (and any other question files
given, such as pending candidates) and with each other; the first occurrence is kept and counts the others in
``seen``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.core.jsonl import decode_lines
from ragauge.curation import DEFAULT_FEEDBACK as DEFAULT_FEEDBACK

# the merge moved to ragauge.curation.merge; its names stay importable from here
from ragauge.curation.merge import REJECTED as REJECTED
from ragauge.curation.merge import REVIEW_FIELDS as REVIEW_FIELDS
from ragauge.curation.merge import MergeReport as MergeReport
from ragauge.curation.merge import merge_lines as merge_lines
from ragauge.curation.merge import merge_text as merge_text
from ragauge.curation.merge import reviewed_entry as reviewed_entry
from ragauge.curation.similarity import (
    NEAR_DUPLICATE_JACCARD,
    near_duplicate_pairs,
    normalise,
)
from ragauge.errors import InputError, where

if TYPE_CHECKING:
    from ragauge.curation.scrub import ScrubResult

HINT_LIMIT = 20
NEEDS_REVIEW = "needs-review"

QUERY_KEYS = ("query", "question", "q", "user_query", "prompt", "input")
RETRIEVED_KEYS = ("retrieved", "hits", "results", "documents", "docs", "retrieved_ids", "doc_ids", "sources")
FEEDBACK_KEYS = ("feedback", "rating", "user_feedback", "vote", "reaction")
TIME_KEYS = ("timestamp", "ts", "time", "created_at", "date")

_FEEDBACK_ALIASES = {
    "thumbs_down": "thumbs_down", "thumbsdown": "thumbs_down", "thumb_down": "thumbs_down", "down": "thumbs_down",
    "negative": "thumbs_down", "bad": "thumbs_down", "👎": "thumbs_down", "-1": "thumbs_down",
    "thumbs_up": "thumbs_up", "thumbsup": "thumbs_up", "thumb_up": "thumbs_up", "up": "thumbs_up",
    "positive": "thumbs_up", "good": "thumbs_up", "👍": "thumbs_up", "1": "thumbs_up",
    "missed": "missed", "miss": "missed", "not_found": "missed",
}

Scrubber = Callable[[str], "ScrubResult"]
"""``ragauge.curation.scrub.scrub_text``, or any function with its contract."""


# --- log lines -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LogEntry:
    """One production request read from a log line."""

    ref: str
    query: str | None
    retrieved: tuple[str, ...] = ()
    feedback: str | None = None
    timestamp: str | None = None
    tags: tuple[str, ...] = ()


def normalise_feedback(value: Any) -> str | None:
    """A feedback value as one of a few canonical words (see the module docstring); None when absent."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        for key in ("type", "value", "label", "rating"):
            if key in value:
                return normalise_feedback(value[key])
        return None
    if isinstance(value, bool):
        return "thumbs_up" if value else "thumbs_down"
    if isinstance(value, (int, float)):
        return "thumbs_down" if value < 0 else "thumbs_up" if value > 0 else "neutral"
    text = re.sub(r"[\s\-]+", "_", str(value).strip().casefold())
    return _FEEDBACK_ALIASES.get(text, text) or None


def _first(obj: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if obj.get(key) is not None:
            return obj[key]
    return None


def _retrieved_ids(raw: Any) -> tuple[str, ...]:
    from ragauge.data.coerce import coerce_hit

    if isinstance(raw, Mapping) and "hits" in raw:
        raw = raw["hits"]
    if not isinstance(raw, list):
        return ()
    ids: list[str] = []
    for item in raw:
        if isinstance(item, Mapping) and item.get("doc_id") is None and item.get("id") is None:
            item = {**item, "doc_id": _first(item, ("document_id", "source", "chunk_id"))}
        try:
            hit = coerce_hit(item)
        except InputError:
            continue
        doc = hit.doc_id or hit.chunk_id
        if doc and doc not in ids:
            ids.append(doc)
    return tuple(ids)


def parse_log_line(obj: Mapping[str, Any], ref: str) -> LogEntry:
    """Read one decoded log line (tolerant: missing or odd fields become None or empty)."""
    query = _first(obj, QUERY_KEYS)
    tags = obj.get("tags")
    return LogEntry(
        ref, query if isinstance(query, str) else None, _retrieved_ids(_first(obj, RETRIEVED_KEYS)),
        normalise_feedback(_first(obj, FEEDBACK_KEYS)),
        None if _first(obj, TIME_KEYS) is None else str(_first(obj, TIME_KEYS)),
        tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else (),
    )


def read_log(path: str | Path) -> tuple[list[LogEntry], list[str]]:
    """Log entries of a JSONL file and the ``file:line`` of each line that is not a JSON object."""
    path = Path(path)
    entries: list[LogEntry] = []
    unreadable: list[str] = []
    for number, obj in decode_lines(path, what="log"):
        if isinstance(obj, dict):
            entries.append(parse_log_line(obj, where(path, number)))
        else:
            unreadable.append(where(path, number))
    return entries, unreadable


def read_questions(path: str | Path) -> list[tuple[str, str, str]]:
    """``(id, question, file:line)`` of every line of a golden set or candidates file, whatever its
    review state (``relevant`` may be null); lines without a string ``id`` and ``query`` are errors."""
    from ragauge.core.jsonl import read_jsonl

    out = []
    for number, obj in read_jsonl(path, what="golden set"):
        qid, query = obj.get("id"), obj.get("query")
        if not isinstance(qid, str) or not qid or not isinstance(query, str):
            raise InputError("each line needs a string 'id' and 'query'", where=where(path, number))
        out.append((qid, query, where(path, number)))
    return out


# --- candidates (pure) -----------------------------------------------------------------------------

@dataclass
class GrowReport:
    """What ``candidates_from_log`` did with each line."""

    read: int = 0
    unreadable: list[str] = field(default_factory=list)
    no_query: int = 0
    feedback_skipped: int = 0
    duplicates_golden: int = 0
    duplicates_log: int = 0
    kept: int = 0
    scrubbed: int = 0
    near_duplicates: list[tuple[str, str, float]] = field(default_factory=list)
    """``(log line, the id it resembles, similarity)`` for duplicates whose normalised text differs."""
    scrub_used: bool = False

    def lines(self) -> list[str]:
        """The report for a terminal; log references and ids through :func:`ragauge.core.escape.terminal`."""
        from ragauge.core.escape import terminal as t

        out = [f"read {self.read} log line(s)"]
        if self.unreadable:
            more = f" (+{len(self.unreadable) - 5} more)" if len(self.unreadable) > 5 else ""
            out.append(f"skipped {len(self.unreadable)} line(s) that are not JSON objects: "
                       f"{t(', '.join(self.unreadable[:5]))}{more}")
        if self.no_query:
            out.append(f"skipped {self.no_query} line(s) without a question")
        out.append(f"skipped {self.feedback_skipped} line(s) by feedback")
        out.append(f"dropped {self.duplicates_golden} duplicate(s) of the golden set, "
                   f"{self.duplicates_log} repeat(s) within the log")
        for ref, other, sim in self.near_duplicates[:5]:
            out.append(f"  near-duplicate: {t(ref)} ~ {t(other)} (similarity {sim:.2f})")
        out.append(f"kept {self.kept} candidate(s), {self.scrubbed} with personal data redacted")
        if self.scrub_used and self.kept:
            out.append("note: person names are not found by the rule-based scrub; run 'ragauge golden scrub "
                       "CANDIDATES --ner -o CANDIDATES.scrubbed.jsonl' (the ner extra) before the review")
        return out


def candidate_id(text: str, taken: set[str]) -> str:
    """``cand-`` + the first 10 hex digits of the normalised question's hash (longer if that id is taken)."""
    digest = hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()
    for n in range(10, len(digest) + 1, 2):
        if f"cand-{digest[:n]}" not in taken:
            return f"cand-{digest[:n]}"
    n = 2
    while f"cand-{digest}-{n}" in taken:
        n += 1
    return f"cand-{digest}-{n}"


def candidates_from_log(
    entries: Sequence[LogEntry],
    existing: Sequence[tuple[str, str, str]],
    *,
    today: date,
    source: str,
    feedback: Sequence[str] | None = DEFAULT_FEEDBACK,
    scrub: Scrubber | None = None,
    threshold: float = NEAR_DUPLICATE_JACCARD,
    unreadable: Sequence[str] = (),
) -> tuple[list[dict[str, Any]], GrowReport]:
    """Candidate golden entries from log entries, in first-seen order, and a report of what was dropped.

    Keeps entries whose normalised feedback is in ``feedback`` (None keeps every entry, with or without
    feedback); applies ``scrub`` to the question first; drops questions that are duplicates or
    near-duplicates (word-set Jaccard >= ``threshold``) of an ``existing`` question ``(id, question,
    location)`` or of an earlier kept entry (which then counts it in ``seen``). ``unreadable``
    (locations of log lines that were not JSON objects, from ``read_log``) is counted in the report.
    Each candidate has a new id that collides with no existing id, ``"relevant": None`` and
    ``"status": "needs-review"``, the ``added`` date and ``source``, and the documents retrieved for
    it as ``hint_retrieved``.
    """
    report = GrowReport(read=len(entries) + len(unreadable), unreadable=list(unreadable), scrub_used=scrub is not None)
    wanted = None if feedback is None else {normalise_feedback(f) for f in feedback}
    groups: dict[str, list[tuple[LogEntry, str, bool]]] = {}  # normalised question -> its lines, in order
    for entry in entries:
        if entry.query is None or not normalise(entry.query):
            report.no_query += 1
            continue
        if wanted is not None and entry.feedback not in wanted:
            report.feedback_skipped += 1
            continue
        text, changed = entry.query.strip(), False
        if scrub is not None:
            result = scrub(text)
            text, changed = result.text, bool(result.redactions) or result.text != text
        if normalise(text):
            groups.setdefault(normalise(text), []).append((entry, text, changed))
        else:
            report.no_query += 1
    old = {normalise(q): qid for qid, q, _ in existing}
    fresh = [key for key in groups if key not in old]
    for key in groups:
        if key in old:
            report.duplicates_golden += len(groups[key])
    texts = [q for _, q, _ in existing] + fresh
    base = len(existing)
    similar: dict[int, list[tuple[int, float]]] = {}
    for i, j, sim in near_duplicate_pairs(texts, threshold):
        if j >= base:
            similar.setdefault(j, []).append((i, sim))
    taken = {qid for qid, _, _ in existing}
    kept: dict[int, str] = {}  # index in texts -> candidate id
    candidates: dict[str, dict[str, Any]] = {}
    for offset, key in enumerate(fresh):
        index, lines = base + offset, groups[key]
        matches = similar.get(index, [])
        golden = _best(m for m in matches if m[0] < base)
        earlier = None if golden else _best(m for m in matches if m[0] in kept)
        match = golden or earlier
        if match is not None:
            i, sim = match
            other = existing[i][0] if golden is not None else kept[i]
            report.near_duplicates.append((lines[0][0].ref, other, sim))
            if golden is not None:
                report.duplicates_golden += len(lines)
            else:
                report.duplicates_log += len(lines)
                candidates[other]["seen"] += len(lines)
            continue
        entry, text, changed = lines[0]
        qid = candidate_id(text, taken)
        taken.add(qid)
        kept[index] = qid
        candidates[qid] = _candidate(qid, text, entry, changed, today, source)
        candidates[qid]["seen"] = len(lines)
        report.duplicates_log += len(lines) - 1
        report.scrubbed += changed
    report.kept = len(candidates)
    return list(candidates.values()), report


def _best(matches: Iterable[tuple[int, float]]) -> tuple[int, float] | None:
    """The ``(index, similarity)`` with the highest similarity, the lowest index on ties."""
    return min(matches, key=lambda m: (-m[1], m[0]), default=None)


def _candidate(qid: str, text: str, entry: LogEntry, changed: bool, today: date, source: str) -> dict[str, Any]:
    out: dict[str, Any] = {"id": qid, "query": text, "relevant": None}
    if entry.tags:
        out["tags"] = list(dict.fromkeys(entry.tags))
    out.update({"status": NEEDS_REVIEW, "added": today.isoformat(), "source": source})
    if entry.feedback is not None:
        out["feedback"] = entry.feedback
    out["seen"] = 1
    if entry.timestamp is not None:
        out["first_seen"] = entry.timestamp
    out.update({"hint_retrieved": list(entry.retrieved[:HINT_LIMIT]), "log_ref": entry.ref})
    if changed:
        out["scrubbed"] = True
    return out


def add_from_log(log: str | Path, golden: str | Path | Sequence[str | Path] = (), output: str | Path | None = None,
                 *, feedback: Sequence[str] | None = DEFAULT_FEEDBACK, scrub: bool = True,
                 source: str | None = None, today: date | None = None) -> tuple[list[dict[str, Any]], GrowReport]:
    """``ragauge golden add`` in one call: read the production ``log``, keep the lines whose
    feedback is in ``feedback`` (None: every line), scrub each question of personal data (unless
    ``scrub`` is False), drop duplicates of the ``golden`` sets' questions and of each other, and
    return the candidates (written to ``output`` as JSONL when given, atomically) with the report."""
    from ragauge.core.files import atomic_write, check_not_an_input
    from ragauge.core.jsonl import to_jsonl

    paths = [golden] if isinstance(golden, (str, Path)) else list(golden)
    check_not_an_input(output, [log, *paths], "candidates file")
    scrubber = None
    if scrub:
        from ragauge.curation.scrub import scrub_text

        scrubber = scrub_text
    existing = [q for path in paths for q in read_questions(path)]
    entries, unreadable = read_log(log)
    candidates, report = candidates_from_log(entries, existing, today=today or date.today(),
                                             source=source or Path(log).name, feedback=feedback, scrub=scrubber,
                                             unreadable=unreadable)
    if output is not None:
        atomic_write(output, to_jsonl(candidates), what="candidates")
    return candidates, report
