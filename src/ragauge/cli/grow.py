"""``ragauge golden add --from-log`` and ``ragauge golden merge``: grow a golden set from production failures."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import DEFAULT_FEEDBACK
from ragauge.errors import InputError


def _feedback(text: str) -> tuple[str, ...] | None:
    values = tuple(v.strip() for v in text.split(",") if v.strip())
    if not values:
        raise InputError("--feedback needs at least one value", hint="e.g. --feedback thumbs_down,missed, or all")
    return None if "all" in values else values


@click.command("add")
@click.option("--from-log", "log", type=click.Path(path_type=Path), required=True,
              help="Production log, JSON Lines: query, retrieved, feedback, timestamp (common aliases accepted).")
@click.option("--golden", "against", type=click.Path(path_type=Path), multiple=True,
              help="Golden set (or pending candidates) to deduplicate against; repeatable.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Candidates JSONL to write.")
@click.option("--feedback", "feedback", default=",".join(DEFAULT_FEEDBACK), show_default=True,
              help="Keep log lines with this feedback (comma-separated); 'all' keeps every line.")
@click.option("--no-scrub", is_flag=True, help="Keep questions as logged (default: redact personal data).")
@click.option("--source", help="Written to each candidate's 'source' (default: the log file's name).")
def add_command(log: Path, against: tuple[Path, ...], output: Path, feedback: str, no_scrub: bool,
                source: str | None) -> None:
    """Turn production log lines with negative feedback into candidate golden entries for review.

    Questions are scrubbed of personal data, deduplicated against the golden set and each
    other (normalised words, Jaccard >= 0.8), given new ids ("cand-<hash>"), the date added
    and the source, with the documents retrieved kept as "hint_retrieved". Each candidate
    has "relevant": null and "status": "needs-review": fill "relevant" (or mark it
    "relevant": [] with "no_answer": true, or "status": "rejected"), then run 'golden merge'.

    \b
    Log line:
      {"query": "...", "retrieved": ["kb-1", "kb-7"], "feedback": "thumbs_down", "timestamp": "..."}

    \b
    Example:
      ragauge golden add --from-log logs/2026-11.jsonl --golden golden.jsonl -o candidates.jsonl
    """
    from ragauge.api.golden import add_from_log

    candidates, report = add_from_log(log, against, output, feedback=_feedback(feedback), scrub=not no_scrub,
                                      source=source)
    for line in report.lines():
        click.echo(line, err=True)
    click.echo(f"wrote {len(candidates)} candidate(s) to {output}; review them, then: "
               f"ragauge golden merge GOLDEN {output} -o GOLDEN", err=True)


@click.command("merge")
@click.argument("golden", type=click.Path(path_type=Path))
@click.argument("candidates", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Merged golden set to write (may be GOLDEN itself; written atomically).")
def merge_command(golden: Path, candidates: Path, output: Path) -> None:
    """Append reviewed candidates to a golden set.

    Refuses (exit 2, naming file:line) candidates whose "relevant" is missing or null, an
    empty "relevant" without "no_answer": true, and ids already used. Candidates with
    "status": "rejected" are dropped. Review fields (status, hint_retrieved, feedback, seen,
    first_seen, log_ref, scrubbed, leakage) are stripped; added, source and drafted_by are
    kept. The golden set's own lines are copied unchanged.

    \b
    Example:
      ragauge golden merge golden.jsonl candidates.jsonl -o golden.jsonl
    """
    from ragauge.api.golden import merge_candidates

    report = merge_candidates(golden, candidates, output)
    click.echo(f"merged {report.merged} candidate(s) into {report.golden} question(s)"
               f"{f', dropped {report.rejected} rejected' if report.rejected else ''}; wrote {output}", err=True)
