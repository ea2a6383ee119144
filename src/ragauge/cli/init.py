"""``ragauge init``: the files for a first gate (``ragauge.scaffold``)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("init")
@click.argument("folder", type=click.Path(path_type=Path), default=".")
@click.option("--retriever", "spec", help="The retriever spec the workflow and the next steps use "
                                          "(default: bm25:docs, the built-in BM25 over a docs/ folder).")
@click.option("--action", help="Use the ragauge GitHub Action at this reference (e.g. OWNER/ragauge@v0.1.0) in the "
                               "workflow; default: pip install ragauge and the gate command.")
def init_command(folder: Path, spec: str | None, action: str | None) -> None:
    """Write ragauge.toml, eval/golden.jsonl and a GitHub workflow that gates pull requests.

    A file that exists is kept as it is (never written over). The three commands printed last
    take a new project to its first gate.

    \b
    Example:
      ragauge init . --retriever bm25:docs
    """
    from ragauge.api.tools import DEFAULT_RETRIEVER, init_project
    from ragauge.core.escape import terminal

    done = init_project(folder, retriever=spec or DEFAULT_RETRIEVER, action=action)
    for path in done.written:
        click.echo(f"wrote {terminal(str(path))}")
    for path in done.kept:
        click.echo(f"kept  {terminal(str(path))} (it exists: not written over)")
    click.echo("next:")
    for number, step in enumerate(done.next_steps, start=1):
        click.echo(f"  {number}. {terminal(step)}")
