"""Judges' agreement for a terminal (``ragauge golden judge-stats``); its JSON is ``JudgeStats.to_dict``."""

from __future__ import annotations

from ragauge.curation.agreement import RULE, SHOWN, JudgeStats
from ragauge.stats.kappa import Kappa


def kappa_text(k: Kappa) -> str:
    return "n/a" if k.value is None else f"{k.value:.3f}"


def grade_text(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def render_stats_text(stats: JudgeStats, *, limit: int = SHOWN) -> str:
    """The stats for a terminal: annotators, kappa per pair (``n/a`` and why when undefined), the
    disagreements with how the rule settles each (the first ``limit``). User text escaped."""
    from ragauge.core.escape import terminal as t
    from ragauge.core.table import text_table

    n = len(stats.annotators)
    out = [f"{t(', '.join(stats.logs)) or 'judgements'}: {n} annotator{'s' if n != 1 else ''}, "
           f"{stats.items} item(s) graded, {len(stats.disagreements)} disagreement(s), {stats.unresolved} unresolved"]
    if stats.annotators:
        out += ["", *text_table(["annotator", "graded", "relevant", "skipped"],
                                [[t(a.name), str(a.graded), str(a.relevant), str(a.skipped)]
                                 for a in stats.annotators])]
    if stats.pairs:
        out += ["", "Cohen's kappa per pair, over the items both graded:"]
        rows = [[f"{t(p.a)} ~ {t(p.b)}", str(p.grades.n),
                 "-" if p.grades.agreement is None else f"{p.grades.agreement:.1%}",
                 kappa_text(p.grades), kappa_text(p.binary)] for p in stats.pairs]
        out += text_table(["pair", "items", "agree", "kappa (grades)", "kappa (relevant or not)"], rows)
        reasons = sorted({f"{t(p.a)} ~ {t(p.b)}: n/a, {k.reason}" for p in stats.pairs for k in (p.grades, p.binary)
                          if k.value is None and k.reason})
        out += [f"  {r}" for r in reasons]
    elif n == 1:
        out += ["", "one annotator: no agreement to measure (kappa needs two)"]
    out += ["", f"adjudication rule: {RULE}"
            + (f"; adjudicator: {t(stats.adjudicator)}" if stats.adjudicator else "; no adjudicator named")]
    if stats.disagreements:
        rows = [[f"{t(r.question)} / {t(r.doc_id)}",
                 "UNRESOLVED" if r.grade is None else f"{grade_text(r.grade)} ({r.how})",
                 " ".join(f"{t(a)}={grade_text(g)}" for a, g in sorted(r.grades.items()))]
                for r in stats.disagreements[:limit]]
        out += ["", "disagreements:", *text_table(["question / document", "merged as", "grades"], rows)]
        if len(stats.disagreements) > limit:
            out.append(f"  ... {len(stats.disagreements) - limit} more (--format json lists them all)")
    out += [f"NOTE: {t(note)}" for note in stats.notes]
    return "\n".join(out) + "\n"
