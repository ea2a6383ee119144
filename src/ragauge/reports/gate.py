"""Renderers for a gate result: text, Markdown, JSON and JUnit (one testcase per rule).

Rules, messages and question details carry user text (tag names, question ids and text, paths, the
baseline's reason), each put through the output language's escaper in :mod:`ragauge.core.escape`:
a crafted id cannot print a line of its own (a fake "gate PASSED"), a link or a mention.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ragauge.core import escape
from ragauge.gating.check import GateResult, RuleOutcome
from ragauge.reports.predicted import gate_sections, lines, markdown_lines
from ragauge.reports.table import mde_text


def question_line(q: dict[str, object]) -> str:
    """A question behind a rule in one line: ``id: key=value, ...`` (floats to 4 decimals); the
    count of those not listed (``+N more``), or a hint, in words."""
    if set(q) == {"more"}:
        return f"+{q['more']} more"
    if "id" not in q:
        return "; ".join(f"{k}: {v}" for k, v in q.items())
    parts = [f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in q.items() if k != "id"]
    return f"{q.get('id', '')}: " + ", ".join(parts)


def power_line(result: GateResult) -> str | None:
    """What the golden set can detect per gated metric (``meta["power"]``), in one line; for a
    sequential gate, how far it went."""
    run = result.meta.get("sequential")
    if run:
        return (f"sequential: asked {run['asked']} of {run['available']} questions ({run['calls']} retriever calls, "
                f"order seed {run['seed']}); {result.meta.get('method', '')}")
    power = result.meta.get("power") or []
    if not power:
        return None
    parts = [f"{p['metric']} {mde_text(p['mde'])}" for p in power]
    return (f"smallest change the {power[0]['n']} questions detect (80% power): " + ", ".join(parts))


def rules_from(result: GateResult) -> str:
    """Where the gate's rules came from: a config file found or given, the baseline's record, or the
    defaults (a gate run without --config reads a ragauge.toml it finds: said, never silent)."""
    return result.meta.get("rules_source") or "the defaults (no [gate] table found, none recorded in the baseline)"


def render_gate_text(result: GateResult) -> str:
    t = escape.terminal
    out = [f"gate {'PASSED' if result.passed else 'FAILED'}  baseline: {t(result.meta['baseline'])} "
           f"({t(result.meta.get('baseline_created'))}; reason: {t(result.meta.get('baseline_reason'))})",
           f"  rules: {t(rules_from(result))}"]
    out += [f"  {t(w)}" for w in result.meta.get("warnings", [])]
    line = power_line(result)
    if line:
        out.append(f"  {t(line)}")
    out += [f"  {x}" for x in lines(gate_sections(result.meta), t)]  # with --auto-labels: the PPI difference
    for o in result.outcomes:
        out.append(f"  [{'pass' if o.passed else 'FAIL'}] {t(o.rule)}")
        out.append(f"         {t(o.message)}")
        for q in o.questions:
            out.append(f"         - {t(question_line(q))}")
    n = len(result.failures)
    out.append(f"{n} of {len(result.outcomes)} rule(s) failed" if n else f"all {len(result.outcomes)} rule(s) hold")
    return "\n".join(out) + "\n"


def render_gate_markdown(result: GateResult) -> str:
    md = escape.markdown
    icon = "✅" if result.passed else "❌"
    out = [f"### {icon} ragauge gate {'passed' if result.passed else 'failed'}", "",
           f"<sub>rules: {md(rules_from(result))}</sub>", "",
           *[f"> ⚠️ {md(w)}\n" for w in result.meta.get("warnings", [])],
           "| | rule | result |", "|---|---|---|"]
    for o in result.outcomes:
        out.append(f"| {'✅' if o.passed else '❌'} | {md(o.rule)} | {md(o.message)} |")
    line = power_line(result)
    if line:
        out += ["", f"<sub>{md(line)}</sub>"]
    out += markdown_lines(gate_sections(result.meta))  # with --auto-labels: the PPI difference
    for o in result.failures:
        if o.questions:
            out += ["", f"<details><summary>questions behind: {md(o.rule, in_html=True)}</summary>", ""]
            out += [f"- {md(question_line(q))}" for q in o.questions]
            out += ["", "</details>"]
    return "\n".join(out) + "\n"


def render_gate_junit(result: GateResult) -> str:
    suite = ET.Element("testsuite", name="ragauge gate", tests=str(len(result.outcomes)),
                       failures=str(len(result.failures)), errors="0", skipped="0")
    for o in result.outcomes:
        case = ET.SubElement(suite, "testcase", classname=escape.xml(f"ragauge.gate.{o.kind}"),
                             name=escape.xml(o.rule))
        if not o.passed:
            failure = ET.SubElement(case, "failure", message=escape.xml(o.message))
            failure.text = escape.xml("\n".join(question_line(q) for q in o.questions) or o.message)
    shown = lines(gate_sections(result.meta))  # with --auto-labels: the PPI difference beside the human-only
    if shown:
        ET.SubElement(suite, "system-out").text = escape.xml("\n".join(shown))
    if result.meta.get("warnings"):
        ET.SubElement(suite, "system-err").text = escape.xml("\n".join(result.meta["warnings"]))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def render_gate(result: GateResult, fmt: str) -> str:
    """``result`` as ``fmt`` (``reports.registry``)."""
    from ragauge.reports.registry import render

    return render("gate", result, fmt)


__all__ = ["RuleOutcome", "render_gate"]
