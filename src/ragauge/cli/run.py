"""``ragauge run``: call a retriever for every golden question and write a run file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from ragauge.cli.report import no_color_option, warn
from ragauge.retrieve.base import RetrieverOptions
from ragauge.runner.options import ON_ERROR, ExecutorOptions


def call_options(prefix: str = "") -> list[Callable[[Any], Any]]:
    """``--concurrency``, ``--timeout`` and ``--retries``, their defaults read from ``ExecutorOptions``
    and ``RetrieverOptions`` (their one home); ``prefix`` opens each help text ("With --retriever: ")."""
    def text(sentence: str) -> str:
        return f"{prefix}{sentence[0].lower()}{sentence[1:]}" if prefix else sentence

    return [
        click.option("--concurrency", type=int, default=ExecutorOptions.concurrency, show_default=True,
                     help=text("Calls in flight at once.")),
        click.option("--timeout", type=float, default=RetrieverOptions.timeout, show_default=True,
                     help=text("Seconds per call.")),
        click.option("--retries", type=int, default=ExecutorOptions.retries, show_default=True,
                     help=text("Extra attempts for transient failures (exponential backoff with jitter).")),
    ]


def with_call_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`call_options` as one decorator."""
    for option in reversed(call_options()):
        f = option(f)
    return f


def retriever_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by every command that calls a retriever."""
    for option in reversed([
        click.option("--fetch", type=int, default=ExecutorOptions.fetch, show_default=True,
                     help="Hits to ask the retriever for."),
        *call_options(),
        click.option("--on-error", type=click.Choice(ON_ERROR), default=ExecutorOptions.on_error, show_default=True,
                     help="A question that still fails: scores 0, is left out of the means, or stops the run."),
        click.option("--doc-id-key", help="Metadata key holding the document id in LangChain / LlamaIndex / Haystack "
                                          "objects ('id': the object's own id; default: doc_id, then each "
                                          "framework's source key)."),
        click.option("--config", "config_path", type=click.Path(path_type=Path),
                     help="ragauge.toml with a [retriever] section (HTTP headers, body, hits path)."),
    ]):
        f = option(f)
    return f


@contextmanager
def calling(spec: str, *, timeout: float, on_error: str = "zero", output: Path | None = None,
            no_color: bool = False) -> Iterator[Any]:
    """Around a library call that calls the retriever: yields the ``Progress`` to pass it (a progress
    line on a terminal), exits 130 on Ctrl-C, and afterwards says what the run left behind:
    abandoned calls, failed questions (in yellow on a terminal, unless ``no_color``)."""
    from ragauge.api.run import Progress, terminal_progress
    from ragauge.errors import RunInterrupted
    from ragauge.redact import redact

    progress = Progress(on_result=terminal_progress(redact(spec).split("?")[0]))
    try:
        yield progress
    except RunInterrupted as stop:
        click.echo(f"\n{stop}", err=True)
        raise SystemExit(130) from None
    if progress.abandoned:
        click.echo(f"note: {progress.abandoned} call(s) overran --timeout {timeout:g} s and were abandoned (Python "
                   "cannot stop a running function; they end with the process)", err=True)
    if progress.errors:
        where = f"; see 'error' in {output}" if output is not None else ""
        warn(f"warning: {progress.errors} question(s) failed in the retriever "
             f"({'left out' if on_error == 'skip' else 'scored 0'}){where}", no_color)


def execute(golden_path: Path, spec: str, output: Path | None, *, fetch: int, concurrency: int, timeout: float,
            retries: int, on_error: str, doc_id_key: str | None, config_path: Path | None,
            resume: bool = False, shard: str | None = None, ray: Any = None, prepare_run: bool = True,
            no_color: bool = False) -> Any:
    """``ragauge.runner.live.retrieve_all`` inside :func:`calling`. Returns the Retrieval."""
    from ragauge.api.run import retrieve_all
    from ragauge.config import retriever_config

    with calling(spec, timeout=timeout, on_error=on_error, output=output, no_color=no_color) as progress:
        done = retrieve_all(golden_path, spec, output, fetch=fetch, concurrency=concurrency, timeout=timeout,
                            retries=retries, on_error=on_error, resume=resume, doc_id_key=doc_id_key,
                            config=retriever_config(config_path), progress=progress, shard=shard, ray=ray,
                            prepare_run=prepare_run)
    return done


@click.command("run")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--retriever", "spec", required=True,
              help="bm25:PATH, dense:PATH, hybrid:PATH, pgvector:DSN, http(s)://URL, cmd:COMMAND, "
                   "python:module:function")
@retriever_options
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Run file to write (JSONL).")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: finished questions are not called again.")
@click.option("--shard", help="Call only shard I/N of the questions (stable by question id); join the shard "
                              "files with: ragauge run merge SHARD... -o RUN.")
@click.option("--executor", type=click.Choice(["threads", "ray"]), default="threads", show_default=True,
              help="Where the calls run: local threads, or Ray actors (pip install 'ragauge[ray]').")
@click.option("--address", help="With --executor ray: a running cluster (auto, ray://host:10001); default: a local "
                                "Ray started for this run.")
@click.option("--ray-workers", type=int, help="With --executor ray: retriever actors (default: one per CPU).")
@no_color_option("the warnings")
def run_command(golden: Path, spec: str, fetch: int, concurrency: int, timeout: float, retries: int, on_error: str,
                doc_id_key: str | None, config_path: Path | None, output: Path, resume: bool,
                shard: str | None, executor: str, address: str | None, ray_workers: int | None,
                no_color: bool) -> None:
    """Call a retriever for every golden question and write a run file.

    Writes are streamed and flushed per question, so an interrupted run leaves a valid file;
    --resume continues it (only with the same retriever, settings, --fetch and golden set).
    The first line records the retriever, its settings, the golden set's hash and the times
    (passwords, tokens and keys hidden); a .meta.json sidecar is written at the end. Ctrl-C
    keeps the answers of calls that finish within 2 s; a second Ctrl-C stops at once (exit 130).
    When every call fails the command exits 2 with the first error. --shard I/N runs one
    deterministic part of the questions (for several machines); 'ragauge run merge' joins the
    parts after checking they are one run, each shard once, every question once.

    \b
    Examples:
      ragauge run golden.jsonl --retriever bm25:corpus.jsonl -o runs/bm25.jsonl
      ragauge run golden.jsonl --retriever https://search.internal/api/search --concurrency 16 -o runs/prod.jsonl
      ragauge run golden.jsonl --retriever URL --shard 2/4 -o runs/prod.2.jsonl
      ragauge run golden.jsonl --retriever python:app.rag:search --executor ray --address auto -o runs/x.jsonl
      ragauge run merge runs/prod.1.jsonl runs/prod.2.jsonl runs/prod.3.jsonl runs/prod.4.jsonl -o runs/prod.jsonl
    """
    from ragauge.api.run import RaySetup
    from ragauge.errors import InputError

    if executor != "ray" and (address or ray_workers):
        raise InputError("--address and --ray-workers need --executor ray")
    ray = RaySetup(address, ray_workers) if executor == "ray" else None
    done = execute(golden, spec, output, fetch=fetch, concurrency=concurrency, timeout=timeout, retries=retries,
                   on_error=on_error, doc_id_key=doc_id_key, config_path=config_path, resume=resume, shard=shard,
                   ray=ray, prepare_run=False, no_color=no_color)
    click.echo(f"wrote {len(done.answered.results)} questions to {output}", err=True)


@click.command("run merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Run file to write (JSONL).")
def merge_command(shards: tuple[Path, ...], output: Path) -> None:
    """Join the shard files of one 'ragauge run --shard I/N' into one run file.

    Refused (exit 2, naming the file) unless the files are shards of one run: the same golden
    set, retriever, settings, --fetch and index, every shard 1..N once, no question twice and
    every question of the golden set present.

    \b
    Example:
      ragauge run merge runs/prod.1.jsonl runs/prod.2.jsonl -o runs/prod.jsonl
    """
    from ragauge.api.run import merge_shards

    merged = merge_shards(shards, output)
    click.echo(f"wrote {len(merged.queries)} questions from {len(shards)} shards to {output}", err=True)
