"""``ragauge index ...``: load a corpus into an external index, for retrievers that read one."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group("index")
def index_group() -> None:
    """Load a corpus into an external index (for the pgvector retriever).

    \b
    Example:
      ragauge index pgvector corpus.jsonl.gz postgresql://me@localhost:5432/rag --embedder hash
    """


@index_group.command("pgvector")
@click.argument("corpus", type=click.Path(path_type=Path))
@click.argument("dsn")
@click.option("--table", default="chunks", show_default=True, help="Table to create (schema.table works).")
@click.option("--embedder", default="minilm", show_default=True,
              help="minilm (semantic; needs ragauge[dense]) or hash (lexical, no model; hash-N for N dimensions).")
@click.option("--chunk-size", type=int, default=0, show_default=True,
              help="Words or characters per chunk; 0: whole documents.")
@click.option("--chunk-overlap", type=int, default=0, show_default=True, help="Overlap between consecutive chunks.")
@click.option("--chunk-unit", type=click.Choice(["words", "chars"]), default="words", show_default=True)
@click.option("--index", "index_kind", type=click.Choice(["auto", "hnsw", "none"]), default="auto", show_default=True,
              help="HNSW index (approximate search) or none (exact); auto: HNSW from 100,000 rows.")
@click.option("--recreate", is_flag=True, help="Replace the table if it exists.")
@click.option("--batch-size", type=int, default=256, show_default=True, help="Passages embedded per batch.")
def pgvector_command(corpus: Path, dsn: str, table: str, embedder: str, chunk_size: int, chunk_overlap: int,
                     chunk_unit: str, index_kind: str, recreate: bool, batch_size: int) -> None:
    """Embed CORPUS (JSONL, BEIR corpus.jsonl.gz, or a folder of .md/.txt/.html) and load it into a
    PostgreSQL table (doc_id, chunk_id, text, embedding vector(N)) that the pgvector retriever reads.
    The table records the embedder, so the retriever embeds questions the same way.

    \b
    Example:
      ragauge index pgvector examples/scifact/corpus.jsonl.gz postgresql://me@localhost/rag --embedder hash
      ragauge run golden.jsonl --retriever "pgvector:postgresql://me@localhost/rag?table=chunks" -o run.jsonl
    """
    from ragauge.core.numbers import COUNT, check_number
    from ragauge.retrieve.corpus import Chunking, chunk, read_documents
    from ragauge.retrieve.pgvector import load_table, parse_target

    shown = parse_target(dsn).shown  # checks the DSN, the numbers and the chunking before the corpus is read
    check_number(batch_size, "--batch-size", COUNT)
    chunking = Chunking(chunk_size, chunk_overlap, chunk_unit)
    passages = chunk(read_documents(corpus), chunking)
    with click.progressbar(length=len(passages), label=f"embedding with {embedder}", file=sys.stderr,
                           show_pos=True) as bar:
        result = load_table(dsn, passages, embedder, table=table, recreate=recreate, index=index_kind,
                            batch_size=batch_size, progress=bar.update)
    index_note = f"{result.index} index" if result.index else "no index: exact search"
    click.echo(f"loaded {result.rows} rows ({result.documents} documents, {result.dim}-dimension {result.embedder} "
               f"embeddings) into {result.table} at {shown} in {result.seconds:.1f} s; {index_note}")
