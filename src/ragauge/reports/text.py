"""The terminal report: summary with its contract, per tag (weakest first), worst questions, warnings."""

from __future__ import annotations

from ragauge.evaluation.result import Evaluation, QueryScore

WORST = 15
SMALL_TAG = 5


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]


def worst_questions(evaluation: Evaluation, n: int = WORST) -> list[QueryScore]:
    """The n weakest answerable questions: lowest first metric, then relevant found latest (or never)."""
    primary = evaluation.metrics[0]
    def key(q: QueryScore) -> tuple[float, int, str]:
        rank = q.first_relevant_rank
        return (q.values.get(primary, 0.0), -(rank if rank else 10**9), q.id)
    return sorted(evaluation.queries, key=key)[:n]


def render_text(evaluation: Evaluation, worst: int = WORST) -> str:
    m = evaluation.metrics
    meta = evaluation.meta
    counts = meta["counts"]
    contract = meta["contract"]
    out: list[str] = []
    out.append(f"ragauge {meta['ragauge_version']}  golden: {meta['golden']['path']}  run: {meta['run']['path']}")
    out.append("")
    out += _table(["metric", "mean"], [[name, f"{evaluation.summary[name]:.4f}"] for name in m])
    fetch = contract["fetch"] if contract["fetch"] is not None else "all hits"
    out.append("")
    out.append(f"contract: k={','.join(map(str, contract['k'])) or '-'}  fetch={fetch}  relevant: {contract['relevance']}")
    out.append(f"          dedup: {contract['dedup']}; {contract['doc_id']}")
    out.append(f"          means over {counts['answerable']} answerable of {counts['questions']} questions; "
               f"{counts['no_answer']} no-answer question(s) reported apart")

    if evaluation.by_tag:
        out.append("")
        out.append("by tag (weakest first)")
        rows = []
        for tag, vals in evaluation.by_tag.items():
            n = int(vals["n"])
            rows.append([tag + (" *" if n < SMALL_TAG else ""), str(n), *(f"{vals[name]:.4f}" for name in m)])
        out += _table(["tag", "n", *m], rows)
        if any(int(v["n"]) < SMALL_TAG for v in evaluation.by_tag.values()):
            out.append(f"* fewer than {SMALL_TAG} questions: too few to mean much")

    bad = worst_questions(evaluation, worst)
    if bad:
        out.append("")
        out.append(f"worst {len(bad)} questions (by {m[0]})")
        for q in bad:
            rank = q.first_relevant_rank
            where = f"first relevant at rank {rank}" if rank else "no relevant document retrieved"
            if q.status != "ok":
                where = f"{q.status}" + (f": {q.error}" if q.error else "")
            out.append(f"  {q.id}  {m[0]}={q.values.get(m[0], 0.0):.4f}  {where}")
            out.append(f"    query:    {q.query[:100]}")
            out.append(f"    expected: {', '.join(q.relevant)}")
            got = [("+" if r.relevant else "") + r.doc_id for r in q.top[:5]]
            out.append(f"    returned: {', '.join(got) if got else '(nothing)'}")

    na = evaluation.no_answer
    if na.get("n"):
        out.append("")
        out.append(f"no-answer questions: {na['n']} (not in any mean)")
        for q in na["questions"][:10]:
            top = q["top"][0]["doc_id"] if q["top"] else "(nothing)"
            out.append(f"  {q['id']}  top: {top}")

    if evaluation.warnings:
        out.append("")
        out.append("warnings")
        out += [f"  ! {w}" for w in evaluation.warnings]
    return "\n".join(out) + "\n"
