"""A run *or* a retriever: what ``evaluate``, ``gate`` and ``update_baseline`` score. Light to import:
scoring a run file never loads the executor."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError
from ragauge.runner.options import ExecutorOptions

if TYPE_CHECKING:
    from ragauge.runner.live import Retrieval


def run_or_retriever(golden: Any, run: Any, retriever: Any, fetch: int | None, verb: str, *,
                     save_run: str | Path | None = None, on_error: str = "zero",
                     **calling: Any) -> tuple[Any, Any, int | None, Retrieval | None]:
    """What a verb that takes a run *or* a retriever scores: the golden set, the run (given, or the
    retriever's answers, each asked for ``fetch`` hits, default ``ExecutorOptions.fetch``, kept in
    ``save_run``; a call that fails as ``on_error`` says), the fetch depth the evaluation applies,
    and the Retrieval when the retriever was called. ``save_run`` and ``calling`` (the other
    ``retrieve_all`` keywords) only a retriever call takes: given beside a run (not None or False),
    they are refused. InputError unless exactly one of the run and the retriever is given. A golden
    set not yet read is read here, before any call, refusing unlabelled questions (what human labels
    alone cannot score); a verb scoring beside automatic labels passes a GoldenSet read with them."""
    if (run is None) == (retriever is None):
        raise InputError(f"{verb}() takes exactly one of a run or a retriever",
                         hint=f"e.g. {verb}(golden, run='run.jsonl', ...) or "
                              f"{verb}(golden, retriever='bm25:corpus.jsonl', ...)")
    if retriever is None:
        given = {"save_run": save_run, **calling}
        misplaced = [name for name, value in given.items() if value is not None and value is not False]
        if misplaced:
            raise InputError(f"{', '.join(misplaced)} go(es) with a retriever, not with a run",
                             hint="leave them out, or pass the retriever instead of the run")
        return golden, run, fetch, None
    from ragauge.formats.golden import as_golden
    from ragauge.runner.live import retrieve_all

    golden = as_golden(golden)  # a GoldenSet passes as it is
    depth = fetch if fetch is not None else ExecutorOptions.fetch
    done = retrieve_all(golden, retriever, save_run, fetch=depth, on_error=on_error, **calling)
    return done.golden, done.run, depth, done


def scoring_sources(done: Retrieval | None, corpus: Any) -> dict[str, Any]:
    """What scoring the answers reads beside the labels, the one rule for ``evaluate``, ``gate`` and
    ``update_baseline``: ``corpus`` as given for a run; for a retriever's answers (``done``), ``corpus``
    or else the adapter's own and, only without one, the ids its index holds as ``known_documents``
    (relevant ids outside them are stale labels, not misses)."""
    if done is None:
        return {"corpus": corpus}
    corpus = corpus if corpus is not None else done.corpus
    return {"corpus": corpus, "known_documents": None if corpus is not None else done.documents}
