"""What the reports show of prediction-powered metrics (``--auto-labels``), laid out once as tables of
plain text (``reports.agents.Section``) that each renderer escapes for its language and draws:

- an evaluation's ``meta["ppi"]`` (``predicted.evaluate``): per metric, the human-only mean and
  interval beside the PPI estimate and interval, how their widths compare (PPI wider is said so), the
  effective number of human labels; the method, the assessor and its agreement, the split of judged@k;
- what the assessor says where no human label measures (no labelled question at all, or a tag
  without one), titled so that nobody reads it as a measurement;
- a comparison's ``meta["ppi"]`` (``predicted.difference``): the paired difference the same way;
- a gate's ``meta["ppi"]`` (``gating.predicted``): the difference from the baseline the rules decide on.

Nothing here is shown for a result without automatic labels (its reports are unchanged). Every
string taken from the data (metric, tag and assessor names, paths) is user text, escaped by the
renderer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragauge.reports.agents import Section
from ragauge.reports.views import interval_text, mean_text

NAN = float("nan")
NONE = "-"


def _number(value: Any, signed: bool = False) -> str:
    number = NAN if value is None else float(value)
    if number != number:
        return "n/a"
    return f"{number:+.4f}" if signed else mean_text(number)


def _interval(value: Any) -> str:
    return interval_text(None if value is None else (float(value[0]), float(value[1])))


def _width(entry: Mapping[str, Any]) -> str:
    ratio = entry.get("width_ratio")
    if ratio is None:
        return NONE
    if ratio > 1.0:
        return f"{ratio:.2f}x wider"
    return f"{ratio:.2f}x"


def _effective(entry: Mapping[str, Any]) -> str:
    value = entry.get("effective_n")
    if "estimate" not in entry:
        return NONE
    return "n/a" if value is None else f"{value:.1f}"


def _rows(metrics: Mapping[str, Mapping[str, Any]], signed: bool) -> tuple[tuple[str, ...], ...]:
    return tuple((m, _number(e.get("human"), signed), _interval(e.get("human_interval")),
                  _number(e.get("estimate"), signed) if "estimate" in e else NONE,
                  _interval(e.get("interval")) if "estimate" in e else NONE, _width(e), _effective(e))
                 for m, e in metrics.items())


def _header(ppi: Mapping[str, Any], what: str) -> tuple[str, ...]:
    pct = f"{1.0 - float(ppi.get('alpha', 0.05)):.0%}"
    q = ppi.get("questions", {})
    n, big = q.get("labelled", 0), q.get("unlabelled", 0)
    return (what, f"human-only (n={n})", f"{pct} interval", f"PPI ({n} + {big})", f"{pct} interval",
            "PPI width", "effective labels")


def _common_notes(ppi: Mapping[str, Any]) -> list[str]:
    q = ppi.get("questions", {})
    out = [f"{ppi.get('method_text', ppi.get('method', '?'))}: {q.get('labelled', 0)} human-labelled and "
           f"{q.get('unlabelled', 0)} automatically labelled question(s); the human-only interval is the same "
           f"method's on the labelled questions alone. Effective labels: how many human labels the human-only "
           f"mean would need for the PPI++ estimate's variance."]
    if ppi.get("target_text"):
        out.append(f"estimated: {ppi['target_text']}")
    agreement = ppi.get("agreement") or {}
    assessor = (ppi.get("auto_labels") or {}).get("assessor", "?")
    kappa = agreement.get("kappa")
    shown = "undefined" + (f" ({agreement['undefined']})" if agreement.get("undefined") else "") if kappa is None \
        else f"{kappa:.3f}"
    out.append(f"assessor {assessor}: weighted kappa {shown} with the human labels over {agreement.get('pairs', 0)} "
               f"pair(s) of {agreement.get('questions', 0)} question(s) (golden agreement gives its interval)")
    out += [f"{m}: no PPI estimate ({e['reason']})" for m, e in (ppi.get("metrics") or {}).items() if e.get("reason")]
    out += list(dict.fromkeys(e["interval_note"] for e in (ppi.get("metrics") or {}).values()
                              if e.get("interval_note")))  # one sentence for every metric it applies to
    return out


def evaluation_sections(meta: Mapping[str, Any]) -> list[Section]:
    """The tables of an evaluation's ``meta["ppi"]`` (none without one)."""
    ppi = meta.get("ppi")
    if not isinstance(ppi, Mapping):
        return []
    out: list[Section] = []
    says = ppi.get("assessor_says")
    if says is not None:
        out.append(Section("ppi.assessor", "What the assessor says (not a measurement)", ("metric", "assessor says"),
                           tuple((m, _number(v)) for m, v in says.items() if m != "n"),
                           (f"no question carries a human label: these are the assessor's "
                            f"({(ppi.get('auto_labels') or {}).get('assessor', '?')}) figures over {says.get('n')} "
                            "question(s), with errors nobody has measured; label some questions to measure",)))
        return out
    notes = _common_notes(ppi)
    human_only = ppi.get("human_only") or []
    if human_only:
        notes.append(f"{', '.join(human_only)}: human-only (counts of calls and judged@k are not estimated by PPI)")
    notes += _judged_note(meta)
    out.append(Section("ppi", "Prediction-powered estimates (human-only beside PPI)", _header(ppi, "metric"),
                       _rows(ppi.get("metrics") or {}, False), tuple(notes)))
    by_tag = ppi.get("assessor_says_by_tag") or {}
    if by_tag:
        names = [m for m in next(iter(by_tag.values())) if m != "n"]
        out.append(Section("ppi.tags", "What the assessor says for tags without a human label (not a measurement)",
                           ("tag", "n", *names),
                           tuple((t, str(v.get("n", 0)), *(_number(v.get(m)) for m in names))
                                 for t, v in by_tag.items()),
                           ("no question of these tags carries a human label: the assessor's figures, not "
                            "measurements",)))
    return out


def _judged_note(meta: Mapping[str, Any]) -> list[str]:
    cover = (meta.get("ppi") or {}).get("coverage") or {}
    if not cover or cover.get("human") is None:
        return []
    k = cover.get("k")
    text = (f"judged@{k}: {cover['human']:.1%} of the labelled questions' top {k} carry a human label, "
            f"{cover.get('automatic') or 0.0:.1%} an automatic one only")
    if cover.get("holes"):
        text += (f" ({cover['holes']} hole(s), {cover.get('holes_relevant', 0)} relevant to the assessor: "
                 + ("filled with its labels, --unjudged unknown)" if cover.get("filled") else
                    "counted not relevant)"))
    if cover.get("unlabelled_automatic") is not None:
        text += f"; the assessor saw {cover['unlabelled_automatic']:.1%} of the unlabelled questions' top {k}"
    return [text]


def comparison_sections(meta: Mapping[str, Any], sides: str = "new - base") -> list[Section]:
    """The tables of a comparison's ``meta["ppi"]`` (none without one): the paired difference
    (``sides``) per metric, human-only beside PPI, or what the assessor says when no question is labelled."""
    ppi = meta.get("ppi")
    if not isinstance(ppi, Mapping):
        return []
    says = ppi.get("assessor_says")
    if says is not None:
        return [Section("ppi.assessor", "What the assessor says of the difference (not a measurement)",
                        ("metric", f"assessor says ({sides})"),
                        tuple((m, _number(v, True)) for m, v in says.items() if m != "n"),
                        (f"no question carries a human label: the assessor's "
                         f"({(ppi.get('auto_labels') or {}).get('assessor', '?')}) figures over {says.get('n')} "
                         "question(s), with errors nobody has measured: no verdict",))]
    notes = _common_notes(ppi)
    verdicts = [f"{m}: {e['verdict']}" for m, e in (ppi.get("metrics") or {}).items() if e.get("verdict")]
    if verdicts:
        notes.append("by PPI: " + "; ".join(verdicts))
    return [Section("ppi", f"Prediction-powered difference, {sides} (human-only beside PPI)",
                    _header(ppi, "metric"), _rows(ppi.get("metrics") or {}, True), tuple(notes))]


def gate_sections(meta: Mapping[str, Any]) -> list[Section]:
    """The table of a gate's ``meta["ppi"]`` (``gating.predicted``; none without one): each gated metric's
    difference now - baseline, human-only beside PPI, and how the rules decide on it."""
    out = comparison_sections(meta, "now - baseline")
    ppi = meta.get("ppi")
    if not out or not isinstance(ppi, Mapping):
        return out
    human_only = ppi.get("human_only") or []
    notes = [*out[0].notes, "the metric rules decide on the PPI difference; multiplicity correction: "
                            f"{ppi.get('correction')}"]
    if human_only:
        notes.append(f"decided on the human labels alone: {', '.join(human_only)}")
    return [Section(out[0].key, out[0].title, out[0].header, out[0].rows, tuple(notes))]


def lines(sections: Sequence[Section], escape: Callable[[str], str] = str) -> list[str]:
    """Sections as plain lines (for a gate's text): a title, an aligned table, the notes; every string
    from the data put through ``escape`` first (the terminal's escaper for a terminal report)."""
    from ragauge.core.table import text_table

    out: list[str] = []
    for s in sections:
        out.append(escape(s.title))
        table = text_table([escape(h) for h in s.header], [[escape(x) for x in row] for row in s.rows])
        out += ["  " + line for line in table]
        out += ["  " + escape(n) for n in s.notes]
    return out


def markdown_lines(sections: Sequence[Section]) -> list[str]:
    """Sections as Markdown: a bold title, a table, the notes in small print; every string escaped."""
    from ragauge.core.escape import markdown as md

    out: list[str] = []
    for section in sections:
        out += ["", f"**{md(section.title)}**", "", "| " + " | ".join(md(h) for h in section.header) + " |",
                "|" + "---|" * len(section.header)]
        out += ["| " + " | ".join(md(x) for x in row) + " |" for row in section.rows]
        out += ["", "<sub>" + "<br>".join(md(n) for n in section.notes) + "</sub>"] if section.notes else []
    return out
