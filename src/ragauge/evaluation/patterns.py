"""The failure patterns: the one list of why a question can miss, each with its contract and fix.

A question **misses at k** when no relevant document (grade >= 1) is in the top k of its fetched,
deduplicated list. k is the largest cutoff among the result's metrics (the whole fetched list when
no metric has one), as in the JUnit report; a question whose retriever call failed or that is
missing from the run misses too. Every miss gets one **primary** pattern, the first of
:data:`PATTERNS` (in this order) that applies, and lists the others that apply as **secondary**.
The docs (``ragauge metrics``, docs/explanation/failure-patterns.md) are generated from this registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

OVERLAP_GAP = 0.5
"""A vocabulary gap: the best relevant text holds fewer than this share of the query's content words."""
CROWD_SHARE = 0.5
"""Crowded out: one document holds at least this share of the raw hits behind the top k ..."""
CROWD_MIN = 2
"""... and at least this many of them."""


@dataclass(frozen=True)
class Pattern:
    """One way a question can miss: a stable ``name`` (JSON, filters), a ``title`` for reports,
    the ``contract`` (exactly when it applies, in one line) and the ``fix`` it points to."""

    name: str
    title: str
    contract: str
    fix: str
    needs: str = ""  # what must be known to assess it: "" (always), "index" or "texts"


PATTERNS: dict[str, Pattern] = {p.name: p for p in (
    Pattern("retriever-error", "retriever error",
            "the retriever call for the question failed, so nothing came back",
            "read the error; check the retriever is up, raise --timeout or --retries, run again"),
    Pattern("missing-from-run", "missing from the run",
            "the run holds no entry for the question",
            "run the retriever over the whole golden set, or score the run against its own golden set"),
    Pattern("stale-label", "stale label",
            "a relevant id of the question is not in the index (the corpus given, or the documents the retriever "
            "lists); it is dropped from the judgements, so the question missed on its other ids",
            "relabel with ids the index holds, or re-index the missing documents", "index"),
    Pattern("wrong-section", "right document, wrong section",
            "a non-relevant id in the top k belongs to the same document as a relevant id (equal ids before the "
            "first '#': a sibling section, the whole document of a relevant section, or a section of a relevant "
            "document)",
            "label at document level or the section that holds the answer, or chunk so the answer stays in one "
            "section"),
    Pattern("wrong-passage", "right document, wrong passage",
            "with span labels: a chunk of a relevant document is in the top k but holds none of its labelled spans "
            "(shown as 'DOC (outside the labelled span)')",
            "chunk so the answer stays whole in one chunk (larger chunks, more overlap), or rerank the chunks"),
    Pattern("crowded-out", "crowded out by one document",
            f"one non-relevant document holds at least {CROWD_SHARE:.0%} (and at least {CROWD_MIN}) of the raw hits "
            f"behind the top k: the hits up to the k-th distinct document, or all fetched hits when fewer came back",
            "diversify the results (a cap of chunks per document, MMR), or fetch deeper"),
    Pattern("exact-term", "exact-term miss",
            "an identifier-like query token (E-301, 0x80070005, KB-1042, 9002, 5.7.1, TunnelPoint) occurs in a "
            "relevant text but in none of the top-k documents' texts",
            "lexical or hybrid retrieval that matches codes whole (E-301, not E and 301), or boost exact matches",
            "texts"),
    Pattern("vocabulary-gap", "vocabulary gap",
            f"fewer than {OVERLAP_GAP:.0%} of the query's content words (stop words dropped, stemmed) occur in "
            f"the relevant text that shares the most",
            "dense or hybrid retrieval; query expansion or rewriting", "texts"),
    Pattern("unjudged-above", "unjudged documents in the top k",
            "the top k holds a document with no judgement for the question, and the question has judged-not-"
            "relevant documents (grade < 1); assessed only for such questions, since where only answers are "
            "labelled every other document is unjudged",
            "judge those documents: the miss may be a labelling gap"),
    Pattern("ranked-too-low", "ranked too low",
            "a relevant document is in the fetched, deduplicated list, below rank k",
            "rerank the fetched list (a cross-encoder) or raise k; see the perfect-reranker ceiling"),
    Pattern("not-retrieved", "not retrieved at all",
            "no relevant document within the fetch depth (the fetched, deduplicated list)",
            "a recall problem: hybrid retrieval, query rewriting, fetch deeper"),
)}

MISS_RULE = ("A question misses at k when no relevant document (grade >= 1) is in the top k of its fetched, "
             "deduplicated list; k is the largest cutoff among the metrics (the whole fetched list when none has "
             "one); failed and missing questions miss too. Its primary pattern is the first that applies, in the "
             "order listed; the others that apply are secondary.")

TEXT_RULES = ("Text patterns need the corpus texts (eval --corpus PATH, report --corpus PATH). Tokens: runs of "
              "letters and digits joined by single - . _ / : characters, compared case-folded. Identifier-like: "
              "a digit and a letter, a number of 3+ digits, a digit and a joining character, or a capital letter "
              "right after a small one as written. Content words: tokens of 2+ characters that are not stop "
              "words, Snowball-stemmed.")


@dataclass(frozen=True)
class Failure:
    """Why one question missed: its ``primary`` pattern, the ``secondary`` ones that also apply
    (in precedence order) and the ``evidence`` behind those that need more than the question's row
    says (pattern name -> facts, e.g. ``{"exact-term": {"terms": ["E-301"]}}``; a rank or a list
    length is in the row)."""

    primary: str
    secondary: tuple[str, ...] = ()
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def patterns(self) -> tuple[str, ...]:
        """Every pattern that applies, primary first."""
        return (self.primary, *self.secondary)

    def primary_among(self, allowed: set[str]) -> str | None:
        """The primary pattern when only ``allowed`` patterns count (None: none of them applies)."""
        return next((p for p in self.patterns if p in allowed), None)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"primary": self.primary}
        if self.secondary:
            out["secondary"] = list(self.secondary)
        if self.evidence:
            out["evidence"] = self.evidence
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Failure:
        return cls(str(d["primary"]), tuple(str(p) for p in d.get("secondary", [])),
                   {str(k): dict(v) for k, v in dict(d.get("evidence", {})).items()})


@dataclass(frozen=True)
class Assessment:
    """How an evaluation's misses were classified: the cutoff ``k`` (None: the whole fetched list),
    the patterns ``not_assessed`` and why, and ``notes`` on limits that change how the table reads."""

    k: int | None
    not_assessed: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def assessed(self) -> set[str]:
        return set(PATTERNS) - set(self.not_assessed)

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "not_assessed": self.not_assessed, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Assessment:
        k = d.get("k")
        return cls(None if k is None else int(k), {str(p): str(w) for p, w in dict(d.get("not_assessed", {})).items()},
                   tuple(str(n) for n in d.get("notes", [])))


EXAMPLES = 3


@dataclass(frozen=True)
class PatternRow:
    """One line of the "why it failed" table: the misses whose primary pattern this is
    (``count``, and their ``share`` of all misses), those where it applies as a secondary one,
    and the first few of its primary questions (golden order)."""

    pattern: Pattern
    count: int
    share: float
    secondary: int
    examples: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"pattern": self.pattern.name, "title": self.pattern.title, "count": self.count, "share": self.share,
                "secondary": self.secondary, "fix": self.pattern.fix, "examples": list(self.examples)}


@dataclass(frozen=True)
class FailureTable:
    """Why the misses failed: a row per pattern that applies to any miss (most primary first),
    and the perfect-reranker ``ceiling``: the misses with a relevant document in the fetched list,
    which a reranker that put it first would turn into hits."""

    assessment: Assessment
    answerable: int
    misses: int
    rows: tuple[PatternRow, ...]
    ceiling: int

    def hit_rate(self, fixed: int = 0) -> float:
        """The share of answerable questions with a relevant document in the top k, after
        ``fixed`` more misses became hits (NaN with no answerable question)."""
        return (self.answerable - self.misses + fixed) / self.answerable if self.answerable else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {**self.assessment.to_dict(), "answerable": self.answerable, "misses": self.misses,
                "ceiling": self.ceiling, "rows": [r.to_dict() for r in self.rows]}


def failure_table(assessment: Assessment, failures: Sequence[tuple[str, Failure]], answerable: int) -> FailureTable:
    """The table of ``failures`` (question id, its failure; one per miss, golden order)."""
    primary: dict[str, list[str]] = {}
    secondary: dict[str, int] = {}
    for qid, f in failures:
        primary.setdefault(f.primary, []).append(qid)
        for p in f.secondary:
            secondary[p] = secondary.get(p, 0) + 1
    n = len(failures)
    order = {name: i for i, name in enumerate(PATTERNS)}
    names = sorted(set(primary) | set(secondary), key=lambda p: (-len(primary.get(p, [])), order.get(p, len(order))))
    rows = tuple(PatternRow(PATTERNS[p], len(primary.get(p, [])), len(primary.get(p, [])) / n, secondary.get(p, 0),
                            tuple(primary.get(p, [])[:EXAMPLES])) for p in names if p in PATTERNS)
    ceiling = sum(1 for _, f in failures if "ranked-too-low" in f.patterns)
    return FailureTable(assessment, answerable, n, rows, ceiling)


def markdown_table() -> str:
    """The patterns' contracts in Markdown, in precedence order (the table of
    docs/explanation/failure-patterns.md is this output)."""
    rows = ["| pattern | applies when | the fix |", "|---|---|---|"]
    rows += [f"| `{p.name}` ({p.title}) | {p.contract} | {p.fix} |" for p in PATTERNS.values()]
    return "\n".join(rows) + "\n"


def text_docs(width: int = 100) -> list[str]:
    """The patterns' contracts as ``ragauge metrics`` prints them."""
    import textwrap

    def para(text: str) -> list[str]:
        return textwrap.wrap(text, width, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)

    out = ["failure patterns (why a question missed; see 'why it failed' in every report)", *para(MISS_RULE),
           *para(TEXT_RULES), ""]
    for p in PATTERNS.values():
        out += [f"{p.name}    ({p.title})", *para(f"applies: {p.contract}"), *para(f"fix: {p.fix}"), ""]
    return out
