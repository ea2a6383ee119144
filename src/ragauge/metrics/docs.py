"""Documentation generated from the registry (docs/reference/metrics.md's table is this output)."""

from __future__ import annotations

from ragauge.metrics.registry import METRICS

_FORMS = {"required": "{name}@k", "optional": "{name}, {name}@k", "none": "{name}"}


def markdown_table() -> str:
    """The metric contract table in Markdown, one row per registered family."""
    rows = ["| spec | what it says | formula (per question) | trec_eval |", "|---|---|---|---|"]
    for f in METRICS.values():
        forms = _FORMS[f.cutoff].format(name=f.name).split(",") + ([f"{f.name}@Nt"] if f.budget_kernel else [])
        spec = ", ".join(f"`{s.strip()}`" for s in forms)
        rows.append(f"| {spec} | {f.summary} | {f.formula} | `{f.trec_eval}` |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
