"""``ragauge index STORE``: one subcommand per adapter that can fill its store, generated from the
adapter registry (``Adapter.index``): a store plugin gets its command with no CLI code."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

import click


def _shared() -> list[Any]:
    """The options every store's command shares, with the defaults of ``ragauge.index``'s keywords
    (their one home: the command shows them, it does not restate them)."""
    from ragauge.api.index import index

    default = {name: p.default for name, p in inspect.signature(index).parameters.items()}
    return [
        click.option("--embedder", default=default["embedder"], show_default=True,
                     help="minilm (semantic; needs ragauge[dense]) or hash (lexical, no model; hash-N for N "
                          "dimensions)."),
        click.option("--chunk-size", type=int, default=default["chunk_size"], show_default=True,
                     help="Words or characters per chunk; 0: whole documents."),
        click.option("--chunk-overlap", type=int, default=default["chunk_overlap"], show_default=True,
                     help="Overlap between consecutive chunks."),
        click.option("--chunk-unit", type=click.Choice(["words", "chars"]), default=default["chunk_unit"],
                     show_default=True),
        click.option("--recreate", is_flag=True, help="Replace the collection, table or files if they exist."),
        click.option("--batch-size", type=int, default=default["batch_size"], show_default=True,
                     help="Passages embedded per batch."),
    ]


def _command(name: str) -> click.Command | None:
    from ragauge.api.index import adapter

    try:
        found = adapter(name)
    except Exception:  # noqa: BLE001 - an unknown or broken store is no command; click says so
        return None
    spec = found.index
    if spec is None:
        return None
    params: list[click.Parameter] = [click.Argument(["corpus"], type=click.Path(path_type=Path)),
                                     click.Argument(["target"], metavar=spec.target)]
    for option in spec.options:
        params.append(click.Option([option.flag, option.name], default=option.default,
                                   show_default=option.default is not None, help=option.help,
                                   type=click.Choice(list(option.choices)) if option.choices else None))

    def callback(corpus: Path, target: str, **options: Any) -> None:
        _load(name, corpus, target, options)

    command = click.Command(name, callback=callback, params=params, help=inspect.cleandoc(spec.help))
    for shared in _shared():  # on a Command, each click.option appends its parameter
        shared(command)
    return command


def _load(store: str, corpus: Path, target: str, options: dict[str, Any]) -> None:
    """``ragauge.index`` with a progress bar; says what was written and the spec that searches it."""
    from ragauge.api.index import index
    from ragauge.core.escape import terminal

    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label=f"embedding with {options['embedder']}", file=sys.stderr,
                                    show_pos=True)
            bar.__enter__()
        bar.update(done - bar.pos)

    try:
        result = index(store, corpus, target, progress=progress, **options)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    skipped = (f"; {result.skipped} passages left out: no word the embedder knows (a zero vector matches nothing)"
               if result.skipped else "")
    click.echo(f"loaded {result.rows} rows ({result.documents} documents, {result.dim}-dimension {result.embedder} "
               f"embeddings) in {result.seconds:.1f} s; {result.index}{skipped}")
    click.echo(terminal(f"search it with: --retriever '{result.spec}'"))


class IndexGroup(click.Group):
    """The stores come from the adapter registry, each imported only when its command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from ragauge.api.index import indexable

        return [a.name for a in indexable()]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return _command(cmd_name)


@click.group("index", cls=IndexGroup)
def index_group() -> None:
    """Load a corpus into a vector store: pgvector, Qdrant, Chroma, LanceDB, FAISS, sqlite-vec, or a
    store a plugin adds (the ragauge.retrievers entry points).

    \b
    Example:
      ragauge index pgvector corpus.jsonl.gz postgresql://me@localhost:5432/rag --embedder hash
      ragauge index qdrant corpus.jsonl ./qdrant --embedder hash
    """
