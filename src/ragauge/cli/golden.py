"""``ragauge golden ...``: build and inspect golden sets."""

from __future__ import annotations

from pathlib import Path

import click


@click.group("golden")
def golden_group() -> None:
    """Build and inspect golden sets.

    \b
    Example:
      ragauge golden import-beir scifact/ --split test -o golden.jsonl
    """


@golden_group.command("import-beir")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv to read.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Golden set JSONL to write.")
def import_beir_command(folder: Path, split: str, output: Path) -> None:
    """Turn a BEIR dataset folder (queries.jsonl + qrels/SPLIT.tsv) into a golden set.

    \b
    Example:
      ragauge golden import-beir scifact/ --split test -o golden.jsonl
    """
    from ragauge.data.golden import write_golden
    from ragauge.formats.beir import import_beir

    golden = import_beir(folder, split)
    write_golden(golden, output)
    click.echo(f"wrote {len(golden)} questions to {output}", err=True)
