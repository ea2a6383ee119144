"""``ragauge golden ...``: build and inspect golden sets."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import (
    BEIR_SPLIT,
    DEFAULT_DEPTH,
    DEFAULT_FORMAT,
    MAX_RELEVANT,
    MIN_PER_TAG,
    NER_MODEL,
    PHONE_REGIONS,
    SCRUB_FIELDS,
)
from ragauge.api.metrics import DEFAULT_K
from ragauge.core.escape import terminal
from ragauge.errors import InputError
from ragauge.reports.registry import formats


@click.group("golden")
def golden_group() -> None:
    """Build and inspect golden sets.

    \b
    Example:
      ragauge golden import-beir scifact/ --split test -o golden.jsonl
    """


@golden_group.command("import-beir")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--split", default=BEIR_SPLIT, show_default=True, help="Which qrels/<split>.tsv to read.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Golden set JSONL to write.")
def import_beir_command(folder: Path, split: str, output: Path) -> None:
    """Turn a BEIR dataset folder (queries.jsonl + qrels/SPLIT.tsv) into a golden set.

    \b
    Example:
      ragauge golden import-beir scifact/ --split test -o golden.jsonl
    """
    from ragauge.api.files import import_beir

    golden = import_beir(folder, split, output)
    click.echo(f"wrote {len(golden)} questions to {terminal(output)}", err=True)


@golden_group.command("validate")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--corpus", type=click.Path(path_type=Path),
              help="Corpus (JSONL, BEIR corpus.jsonl(.gz) or a folder) whose ids the relevant ids must be in.")
@click.option("--retriever", "spec", help="Retriever spec whose index to check against (an adapter that lists its "
                                          "documents: bm25:, dense:, hybrid:, pgvector:).")
@click.option("--config", "config_path", type=click.Path(path_type=Path),
              help="ragauge.toml with a [retriever] section (for --retriever; found automatically if omitted).")
@click.option("--format", "fmt", type=click.Choice(formats("validation")), default=DEFAULT_FORMAT, show_default=True)
@click.option("--min-per-tag", type=int, default=MIN_PER_TAG, show_default=True,
              help="Warn about tags with fewer questions than this.")
@click.option("--run", type=click.Path(path_type=Path),
              help="A run of the golden set: also say how small a change the set can detect (as ragauge power).")
@click.option("-k", "ks", default=str(DEFAULT_K), show_default=True,
              help="Cutoff(s) for the power figures (with --run).")
@click.option("--pool", "pools", type=click.Path(path_type=Path), multiple=True,
              help="A pool file from 'golden pool', or run files to pool (repeatable): check label health.")
@click.option("--pool-depth", type=int, help=f"Depth to pool run files at (--pool RUN; default {DEFAULT_DEPTH}).")
@click.option("--max-relevant", type=int, default=MAX_RELEVANT, show_default=True,
              help="Flag questions with more relevant documents than this (0: never).")
@click.option("--doc-id-sep", help="With --pool RUN: map chunk ids to document ids by this separator.")
@click.option("--doc-id-pattern", help="With --pool RUN: map chunk ids to document ids by this regex's group.")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def validate_command(golden: Path, corpus: Path | None, spec: str | None, config_path: Path | None, fmt: str,
                     min_per_tag: int, run: Path | None, ks: str, pools: tuple[Path, ...], pool_depth: int | None,
                     max_relevant: int, doc_id_sep: str | None, doc_id_pattern: str | None,
                     output: Path | None) -> None:
    """Check a golden set and list every problem with its file:line.

    Schema errors, duplicate ids, duplicate and near-duplicate questions (word overlap >= 0.8),
    empty questions, relevant ids that look like chunk ids, tags with too few questions and the
    no-answer count. With --corpus or --retriever, relevant ids no longer in the index are stale
    labels (a section id doc#section counts as present when doc is). With --run, the minimum
    detectable effect per metric and tag (see ragauge power). Questions with more than
    --max-relevant relevant documents are flagged. With --pool (a pool file, or runs pooled at
    --pool-depth): relevant documents that no pooled system returns at any depth (suspicious
    labels), and per question the share of the pooled documents that is judged.
    Exit codes: 0 clean, 1 findings (errors or warnings), 2 unusable input.

    \b
    Example:
      ragauge golden validate golden.jsonl --corpus corpus.jsonl --format json
      ragauge golden validate golden.jsonl --pool pool.jsonl
      ragauge golden validate golden.jsonl --pool runs/bm25.jsonl --pool runs/dense.jsonl --max-relevant 10
    """
    from ragauge.api.golden import validate_golden
    from ragauge.api.report import render
    from ragauge.cli.options import parse_ks, write_output
    from ragauge.config import retriever_config

    report = validate_golden(golden, corpus=corpus, retriever=spec, min_per_tag=min_per_tag,
                             config=retriever_config(config_path) if spec else None, run=run, k=parse_ks(ks),
                             pool=[str(p) for p in pools] or None, pool_depth=pool_depth, max_relevant=max_relevant,
                             doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern)
    write_output(render(report, fmt), output)
    raise SystemExit(report.exit_code)


@golden_group.command("scrub")
@click.argument("source", metavar="IN", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Scrubbed JSONL to write.")
@click.option("--report", "report_path", type=click.Path(path_type=Path),
              help="JSONL report of what changed: per line its id, types, counts and character spans "
                   "in the original (never the values).")
@click.option("--fields", default=",".join(SCRUB_FIELDS), show_default=True,
              help="Comma-separated string fields to scrub, e.g. query,notes.")
@click.option("--regions", default=",".join(PHONE_REGIONS), show_default=True,
              help="Phone-number regions (ISO codes, comma-separated); +CC international numbers are found "
                   "for any region.")
@click.option("--ner", is_flag=True,
              help="Also redact person names with Presidio (pip install 'ragauge[ner]' and a spaCy model, "
                   f"e.g. python -m spacy download {NER_MODEL}).")
@click.option("--ner-model", help=f"Installed spaCy model for --ner (default {NER_MODEL}).")
def scrub_command(source: Path, output: Path, report_path: Path | None, fields: str, regions: str, ner: bool,
                  ner_model: str | None) -> None:
    """Redact personal and secret data in golden-set text fields.

    E-mail addresses, phone numbers, IPv4/IPv6 addresses, payment cards (Luhn-checked), IBANs,
    national ids (US SSN, Spanish DNI/NIE, Italian codice fiscale, Brazilian CPF), API keys and
    tokens, and the user:password part of URLs become typed placeholders such as <EMAIL_1>; the same
    value gets the same placeholder within a line. Other fields and lines are written unchanged.

    \b
    Example:
      ragauge golden scrub golden.jsonl -o golden.clean.jsonl --report scrub.jsonl --fields query,notes
    """
    from ragauge import ScrubOptions
    from ragauge.api.golden import scrub_golden

    names = tuple(dict.fromkeys(f.strip() for f in fields.split(",") if f.strip()))
    codes = tuple(dict.fromkeys(r.strip().upper() for r in regions.split(",") if r.strip()))
    if not names:
        raise InputError("--fields names no field", hint="e.g. --fields query,notes")
    summary = scrub_golden(source, output, report=report_path,
                           options=ScrubOptions(fields=names, regions=codes, ner=ner, ner_model=ner_model))
    click.echo(f"{terminal(summary.describe())}; wrote {terminal(output)}", err=True)



from ragauge.cli.assess import agreement_command, assess_command  # noqa: E402  (commands in their own module)
from ragauge.cli.draft import draft_command  # noqa: E402
from ragauge.cli.grow import add_command, merge_command  # noqa: E402
from ragauge.cli.imports import import_command, import_trec_command  # noqa: E402
from ragauge.cli.judge import judge_command, judge_stats_command  # noqa: E402
from ragauge.cli.pool import pool_command  # noqa: E402

golden_group.add_command(add_command)
golden_group.add_command(merge_command)
golden_group.add_command(pool_command)
golden_group.add_command(import_command)
golden_group.add_command(import_trec_command)
golden_group.add_command(draft_command)
golden_group.add_command(judge_command)
golden_group.add_command(judge_stats_command)
golden_group.add_command(assess_command)
golden_group.add_command(agreement_command)
