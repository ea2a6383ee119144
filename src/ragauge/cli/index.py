"""``ragauge index ...``: load a corpus into an external index, for retrievers that read one."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ragauge.retrieve.stores.common import IndexResult


@click.group("index")
def index_group() -> None:
    """Load a corpus into a vector store: pgvector, Qdrant, Chroma, LanceDB, FAISS or sqlite-vec.

    \b
    Example:
      ragauge index pgvector corpus.jsonl.gz postgresql://me@localhost:5432/rag --embedder hash
      ragauge index qdrant corpus.jsonl ./qdrant --embedder hash
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


# -- the stores of ragauge.retrieve.stores: the same corpus options, one load_* call each ---------------

def corpus_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options every store's index command shares: embedder, chunking, batch size, --recreate."""
    for option in reversed([
        click.option("--embedder", default="minilm", show_default=True,
                     help="minilm (semantic; needs ragauge[dense]) or hash (lexical, no model; hash-N for N "
                          "dimensions)."),
        click.option("--chunk-size", type=int, default=0, show_default=True,
                     help="Words or characters per chunk; 0: whole documents."),
        click.option("--chunk-overlap", type=int, default=0, show_default=True,
                     help="Overlap between consecutive chunks."),
        click.option("--chunk-unit", type=click.Choice(["words", "chars"]), default="words", show_default=True),
        click.option("--recreate", is_flag=True, help="Replace the collection, table or files if they exist."),
        click.option("--batch-size", type=int, default=256, show_default=True, help="Passages embedded per batch."),
    ]):
        command = option(command)
    return command


def load_store(load: Callable[..., IndexResult], target: str, corpus: Path, *, embedder: str, chunk_size: int,
               chunk_overlap: int, chunk_unit: str, recreate: bool, batch_size: int, **options: Any) -> None:
    """Read and chunk CORPUS, call ``load`` with a progress bar, and say what was written and the
    spec that searches it."""
    from ragauge.core.escape import terminal
    from ragauge.core.numbers import COUNT, check_number
    from ragauge.retrieve.corpus import Chunking
    from ragauge.retrieve.stores.common import read_passages

    check_number(batch_size, "--batch-size", COUNT)  # the numbers and the chunking before the corpus is read
    passages = read_passages(corpus, Chunking(chunk_size, chunk_overlap, chunk_unit))
    with click.progressbar(length=len(passages), label=f"embedding with {embedder}", file=sys.stderr,
                           show_pos=True) as bar:
        result = load(target, passages, embedder, recreate=recreate, batch_size=batch_size, progress=bar.update,
                      **options)
    skipped = (f"; {result.skipped} passages left out: no word the embedder knows (a zero vector matches nothing)"
               if result.skipped else "")
    click.echo(f"loaded {result.rows} rows ({result.documents} documents, {result.dim}-dimension {result.embedder} "
               f"embeddings) in {result.seconds:.1f} s; {result.index}{skipped}")
    click.echo(terminal(f"search it with: --retriever '{result.spec}'"))


@index_group.command("qdrant")
@click.argument("corpus", type=click.Path(path_type=Path))
@click.argument("target")
@click.option("--collection", default="chunks", show_default=True, help="Collection to create.")
@corpus_options
def qdrant_command(corpus: Path, target: str, collection: str, **options: Any) -> None:
    """Embed CORPUS into a new cosine Qdrant collection at TARGET: a folder (Qdrant's local mode,
    created when missing) or a server URL (API key in $QDRANT_API_KEY or ?api_key=). Points carry
    doc_id, chunk_id and text; the collection's metadata records the embedder. Needs ragauge[qdrant].

    \b
    Example:
      ragauge index qdrant examples/helpdesk/sections.jsonl ./qdrant --embedder hash
      ragauge run golden.jsonl --retriever "qdrant:./qdrant?collection=chunks" -o run.jsonl
    """
    from ragauge.retrieve.stores.qdrant import load_qdrant

    load_store(load_qdrant, target, corpus, collection=collection, **options)


@index_group.command("chroma")
@click.argument("corpus", type=click.Path(path_type=Path))
@click.argument("target")
@click.option("--collection", default="chunks", show_default=True, help="Collection to create.")
@corpus_options
def chroma_command(corpus: Path, target: str, collection: str, **options: Any) -> None:
    """Embed CORPUS into a new cosine Chroma collection at TARGET: a PersistentClient folder
    (created when missing) or a server URL (?token=&tenant=&database=). Record ids are the chunk
    ids (else doc ids), metadata doc_id and chunk_id; the collection's metadata records the
    embedder. Needs ragauge[chroma].

    \b
    Example:
      ragauge index chroma examples/helpdesk/sections.jsonl ./chroma --embedder hash
      ragauge run golden.jsonl --retriever "chroma:./chroma?collection=chunks" -o run.jsonl
    """
    from ragauge.retrieve.stores.chroma import load_chroma

    load_store(load_chroma, target, corpus, collection=collection, **options)


@index_group.command("lancedb")
@click.argument("corpus", type=click.Path(path_type=Path))
@click.argument("target")
@click.option("--table", default="chunks", show_default=True, help="Table to create.")
@corpus_options
def lancedb_command(corpus: Path, target: str, table: str, **options: Any) -> None:
    """Embed CORPUS into a new table (doc_id, chunk_id, text, vector) of the LanceDB folder TARGET
    (created when missing), in one commit; the schema's metadata records the embedder. No vector
    index: searches are exact. Needs ragauge[lancedb].

    \b
    Example:
      ragauge index lancedb examples/helpdesk/sections.jsonl ./lancedb --embedder hash
      ragauge run golden.jsonl --retriever "lancedb:./lancedb?table=chunks" -o run.jsonl
    """
    from ragauge.retrieve.stores.lancedb import load_lancedb

    load_store(load_lancedb, target, corpus, table=table, **options)


@index_group.command("faiss")
@click.argument("corpus", type=click.Path(path_type=Path))
@click.argument("index_file")
@click.option("--ids", default=None, help="Id map to write (JSONL); default: INDEX_FILE with the suffix .ids.jsonl.")
@click.option("--index", "index_kind", type=click.Choice(["auto", "hnsw", "none"]), default="auto", show_default=True,
              help="HNSW (approximate) or none (IndexFlatIP, exact); auto: HNSW from 100,000 vectors.")
@corpus_options
def faiss_command(corpus: Path, index_file: str, ids: str | None, index_kind: str, **options: Any) -> None:
    """Embed CORPUS into a new inner-product FAISS index written to INDEX_FILE, with an id map
    (doc_id, chunk_id per vector, the embedder on its first line). Needs ragauge[faiss].

    \b
    Example:
      ragauge index faiss examples/helpdesk/sections.jsonl chunks.faiss --embedder hash
      ragauge run golden.jsonl --retriever faiss:chunks.faiss -o run.jsonl
    """
    from ragauge.retrieve.stores.faiss import load_faiss

    load_store(load_faiss, index_file, corpus, ids=ids, index=index_kind, **options)


@index_group.command("sqlite-vec")
@click.argument("corpus", type=click.Path(path_type=Path))
@click.argument("database")
@click.option("--table", default="chunks", show_default=True, help="vec0 table to create.")
@corpus_options
def sqlite_vec_command(corpus: Path, database: str, table: str, **options: Any) -> None:
    """Embed CORPUS into a new sqlite-vec vec0 table (cosine; doc_id, chunk_id, text) in the SQLite
    file DATABASE (created when missing), in one transaction; the ragauge_indexes table records
    the embedder. Needs ragauge[sqlite-vec].

    \b
    Example:
      ragauge index sqlite-vec examples/helpdesk/sections.jsonl chunks.db --embedder hash
      ragauge run golden.jsonl --retriever "sqlite-vec:chunks.db?table=chunks" -o run.jsonl
    """
    from ragauge.retrieve.stores.sqlite_vec import load_sqlite_vec

    load_store(load_sqlite_vec, database, corpus, table=table, **options)
