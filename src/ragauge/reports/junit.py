"""The JUnit XML report: one testcase per answerable question, so CI systems list the misses natively.

A question fails when no relevant document is in its top k, k being the largest cutoff among the
result's metrics (with no cutoff at all: anywhere in the fetched list). A question whose retriever
call raised is an ``<error>``; the no-answer questions are not test cases. The XML is built with
ElementTree (which writes ``& < > "`` as references), every text and attribute through
:func:`ragauge.core.escape.xml` (which makes the characters XML 1.0 cannot hold visible).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ragauge.core import escape
from ragauge.evaluation.patterns import PATTERNS
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.reports import failures
from ragauge.reports.agents import sections
from ragauge.reports.views import found, lower_note, max_cutoff, mean_text, relevant_ids, source_caption, source_rows

SHOWN_DOCS = 10


def _details(q: QueryScore, k: int | None) -> list[str]:
    """Why the question failed (and its failure pattern, with the fix), then what was asked, expected
    and returned."""
    where = f"in the top {k}" if k is not None else "retrieved"
    if q.status == "error":
        why = f"the retriever failed: {q.error or 'unknown error'}"
    elif q.status == "missing":
        why = f"missing from the run: no relevant document {where}"
    elif q.first_relevant_rank:
        why = f"no relevant document {where}: the first is at rank {q.first_relevant_rank}"
    else:
        why = f"no relevant document {where}"
    returned = [("+" if r.relevant else "") + r.doc_id for r in q.top[:k or SHOWN_DOCS]]
    pattern = [] if q.failure is None else [f"pattern: {failures.why(q)}"] + (
        [f"fix: {PATTERNS[q.failure.primary].fix}"] if q.failure.primary in PATTERNS else [])
    return [why, *pattern, f"query: {q.query}", f"expected: {', '.join(relevant_ids(q))}",
            f"returned (top {k or len(returned)}, + = relevant): {', '.join(returned) or '(nothing)'}"]


def render_junit(evaluation: Evaluation) -> str:
    """The JUnit XML report (one ``<testsuite>`` inside ``<testsuites>``)."""
    k = max_cutoff(evaluation)
    suite = ET.Element("testsuite", name="ragauge")
    props = ET.SubElement(suite, "properties")
    meta = evaluation.meta
    pairs = [("golden", meta.get("golden", {}).get("path")), ("golden.hash", meta.get("golden", {}).get("hash")),
             ("run", meta.get("run", {}).get("path")), ("run.hash", meta.get("run", {}).get("hash")),
             ("ragauge.version", meta.get("ragauge_version")),
             ("pass.rule", f"a relevant document in the top {k}" if k else "a relevant document retrieved")]
    pairs += [(f"mean.{m}", f"{evaluation.summary.get(m, 0.0):.4f}") for m in evaluation.metrics]
    lower = lower_note(evaluation.metrics)
    if lower:
        pairs.append(("counts.note", lower))
    sources = source_rows(evaluation)
    if sources:
        pairs.append(("source.note", source_caption(evaluation)))
    for row in sources:
        pairs += [(f"source.{row.source}.n", str(row.n)),
                  *((f"source.{row.source}.mean.{m}", mean_text(row.means[m])) for m in evaluation.metrics)]
    for section in sections(evaluation):  # a row a property: stages.step.first → rerank = promoted=4; ...
        pairs += [(f"{section.key}.{row[0]}", "; ".join(f"{h}={c}" for h, c in zip(section.header[1:], row[1:])))
                  for row in section.rows]
    for name, value in pairs:
        if value is not None:
            ET.SubElement(props, "property", name=escape.xml(name), value=escape.xml(value))
    failures = errors = 0
    total_time = 0.0
    for q in evaluation.queries:
        case = ET.SubElement(suite, "testcase", classname=escape.xml(q.tags[0] if q.tags else "ragauge"),
                             name=escape.xml(q.id))
        if q.latency_ms is not None:
            case.set("time", f"{q.latency_ms / 1000.0:.3f}")
            total_time += q.latency_ms / 1000.0
        if q.status == "error":
            errors += 1
            tag, kind = "error", "RetrieverError"
        elif not found(q, k):
            failures += 1
            tag, kind = "failure", "NoRelevantDocument"
        else:
            continue
        details = _details(q, k)
        message = "; ".join(" ".join(line.split()) for line in details)
        node = ET.SubElement(case, tag, message=escape.xml(message), type=kind)
        node.text = escape.xml("\n".join(details))
    counts = {"tests": len(evaluation.queries), "failures": failures, "errors": errors, "skipped": 0}
    for name, value in counts.items():
        suite.set(name, str(value))
    suite.set("time", f"{total_time:.3f}")
    root = ET.Element("testsuites", {"name": "ragauge", **{n: str(v) for n, v in counts.items() if n != "skipped"},
                                     "time": f"{total_time:.3f}"})
    root.append(suite)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
