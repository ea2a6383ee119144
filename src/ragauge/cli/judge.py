"""``ragauge golden judge`` and ``ragauge golden judge-stats``: judge a pool in a browser page, merge
the judgements, measure agreement between annotators."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import DEFAULT_FORMAT
from ragauge.core.escape import terminal
from ragauge.errors import InputError
from ragauge.reports.registry import formats


@click.command("judge")
@click.argument("pool", type=click.Path(path_type=Path))
@click.option("--corpus", type=click.Path(path_type=Path),
              help="Corpus with the candidates' texts (JSONL, BEIR corpus.jsonl(.gz) or a folder), for the page.")
@click.option("--golden", type=click.Path(path_type=Path),
              help="Golden set to merge into (default: the one the pool was made from).")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Where the merged golden set goes (default: --golden itself, replaced atomically).")
@click.option("--annotator", help="Your name in the judgements log (default: the login name).")
@click.option("--log", "log", type=click.Path(path_type=Path),
              help="Judgements log to append to and resume from (default: POOL's name + .judgements.jsonl).")
@click.option("--adjudicator", help="An annotator whose grade settles disagreements (see judge-stats).")
@click.option("--disagreements", is_flag=True,
              help="Adjudicate: show only what the other annotators graded differently, with their grades.")
@click.option("--no-open", is_flag=True, help="Print the page's address without opening a browser.")
@click.option("--finish", is_flag=True, help="Merge the judgements into the golden set (no page).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default=DEFAULT_FORMAT, show_default=True,
              help="The --finish summary's format.")
def judge_command(pool: Path, corpus: Path | None, golden: Path | None, output: Path | None, annotator: str | None,
                  log: Path | None, adjudicator: str | None, disagreements: bool, no_open: bool, finish: bool,
                  fmt: str) -> None:
    """Judge a pool's candidates in a local web page, then merge the grades into the golden set.

    The page (on 127.0.0.1 only, at a random port, with an access token in its address) shows one
    question at a time with each candidate's title and text, the query's words marked, and which
    systems returned it at what rank. Keys: 0 not relevant, 1 relevant, 2 highly relevant, s skip,
    j/k next/previous, u undo, o unfold, n/p next/previous question. Every action is appended to
    the judgements log and flushed to disk before the page shows it: closing the tab or killing
    the process loses nothing, and the next start resumes. Several annotators share a log (or
    concatenate theirs); see 'golden judge-stats' for their agreement.

    --finish (or the page's Finish button) merges the judgements as graded "relevant" entries with
    the checks of 'golden merge'. Disagreements are settled by the grade all gave, else the
    --adjudicator's, else a strict majority; ties are not merged and are listed. An adjudicator
    grades just the disagreements with --disagreements, then finishes with --adjudicator NAME.

    \b
    Examples:
      ragauge golden judge pool.jsonl --corpus corpus.jsonl --annotator ana
      ragauge golden judge pool.jsonl --corpus corpus.jsonl --annotator lead --disagreements
      ragauge golden judge pool.jsonl --finish --golden golden.jsonl --adjudicator lead
    """
    if finish:
        from ragauge.api.golden import merge_judgements
        from ragauge.cli.options import write_output
        from ragauge.core.jsonl import dumps

        result = merge_judgements(pool, log, golden=golden, output=output, adjudicator=adjudicator)
        if fmt == "json":
            write_output(dumps(result.to_dict(), indent=2) + "\n", None)
        for line in result.lines():
            click.echo(line, err=True)
        return
    if corpus is None:
        raise InputError("the page needs the candidates' texts: --corpus PATH",
                         hint="the corpus the pooled systems index (JSONL, BEIR corpus.jsonl or a folder)")
    if output is not None and golden is None:
        raise InputError("-o needs --golden (or use -o with --finish)", hint="name the golden set to merge into")
    from ragauge.api.golden import judge_pool

    judge_pool(pool, corpus, golden=golden, output=output, annotator=annotator, log=log, adjudicator=adjudicator,
               disagreements=disagreements, open_browser=not no_open, announce=lambda line: click.echo(line, err=True))


@click.command("judge-stats")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--adjudicator", help="An annotator whose grade settles disagreements.")
@click.option("--format", "fmt", type=click.Choice(formats("agreement")), default=DEFAULT_FORMAT, show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def judge_stats_command(logs: tuple[Path, ...], adjudicator: str | None, fmt: str, output: Path | None) -> None:
    """Agreement between annotators and the disagreements to adjudicate, from judgements logs.

    Per annotator: graded, relevant, skipped. Per pair: the items both graded, the share graded
    alike, and Cohen's kappa on the grades and on relevant-or-not ("n/a" with the reason when it
    is undefined: no shared item, or one label for everything). Then every item graded
    differently, with what --finish merges for it (unresolved ties are not merged).

    \b
    Example:
      ragauge golden judge-stats pool.judgements.jsonl --adjudicator lead --format json
    """
    from ragauge.api.golden import judge_stats
    from ragauge.api.report import render
    from ragauge.cli.options import write_output

    stats = judge_stats(list(logs), adjudicator=adjudicator)
    write_output(render(stats, fmt), output)
    if output is not None:
        click.echo(f"wrote {terminal(output)}", err=True)
