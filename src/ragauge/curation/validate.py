"""``ragauge golden validate``: every problem of a golden set at once, as a value.

:func:`validate_lines` is pure: it takes decoded lines (or their decoding errors) and, optionally,
the set of document ids the index holds, and returns a :class:`ValidationReport`.
:func:`validate_file` reads the file at the edge. Unlike :func:`ragauge.formats.golden.load_golden`,
which stops at the first problem, validation reads on and reports every line it cannot use.

Checks, with their code and severity:

- ``invalid-json``, ``schema`` (error): a line that is not a JSON object, or fails the golden-line
  schema (the loader's own rules, :func:`~ragauge.data.golden.parse_golden_line`), with file:line.
- ``duplicate-id`` (error): a question id used again (naming the first line).
- ``empty-question`` (error): a question that is empty or only whitespace.
- ``stale-label`` (error, only with a document set): a relevant id the index does not hold, a
  label gone stale after a re-index rather than a retrieval miss. A section id ``doc#section`` counts
  as present when ``doc`` is (a document-level corpus cannot see sections; they are not checked).
- ``duplicate-question`` / ``near-duplicate`` (warning): equal normalised text, or word-set Jaccard
  >= 0.8 (see :mod:`ragauge.curation.similarity`).
- ``negative-grade`` (warning): a label with a negative grade, which counts as not relevant (as in
  trec_eval); a scale that runs the other way needs ``--grades``.
- ``look-alike-id`` (warning): a question or relevant id holding invisible characters (a zero-width
  space, a soft hyphen) or compatibility forms (full-width letters), which an id that looks the same
  does not match; with a corpus, a stale label whose look-alike is in the corpus, named.
- ``chunk-id`` (warning): a relevant id ending in a numeric chunk suffix (``#3``, ``_chunk_12``,
  ``-chunk-4``, ``::12``, ``@2``); chunk ids change whenever the corpus is re-chunked. A stable
  section such as ``networking/vpn#renew-the-certificate`` is not a chunk.
- ``small-tag`` (warning): a tag with fewer than ``min_per_tag`` questions, too few to measure (and
  below 6, too few for any test to detect a change at alpha 0.05).
- ``no-answerable`` (warning): no question has a relevant document, so no metric can be computed.
- ``many-relevant`` (warning), and with a pool ``unreturned-label``, ``unjudged-pool`` (warnings) and
  ``not-pooled`` (info): label health, see :mod:`ragauge.curation.health`.

Counts (questions, answerable, no-answer, questions per tag) are in the report, not findings.
Exit code: 0 with no error or warning, 1 otherwise; unusable input raises InputError (exit 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import decode_lines
from ragauge.curation import MAX_RELEVANT, MIN_PER_TAG
from ragauge.curation.findings import Finding as Finding
from ragauge.curation.similarity import (
    NEAR_DUPLICATE_JACCARD,
    near_duplicate_pairs,
    normalise,
)
from ragauge.data.golden import GoldenQuery, parse_golden_line
from ragauge.data.ids import SECTION_SEP, in_index, is_chunk_id, lookalike_key, looks_altered, section_parent
from ragauge.errors import InputError, flag, where
from ragauge.metrics.spec import DEFAULT_K
from ragauge.stats.power import min_questions

REPORT_VERSION = 1
SEVERITIES = ("error", "warning", "info")

CHUNK_HINT = ("label documents or stable sections (\"doc\" or \"doc#section-slug\"), not chunks: "
              "chunk ids change whenever the corpus is re-chunked")


@dataclass(frozen=True)
class ValidationReport:
    """The result of validating a golden set; ``documents`` is the number of documents checked
    against (None when no corpus or retriever was given)."""

    source: str
    questions: int
    answerable: int
    no_answer: int
    tags: Mapping[str, int] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    documents: int | None = None
    min_per_tag: int = MIN_PER_TAG
    power: Mapping[str, Any] | None = None
    """With a run: what the golden set can detect (``comparison.power.PowerReport.to_dict``)."""
    pool: Mapping[str, Any] | None = None
    """With a pool: its coverage per question and the relevant documents no system returns
    (``curation.health.pool_health``)."""

    def count(self, severity: str) -> int:
        return sum(f.severity == severity for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 when clean, 1 when there is any error or warning."""
        return 1 if any(f.severity in ("error", "warning") for f in self.findings) else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION, "source": self.source, "questions": self.questions,
            "answerable": self.answerable, "no_answer": self.no_answer, "tags": dict(self.tags),
            "documents": self.documents, "min_per_tag": self.min_per_tag,
            "errors": self.count("error"), "warnings": self.count("warning"),
            "findings": [f.to_dict() for f in self.findings], "power": self.power, "pool": self.pool,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ValidationReport:
        if data.get("version") != REPORT_VERSION:
            raise InputError(f"unsupported validation report version {data.get('version')!r}")
        return cls(data["source"], data["questions"], data["answerable"], data["no_answer"], dict(data["tags"]),
                   tuple(Finding.from_dict(f) for f in data["findings"]), data.get("documents"),
                   data.get("min_per_tag", 5), data.get("power"), data.get("pool"))


Line = tuple[int, "Mapping[str, Any] | str"]
"""A line number and its decoded object, or the message saying why it could not be decoded."""


def read_lines(path: str | Path) -> list[Line]:
    """Decode a JSONL file line by line, keeping going past bad lines (their error is kept instead).

    Raises InputError (exit 2) when the file is missing or unreadable, has no non-blank line, or no
    line at all is a JSON object (the file is not JSONL)."""
    path = Path(path)
    decoded = list(decode_lines(path, what="golden set"))
    lines: list[Line] = [(n, obj[1] if isinstance(obj, tuple) else obj) for n, obj in decoded]
    if not lines:
        raise InputError("the golden set is empty", where=str(path), hint="write one JSON object a line")
    # a line refused for its content (a NaN, a lone surrogate) is still a JSON object line
    if not any(isinstance(obj, dict) or obj[0] in ("number", "surrogate") for _, obj in decoded):
        raise InputError("not a JSONL golden set: no line is a JSON object", where=str(path),
                         hint='each line must look like {"id": "q1", "query": "...", "relevant": ["doc"]}')
    return lines


def validate_lines(lines: Sequence[Line], *, source: str = "golden.jsonl", documents: Set[str] | None = None,
                   min_per_tag: int = MIN_PER_TAG, max_relevant: int = MAX_RELEVANT,
                   k: int | None = None) -> ValidationReport:
    """Validate decoded golden-set lines (see the module docstring for the checks, and
    :mod:`ragauge.curation.health` for ``many-relevant``: more than ``max_relevant`` relevant
    documents; 0 turns it off; ``k`` the cutoff its message quotes)."""
    from ragauge.curation.health import many_relevant_findings

    findings: list[Finding] = []
    queries: list[GoldenQuery] = []
    first_line: dict[str, int] = {}
    for number, obj in lines:
        loc = where(source, number)
        if isinstance(obj, str):
            findings.append(Finding("error", "invalid-json", obj, number,
                                    hint="each line must be one complete JSON object with finite numbers and "
                                         "valid Unicode"))
            continue
        try:
            q = parse_golden_line(obj, loc)
        except InputError as exc:
            findings.append(Finding("error", "schema", exc.message, number, _ids(obj), exc.hint))
            continue
        if q.id in first_line:
            findings.append(Finding("error", "duplicate-id",
                                    f"duplicate question id {q.id!r} (first seen on line {first_line[q.id]})",
                                    number, (q.id,), "give every question a unique id"))
            continue
        first_line[q.id] = number
        queries.append(replace(q, line=number))

    findings += _question_findings(queries)
    findings += _label_findings(queries, documents)
    findings += many_relevant_findings(queries, max_relevant, k)
    tags = _tag_counts(queries)
    blind = min_questions(0.05)
    findings += [Finding("warning", "small-tag",
                         f"tag {tag!r} has {n} question{'s' if n != 1 else ''}, fewer than {min_per_tag}: "
                         "too few to measure" + (f"; below {blind}, no test can detect a change in it" if n < blind
                                                 else ""), None, (),
                         f"add questions tagged {tag!r}, or merge the tag into a broader one")
                 for tag, n in tags.items() if n < min_per_tag]
    answerable = sum(q.answerable for q in queries)
    if queries and not answerable:
        findings.append(Finding("warning", "no-answerable", "no question has a relevant document: no metric "
                                "can be computed", hint="label the relevant documents of at least some questions"))
    return ValidationReport(source, len(queries), answerable, len(queries) - answerable, tags,
                            _sorted(findings), None if documents is None else len(documents), min_per_tag)


def _sorted(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Errors, then warnings, then info; by line within each (findings on no line last), then code."""
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return tuple(sorted(findings, key=lambda f: (order[f.severity], f.line if f.line is not None else 1 << 62,
                                                 f.code)))


def _ids(obj: Mapping[str, Any]) -> tuple[str, ...]:
    qid = obj.get("id")
    return (qid,) if isinstance(qid, str) and qid else ()


def _question_findings(queries: Sequence[GoldenQuery]) -> list[Finding]:
    findings: list[Finding] = []
    seen: dict[str, GoldenQuery] = {}
    texts: list[str] = []
    kept: list[GoldenQuery] = []
    for q in queries:
        if not q.query.strip():
            findings.append(Finding("error", "empty-question", f"question {q.id!r} is empty", q.line, (q.id,),
                                    "write the question a user would ask, or remove the line"))
            continue
        key = normalise(q.query)
        if key in seen:
            first = seen[key]
            findings.append(Finding("warning", "duplicate-question",
                                    f"question {q.id!r} repeats {first.id!r} (line {first.line})", q.line,
                                    (first.id, q.id),
                                    "keep one of them: a repeated question counts twice in every mean"))
            continue
        seen[key] = q
        texts.append(q.query)
        kept.append(q)
    for i, j, similarity in near_duplicate_pairs(texts, NEAR_DUPLICATE_JACCARD):
        a, b = kept[i], kept[j]
        same = "; same relevant documents" if a.relevant and dict(a.relevant) == dict(b.relevant) else ""
        findings.append(Finding("warning", "near-duplicate",
                                f"question {b.id!r} is a near-duplicate of {a.id!r} (line {a.line}; "
                                f"word overlap {similarity:.2f}{same})", b.line, (a.id, b.id),
                                "keep one, or reword one so that it tests something different"))
    return findings


def _lookalikes(documents: Set[str]) -> dict[str, str]:
    """Look-alike key -> document id for the corpus's ids (one per key)."""
    return {lookalike_key(d): d for d in documents}


def _label_findings(queries: Sequence[GoldenQuery], documents: Set[str] | None) -> list[Finding]:
    findings: list[Finding] = []
    near = _lookalikes(documents) if documents is not None else {}
    for q in queries:
        negative = sorted({g for g in q.relevant.values() if g < 0})
        if negative:
            findings.append(Finding("warning", "negative-grade",
                                    f"question {q.id!r}: grade(s) {', '.join(f'{g:g}' for g in negative)} count as not "
                                    "relevant, as in trec_eval", q.line, (q.id,),
                                    "if the scale runs the other way (Cranfield: 1 = best), score with "
                                    + flag("grades", '"1:3,2:2,3:1,4:0,-1:0"')))
        altered = [d for d in (q.id, *q.relevant) if looks_altered(d)]
        if altered:
            findings.append(Finding("warning", "look-alike-id",
                                    f"question {q.id!r}: {', '.join(ascii(d) for d in altered)} hold"
                                    f"{'' if len(altered) > 1 else 's'} invisible or look-alike characters "
                                    f"(it reads as {', '.join(repr(lookalike_key(d)) for d in altered)}), so an id "
                                    "that looks the same does not match it",
                                    q.line, (q.id,), "retype the id, or remove the invisible characters"))
        chunks = [d for d in q.relevant if is_chunk_id(d)]
        if chunks:
            findings.append(Finding("warning", "chunk-id",
                                    f"question {q.id!r}: relevant id{'s' if len(chunks) > 1 else ''} "
                                    f"{', '.join(map(repr, chunks))} look{'' if len(chunks) > 1 else 's'} "
                                    "like a chunk id",
                                    q.line, (q.id,), CHUNK_HINT))
        if documents is not None:
            stale = [d for d in q.relevant if not in_index(d, documents)]
            similar = [(d, near[lookalike_key(d)]) for d in stale if near.get(lookalike_key(d), d) != d]
            if similar:
                named = ", ".join(f"{ascii(d)} is not in the corpus, which holds {ascii(m)}" for d, m in similar)
                findings.append(Finding("warning", "look-alike-id",
                                        f"question {q.id!r}: {named} (they differ only by invisible or look-alike "
                                        "characters)", q.line, (q.id,), "label the id exactly as the corpus writes it"))
            if stale:
                findings.append(Finding("error", "stale-label",
                                        f"question {q.id!r}: relevant id{'s' if len(stale) > 1 else ''} "
                                        f"{', '.join(map(repr, stale))} not in the index (a stale label, "
                                        "not a retrieval miss)", q.line, (q.id,),
                                        "relabel the question with the documents that now answer it, or re-index"))
    if documents is not None and not any(SECTION_SEP in d for d in documents):
        sections = sorted({d for q in queries for d in q.relevant if section_parent(d) in documents})
        if sections:
            findings.append(Finding(
                "warning", "section-label",
                f"{len(sections)} relevant id(s) are sections ({', '.join(map(repr, sections[:3]))}"
                f"{', ...' if len(sections) > 3 else ''}) but the index holds whole documents only: a retriever over "
                "this index returns document ids, which never equal a section id, so these questions score 0",
                None, (), "label at document level, or index sections (ids doc#section)"))
    return findings


def _tag_counts(queries: Iterable[GoldenQuery]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for q in queries:
        for tag in q.tags:
            counts[tag] = counts.get(tag, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def validate_file(path: str | Path, *, documents: Set[str] | None = None,
                  min_per_tag: int = MIN_PER_TAG, max_relevant: int = MAX_RELEVANT,
                  k: int | None = None) -> ValidationReport:
    """Read and validate a golden-set file (see :func:`validate_lines`)."""
    if min_per_tag < 0:
        raise InputError(f"{flag('min_per_tag')} must be >= 0, got {min_per_tag}")
    if max_relevant < 0:
        raise InputError(f"{flag('max_relevant')} must be >= 0 (0: no limit), got {max_relevant}")
    return validate_lines(read_lines(path), source=str(path), documents=documents, min_per_tag=min_per_tag,
                          max_relevant=max_relevant, k=k)


def index_documents(corpus: str | Path | None = None, retriever: str | None = None,
                    config: Mapping[str, Any] | None = None) -> set[str] | None:
    """The document ids of a corpus (file or folder) or of a retriever's index (a spec whose adapter
    lists its documents); None when neither is given."""
    if corpus is not None and retriever is not None:
        raise InputError("give a corpus or a retriever, not both")
    if corpus is not None:
        from ragauge.retrieve.corpus import read_documents

        return {doc_id for doc_id, _, _ in read_documents(Path(corpus))}
    if retriever is None:
        return None
    from ragauge.retrieve.base import RetrieverOptions
    from ragauge.retrieve.registry import open_retriever

    adapter = open_retriever(retriever, RetrieverOptions(config=dict(config or {})))
    try:
        documents = adapter.documents()
    finally:
        adapter.close()
    if documents is None:
        raise InputError(f"the retriever {retriever.split('?')[0]!r} cannot list its documents",
                         hint="check against the corpus instead: " + flag("corpus", "PATH"))
    return documents


def _span_findings(golden: str | Path, corpus: str | Path | None) -> list[Finding]:
    """Span labels the corpus text no longer holds (an error each), those found only away from
    their offsets and quotes found more than once in their document (a warning each), resolved by
    ``ragauge.evaluation.spans`` as evaluations resolve them; without a corpus, one note that the
    spans were not checked."""
    from ragauge.evaluation.spans import has_spans, quote_places, resolve_spans
    from ragauge.formats.corpus import read_corpus_texts
    from ragauge.formats.golden import load_golden

    try:
        golden_set = load_golden(golden)
    except InputError:  # its problems are findings already
        return []
    if not has_spans(golden_set):
        return []
    if corpus is None:
        return [Finding("info", "spans-unchecked", "span labels were not checked against the corpus text",
                        hint=f"pass {flag('corpus', 'PATH')} to find stale, moved and ambiguous spans")]
    texts = read_corpus_texts(corpus).plain
    report = resolve_spans(golden_set, texts).report
    line = {q.id: q.line for q in golden_set}
    found = [Finding("error", "stale-span", f"question {s['id']!r}: the span {s['span']} of {s['doc_id']!r} is stale: "
                     f"{s['why']}", line[s["id"]], (s["id"],),
                     "relabel it against the current text (quote the passage that answers now), or drop it")
             for s in report["stale"]]
    found += [Finding("warning", "moved-span", f"question {s['id']!r}: the span {s['span']} of {s['doc_id']!r} "
                      "was found away from its offsets (the text moved)", line[s["id"]], (s["id"],),
                      "update its start and end to where the quote is now")
              for s in report["relocated"]]
    for q in golden_set:
        for doc, spans in q.spans.items():
            for span in spans:
                many = len(quote_places(span.quote, texts.get(doc, ""))) if span.quote and span.start is None else 0
                if many > 1:
                    found.append(Finding("warning", "ambiguous-span", f"question {q.id!r}: the quote {span.describe()} "
                                         f"occurs {many} times in {doc!r}, and a chunk holding any of them counts",
                                         q.line, (q.id,), "quote more words, or add start and end"))
    return found


def validate_golden(golden: str | Path, *, corpus: str | Path | None = None, retriever: str | None = None,
                    documents: Set[str] | None = None, min_per_tag: int = MIN_PER_TAG,
                    config: Mapping[str, Any] | None = None, run: Any = None,
                    k: int | Sequence[int] = DEFAULT_K, pool: Any = None, pool_depth: int | None = None,
                    max_relevant: int = MAX_RELEVANT,
                    doc_id_sep: str | None = None, doc_id_pattern: str | None = None) -> ValidationReport:
    """Check a golden-set file and return every finding with its line (``report.exit_code`` is 0
    when clean, 1 with findings). Relevant ids are checked against ``documents``, or the ids of a
    ``corpus`` or a ``retriever``'s index when given (stale labels, section labels against a
    document-only index). With a ``run`` of the golden set (and no error), the report also says
    what the set can detect with it at cutoffs ``k`` (``comparison.power.power``). With a ``pool``
    (a pool file from ``golden pool``, or runs pooled at ``pool_depth``, chunk ids mapped by
    ``doc_id_sep``/``doc_id_pattern``), it checks label health (:mod:`ragauge.curation.health`):
    relevant documents no pooled system returns, and how much of the pool is judged. Questions with
    more than ``max_relevant`` relevant documents are flagged (0: never)."""
    if documents is None:
        documents = index_documents(corpus, retriever, config)
    cutoffs = [k] if isinstance(k, int) else list(k)
    report = validate_file(golden, documents=documents, min_per_tag=min_per_tag, max_relevant=max_relevant,
                           k=max(cutoffs) if cutoffs else None)
    if not report.count("error") or corpus is not None:  # span findings need only the file to parse
        report = replace(report, findings=_sorted((*report.findings, *_span_findings(golden, corpus))))
    if report.count("error"):
        return report
    if pool is not None:
        from ragauge.curation.health import load_pool, pool_health
        from ragauge.formats.golden import load_golden

        golden_set = load_golden(golden)
        pooled, name = load_pool(golden_set, pool, pool_depth, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern)
        found, section = pool_health(list(golden_set), pooled, name)
        report = replace(report, findings=_sorted((*report.findings, *found)), pool=section)
    if run is None or not report.answerable:
        return report
    from ragauge.comparison.power import power

    return replace(report, power=power(golden, run, k=k, corpus=corpus).to_dict())
