"""``ragauge golden import FORMAT PATH... -o golden.jsonl``: move a golden set over from another tool.

Formats (and the files each takes):

- ``trec`` TOPICS QRELS: TREC topics (SGML-like ``<top>`` blocks, or ``qid<TAB>text``) and TREC
  qrels; ``topic_field`` picks the question: ``title`` (default), ``desc`` or ``title+desc``.
- ``msmarco`` QUERIES QRELS: MS MARCO-style ``qid<TAB>text`` queries, or JSONL queries (BEIR's
  ``{"_id", "text"}``), and TREC-format qrels (``qid 0 docid rel``, tabs or spaces). Queries without
  a judgement are left out.
- ``beir`` FOLDER: a BEIR dataset (``queries.jsonl`` and ``qrels/<split>.tsv``).
- ``ragas`` FILE: a ragas test set (``user_input``, ``reference_contexts``; JSONL or a JSON array).
- ``llamaindex`` FILE: an ``EmbeddingQAFinetuneDataset`` JSON (``queries``, ``corpus``, ``relevant_docs``).
- ``deepeval`` FILE: DeepEval goldens (``input``, ``context``, ``source_file``; JSON array or JSONL).

ragas and DeepEval label passages by text, LlamaIndex by node (chunk) id: with ``corpus`` the texts
are matched to the corpus documents that contain them, otherwise they get content-hash ids and a
loud note (see :mod:`ragauge.formats.passages`); ``corpus_out`` writes those passages (or the
LlamaIndex nodes) as a corpus JSONL a retriever can index. Every import refuses malformed input with
file:line, refuses ids given twice, checks the result as ``golden validate`` does (an error stops
the import, nothing written) and writes it through :func:`ragauge.formats.golden.write_golden`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragauge.curation.validate import ValidationReport, validate_lines
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.errors import InputError, flag
from ragauge.formats import BEIR_SPLIT, TOPIC_FIELD

FILES = {"trec": ("TOPICS", "QRELS"), "msmarco": ("QUERIES", "QRELS"), "beir": ("FOLDER",), "ragas": ("FILE",),
         "llamaindex": ("FILE",), "deepeval": ("FILE",)}
FORMATS = tuple(FILES)
BY_TEXT = ("ragas", "llamaindex", "deepeval")


@dataclass(frozen=True)
class ImportResult:
    """The imported golden set, the notes that change how it reads (each starts ``NOTE: ``), and the
    check of the lines written (``golden validate``'s report: it holds no error, warnings may be)."""

    golden: GoldenSet
    notes: tuple[str, ...]
    report: ValidationReport
    corpus_rows: int = 0


def _only(format: str, given: dict[str, Any], allowed: Sequence[str]) -> None:
    for name, value in given.items():
        if value is not None and name not in allowed:
            raise InputError(f"{flag(name)} does not apply to the {format} format")


def _queries(format: str, paths: Sequence[Path], *, corpus: Path | None, topic_field: str | None,
             relevant: str | None, split: str | None) -> tuple[list[GoldenQuery], list[str], list[tuple[str, str]]]:
    """Questions, notes and corpus rows (for ``corpus_out``) of one import, before validation."""
    from ragauge.formats import passages, topics

    if format in ("trec", "msmarco"):
        read = topics.read_topics if format == "trec" else topics.read_query_tsv
        queries, notes = topics.golden_from_topics(
            read(paths[0]), topics.read_qrels_dict(paths[1]), field=topic_field or TOPIC_FIELD, topics_path=paths[0],
            qrels_path=paths[1], what="topic" if format == "trec" else "query")
        return queries, notes, []
    if format == "beir":
        from ragauge.formats.beir import import_beir

        return list(import_beir(paths[0], split or BEIR_SPLIT)), [], []
    index = None
    if corpus is not None:
        from ragauge.retrieve.corpus import read_documents

        index = passages.PassageIndex((doc_id, text) for doc_id, _, text in read_documents(corpus))
    rows: list[tuple[str, str]] = []
    if format == "ragas":
        from ragauge.formats.ragas import read_ragas

        drafts, notes = read_ragas(paths[0])
        what = "reference context"
    elif format == "deepeval":
        from ragauge.formats.deepeval import read_deepeval

        drafts, notes = read_deepeval(paths[0], relevant or "context")
        what = "context"
    else:
        from ragauge.formats.llamaindex import read_llamaindex

        drafts, notes, rows = read_llamaindex(paths[0], as_text=index is not None)
        what = "node text"
    resolved = passages.resolve(drafts, index, what=what, source=f"the {format} file")
    if format != "llamaindex":
        rows = list(resolved.corpus_rows)
    return list(resolved.queries), [*notes, *resolved.notes], rows


def import_golden(format: str, paths: str | Path | Sequence[str | Path], output: str | Path | None = None, *,
                  corpus: str | Path | None = None, corpus_out: str | Path | None = None,
                  topic_field: str | None = None, relevant: str | None = None,
                  split: str | None = None) -> ImportResult:
    """Read a golden set in another tool's ``format`` from ``paths`` (see the module docstring),
    check it as ``golden validate`` does and write it to ``output`` when given (atomically; nothing
    is written when the check finds an error). ``corpus`` maps passages given as text to its
    document ids; ``corpus_out`` writes the passages that got content-hash ids (or LlamaIndex's
    nodes) as a corpus JSONL; ``topic_field`` (trec), ``relevant`` (deepeval: ``context`` or
    ``source-file``) and ``split`` (beir) apply to one format each."""
    from ragauge.core.notes import LOUD

    if format not in FILES:
        raise InputError(f"unknown format {format!r}", hint=f"one of {', '.join(FORMATS)}")
    files = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    if len(files) != len(FILES[format]):
        raise InputError(f"the {format} format takes {len(FILES[format])} path(s), {' '.join(FILES[format])}; "
                         f"got {len(files)}")
    _only(format, {"corpus": corpus, "corpus_out": corpus_out}, ("corpus", "corpus_out") if format in BY_TEXT else ())
    if corpus is not None and corpus_out is not None:
        raise InputError(f"{flag('corpus_out')} writes the passages when they are not mapped to a corpus: give one "
                         f"of {flag('corpus')} and {flag('corpus_out')}")
    _only(format, {"topic_field": topic_field}, ("topic_field",) if format == "trec" else ())
    _only(format, {"relevant": relevant}, ("relevant",) if format == "deepeval" else ())
    _only(format, {"split": split}, ("split",) if format == "beir" else ())
    from ragauge.core.files import check_not_an_input

    read = [*(files if format != "beir" else []), corpus]
    check_not_an_input(output, read, "golden set")
    check_not_an_input(corpus_out, [*read, output], "corpus")
    queries, notes, rows = _queries(format, files, corpus=None if corpus is None else Path(corpus),
                                    topic_field=topic_field, relevant=relevant, split=split)
    golden = GoldenSet.from_queries(queries, str(files[0]))
    source = str(output) if output is not None else f"{format} import"
    report = validate_lines([(n, q.to_dict()) for n, q in enumerate(golden, start=1)], source=source)
    errors = [f for f in report.findings if f.severity == "error"]
    if errors:
        rest = "".join(f"\n  line {f.line}: {f.message}" for f in errors[1:5])
        raise InputError(f"the imported set fails validation: line {errors[0].line}: {errors[0].message}{rest}"
                         + (f"\n  ({len(errors)} errors, nothing written)" if len(errors) > 1 else ""),
                         where=str(files[0]), hint=errors[0].hint)
    if output is not None:
        from ragauge.formats.golden import write_golden

        write_golden(golden, output)
    if corpus_out is not None:
        _write_corpus(rows, Path(corpus_out))
    return ImportResult(golden, tuple(f"{LOUD}{n}" for n in notes), report, len(rows) if corpus_out else 0)


def _write_corpus(rows: Sequence[tuple[str, str]], path: Path) -> None:
    from ragauge.core.files import atomic_writer
    from ragauge.core.jsonl import dumps

    if not rows:
        raise InputError(f"no passage to write with {flag('corpus_out')}",
                         hint=f"{flag('corpus_out')} writes passages that got content-hash ids; with {flag('corpus')} "
                              "they map to your corpus instead")
    with atomic_writer(path, what="corpus") as fh:
        for doc_id, text in rows:
            fh.write(dumps({"id": doc_id, "text": text}) + "\n")
