"""The golden-set validation report for a terminal (``ragauge golden validate``); its JSON is
``ValidationReport.to_dict``."""

from __future__ import annotations

from ragauge.curation.validate import ValidationReport
from ragauge.errors import where


def render_validation_text(report: ValidationReport) -> str:
    """The report for a terminal: a summary line, each finding with file:line, the tag counts. Paths,
    messages, hints and tags go through :func:`ragauge.core.escape.terminal` (they quote the file)."""
    from ragauge.core.escape import terminal as t

    out = [f"{t(report.source)}: {report.questions} questions ({report.answerable} answerable, "
           f"{report.no_answer} no-answer), {len(report.tags)} tags"]
    if report.documents is not None:
        out.append(f"relevant ids checked against {report.documents} documents "
                   "(a section id doc#section counts as present when doc is)")
    if report.findings:
        out.append("")
    for f in report.findings:
        place = where(report.source, f.line) if f.line is not None else report.source
        out.append(f"{t(f.severity.upper()):7} {t(place)}: [{t(f.code)}] {t(f.message)}")
        if f.hint:
            out.append(f"        hint: {t(f.hint)}")
    if report.tags:
        out.append("")
        out.append("questions per tag: " + ", ".join(
            f"{t(tag)} {n}" + ("*" if n < report.min_per_tag else "") for tag, n in report.tags.items()))
        if any(n < report.min_per_tag for n in report.tags.values()):
            out.append(f"  * fewer than {report.min_per_tag} questions (--min-per-tag)")
    if report.pool is not None:
        from ragauge.curation.health import render_pool_lines

        out += ["", *render_pool_lines(report.pool)]
    if report.power is not None:
        from ragauge.comparison.power import PowerReport
        from ragauge.reports.power import render_power_text

        out += ["", *render_power_text(PowerReport.from_dict(report.power)).rstrip("\n").splitlines()]
    errors, warnings = report.count("error"), report.count("warning")
    out.append("")
    out.append("clean: no errors, no warnings" if not errors and not warnings else
               f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}")
    return "\n".join(out) + "\n"
