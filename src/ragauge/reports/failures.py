"""The "why it failed" block every report shows: the table of failure patterns, the perfect-reranker
ceiling, what was not assessed, and one question's failure in a line.

These return plain, unescaped text pieces; each renderer escapes them for its output language (a
saved result is a file anyone can write, so evidence, notes and even pattern names are user text).
"""

from __future__ import annotations

from typing import Any

from ragauge.evaluation.patterns import PATTERNS, FailureTable
from ragauge.evaluation.result import QueryScore

HEADER = ["pattern", "misses", "share", "also", "examples"]
"""The table's columns: the pattern, the misses it is primary for and their share of all misses,
the misses where it applies as a secondary pattern, the first few of its questions."""


def title(name: str) -> str:
    """A pattern's title (its name when this ragauge does not know it)."""
    pattern = PATTERNS.get(name)
    return pattern.title if pattern else name


def summary(table: FailureTable) -> str:
    """How many questions miss, at which k: ``9 of 40 answerable question(s) miss at k=5``."""
    at = f"k={table.assessment.k}" if table.assessment.k is not None else "any rank (no cutoff)"
    if not table.misses:
        return f"no question misses at {at} ({table.answerable} answerable)"
    return f"{table.misses} of {table.answerable} answerable question(s) miss at {at}"


def rows(table: FailureTable) -> list[list[str]]:
    """The table's cells, one row per pattern (see HEADER)."""
    return [[r.pattern.title, str(r.count), f"{r.share:.1%}", str(r.secondary), ", ".join(r.examples)]
            for r in table.rows]


def fixes(table: FailureTable) -> list[tuple[str, str]]:
    """(pattern title, its fix) for every pattern in the table that is primary for a miss."""
    return [(r.pattern.title, r.pattern.fix) for r in table.rows if r.count]


def ceiling(table: FailureTable, fetch: str) -> str | None:
    """The perfect-reranker line (None without misses)."""
    if not table.misses:
        return None
    k = table.assessment.k
    if k is None:
        return ("perfect reranker: nothing to gain; without a cutoff a miss has no relevant document "
                "anywhere in the fetched list")
    return (f"perfect reranker of the fetched list (fetch {fetch}): {table.ceiling} of {table.misses} misses have a "
            f"relevant document in it; putting it first would lift hit@{k} from {table.hit_rate():.3f} to "
            f"{table.hit_rate(table.ceiling):.3f}")


def caveats(table: FailureTable) -> list[str]:
    """What was not assessed and why (one line per reason), then the notes; nothing without misses."""
    if not table.misses:
        return []
    by_reason: dict[str, list[str]] = {}
    for name in sorted(table.assessment.not_assessed, key=lambda n: list(PATTERNS).index(n) if n in PATTERNS else 99):
        by_reason.setdefault(table.assessment.not_assessed[name], []).append(title(name))
    out = [f"not assessed: {', '.join(names)} — {reason}" for reason, names in by_reason.items()]
    return out + list(table.assessment.notes)


def detail(name: str, q: QueryScore) -> str:
    """The evidence of one pattern of a missed question in a few words ("" when there is none to
    show, or a saved file holds something else there)."""
    if name == "ranked-too-low" and q.first_relevant_rank is not None:
        return f"rank {q.first_relevant_rank}"
    if name == "not-retrieved":
        return f"none in {q.n_unique} fetched"
    try:
        return _detail(name, q.failure.evidence.get(name) or {} if q.failure is not None else {})
    except (TypeError, ValueError, AttributeError):
        return ""


def _detail(name: str, e: dict[str, Any]) -> str:
    if name in ("stale-label", "wrong-section", "unjudged-above") and e.get("ids"):
        ids = [str(i) for i in e["ids"]]
        return ", ".join(ids[:2]) + (f" (+{len(ids) - 2})" if len(ids) > 2 else "")
    if name == "crowded-out" and e:
        return f"{e.get('doc_id')}: {e.get('hits')} of {e.get('window')} hits"
    if name == "exact-term" and e.get("terms"):
        return ", ".join(str(t) for t in e["terms"])
    if name == "vocabulary-gap" and "overlap" in e:
        return f"{float(e['overlap']):.0%} of {e.get('words')} content words"
    return ""


def why(q: QueryScore) -> str:
    """A missed question's failure in a line: ``vocabulary gap (14% of 7 content words); also: ...``
    ("" for a question that did not miss)."""
    failure = q.failure
    if failure is None:
        return ""

    def one(name: str) -> str:
        more = detail(name, q)
        return f"{title(name)} ({more})" if more else title(name)

    text = one(failure.primary)
    if failure.secondary:
        text += "; also: " + ", ".join(one(p) for p in failure.secondary)
    return text


CHANGE_HEADER = ["pattern", "base", "new", "fixed", "caused"]


def change_heading(changes: dict[str, Any]) -> str:
    k = changes.get("k")
    return (f"failure patterns at k={k}: questions whose primary pattern went away (fixed) or appeared (caused)"
            if k is not None else "failure patterns")


def change_rows(changes: dict[str, Any]) -> list[list[str]]:
    """One row per pattern of a comparison's ``patterns`` block (see CHANGE_HEADER)."""
    return [[str(r["title"]), str(r["base"]), str(r["new"]), str(r["fixed"]), str(r["caused"])]
            for r in changes.get("rows", [])]


def change_examples(changes: dict[str, Any]) -> list[str]:
    """``title fixed: q1, q2`` / ``title caused: q3`` lines for the patterns that changed."""
    out = []
    for r in changes.get("rows", []):
        for kind in ("fixed", "caused"):
            ids = [str(i) for i in r.get(f"{kind}_ids", [])]
            if ids:
                more = f" (+{r[kind] - len(ids)} more)" if r[kind] > len(ids) else ""
                out.append(f"{r['title']} {kind}: {', '.join(ids)}{more}")
    return out


def changes_text(changes: dict[str, Any], escape: Any, *, width: int | None = None,
                 style: Any = None) -> list[str]:
    """The comparison's failure-pattern block for the terminal (``escape``: the terminal escaper),
    fitted to ``width`` (None: not fitted) with the heading in ``style`` (``reports.fit.Style``)."""
    from ragauge.reports.fit import fit_table, plain, wrap

    if not changes or not (changes.get("rows") or changes.get("notes")):
        return []
    s = style or plain
    split = width is not None
    out = ["", *(s(line, bold=True) for line in wrap(escape(change_heading(changes)), width, "", "  ", split=split))]
    if changes.get("rows"):
        out += fit_table(CHANGE_HEADER, [[escape(c) for c in row] for row in change_rows(changes)], width, style=s)
        out += [x for line in change_examples(changes) for x in wrap(escape(line), width, "  ", "    ", split=split)]
    out += [x for n in changes.get("notes", []) for x in wrap(escape(n), width, "  ! ", "    ", split=split)]
    return out


def changes_markdown(changes: dict[str, Any], escape: Any) -> list[str]:
    """The comparison's failure-pattern block in Markdown (``escape``: the Markdown escaper)."""
    if not changes or not (changes.get("rows") or changes.get("notes")):
        return []
    out = ["", f"**{escape(change_heading(changes))}**", ""]
    if changes.get("rows"):
        out += ["| " + " | ".join(CHANGE_HEADER) + " |", "|---|---:|---:|---:|---:|"]
        out += ["| " + " | ".join(escape(c) for c in row) + " |" for row in change_rows(changes)]
        examples = change_examples(changes)
        if examples:
            out += ["", "<sub>" + "<br>".join(escape(e) for e in examples) + "</sub>"]
    out += [f"> {escape(n)}" for n in changes.get("notes", [])]
    return out
