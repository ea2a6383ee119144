"""``ragauge sweep``: a grid of built-in retriever configurations, run and compared at once."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from ragauge.api.defaults import DEFAULT_FACTOR, DEFAULT_FORMAT, SWEEP_OUTPUT
from ragauge.cli.options import write_output
from ragauge.cli.report import no_color_option, terminal_style
from ragauge.cli.tracking import log_to_mlflow, mlflow_option
from ragauge.reports.registry import formats


def stage_progress() -> Callable[[str, int, int, str], None] | None:
    """A one-line display per stage (count, elapsed, ETA from the pace so far) on a terminal; None
    when stderr is not one (CI, a pipe)."""
    if not sys.stderr.isatty() or os.environ.get("CI"):
        return None
    from ragauge.core.escape import terminal

    started: dict[str, float] = {}

    def show(stage: str, done: int, total: int, label: str) -> None:
        now = time.monotonic()
        start = started.setdefault(stage, now)
        elapsed = now - start
        eta = f"{elapsed / done * (total - done):5.0f}s" if done and stage == "run" else "    ?"
        what = "indexes" if stage == "index" else "questions"
        sys.stderr.write(f"\r\x1b[K{stage}: {done}/{total} {what}  {elapsed:5.0f}s  eta {eta}  {terminal(label)[:60]}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


@click.command("sweep")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--corpus", required=True, type=click.Path(path_type=Path),
              help="The corpus the built-in retrievers index (.jsonl, .jsonl.gz or a folder of .md/.txt/.html).")
@click.option("--config", "config_path", required=True, type=click.Path(path_type=Path),
              help="The sweep file (TOML): [sweep] settings and one [[config]] table per configuration or grid.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path(SWEEP_OUTPUT), show_default=True,
              help="Folder for the index cache, every configuration's run and sweep.json.")
@click.option("--holdout", type=float, help="Tune on the other questions and measure the chosen configuration on "
                                            "this share, split by a hash of the question id (e.g. 0.3).")
@click.option("--holdout-tag", help="Tune on the other questions and measure the chosen configuration on the "
                                    "questions with this tag.")
@click.option("--budget", type=int, help="Successive halving: at most this many retrievals (question x configuration) "
                                        "in all; configurations are dropped on samples of the tuning questions and the "
                                        "survivors confirmed on all of them (see docs/sweep.md).")
@click.option("--factor", type=int, help="With --budget: keep the best 1/FACTOR of the configurations each round "
                                         f"[default: {DEFAULT_FACTOR}].")
@click.option("--format", "fmt", type=click.Choice(formats("sweep")), default=DEFAULT_FORMAT,
              show_default=True)
@click.option("--report", type=click.Path(path_type=Path), help="Write the report here instead of stdout. The HTML "
              "page links each configuration to its eval report in DIR/reports/, relative to this file (to the "
              "current folder on stdout).")
@no_color_option()
@mlflow_option
def sweep_command(golden: Path, corpus: Path, config_path: Path, output: Path, holdout: float | None,
                  holdout_tag: str | None, budget: int | None, factor: int | None, fmt: str,
                  report: Path | None, no_color: bool, mlflow: bool | None) -> None:
    """Run a grid of built-in retriever configurations and compare them with honest statistics.

    The sweep file lists configurations of the built-in bm25, dense and hybrid retrievers; a list
    value makes a grid (chunk size, overlap, unit, title handling, embedder, BM25 k1/b, hybrid fusion
    by RRF k or weighted scores, fetch depth). Each index is built once, cached in the output folder
    keyed by the corpus content, settings and embedder, and shared; every configuration's run is
    kept there, so 'ragauge compare' works on any pair. The table shows each metric with its
    difference and interval against the reference (Holm over configurations x metrics), latency
    p50/p95, index build time and size, and the Pareto frontier; a winner is named only when it is
    significantly ahead of every other configuration. --holdout measures the chosen configuration
    on questions it was not chosen on; --budget N runs successive halving within N retrievals.

    \b
    Examples:
      ragauge sweep examples/helpdesk/golden.jsonl --corpus examples/helpdesk/sections.jsonl \\
          --config examples/helpdesk/sweep.toml -o sweep/
      ragauge sweep golden.jsonl --corpus corpus.jsonl --config sweep.toml --holdout 0.3 --format markdown
      ragauge sweep golden.jsonl --corpus corpus.jsonl --config big.toml --budget 5000 --format html --report sweep.html
      ragauge compare sweep/runs/bm25-sections.jsonl sweep/runs/hybrid-fusion-rrf.jsonl \\
          --golden examples/helpdesk/golden.jsonl
    """
    from ragauge.api.report import render
    from ragauge.api.sweep import sweep

    result = sweep(golden, corpus, config_path, output, holdout=holdout, holdout_tag=holdout_tag, budget=budget,
                   factor=factor, on_progress=stage_progress())
    if fmt == "html":
        from ragauge.api.sweep import sweep_page

        write_output(sweep_page(result, golden, output, None if report is None else report.parent), report)
    else:
        write_output(render(result, fmt, **(terminal_style(report, no_color) if fmt == "text" else {})), report)
    click.echo(f"runs and sweep.json in {output}", err=True)
    log_to_mlflow(result, mlflow, None, folder=output, golden=golden)
