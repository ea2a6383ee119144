"""Call a retriever over a golden set: the library call behind ``ragauge run`` and every command
that calls a retriever (``eval``, ``gate``, ``compare``, ``sweep``). One executor serves them all
(concurrency, timeouts, retries with backoff, resume, Ctrl-C handling), so a notebook and the CLI
measure the same thing."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.data.golden import GoldenSet
from ragauge.data.shard import Shard, parse_shard
from ragauge.errors import InputError, flag
from ragauge.formats.golden import as_golden
from ragauge.retrieve.base import Retriever, RetrieverOptions
from ragauge.runner.calls import Progress
from ragauge.runner.executor import Answered, ExecutorOptions, answer_all
from ragauge.runner.ray_workers import RaySetup

if TYPE_CHECKING:
    from ragauge.data.run import Run


@dataclass(frozen=True)
class Retrieval:
    """A finished run's answers, the document ids the index holds (None when the adapter cannot
    list them), how many calls overran the timeout and were abandoned (``python:`` callables), and
    the local corpus the adapter indexed (the built-in retrievers: its texts serve the text-based
    failure patterns and span labels without a separate ``--corpus``)."""

    golden: GoldenSet
    answered: Answered
    documents: set[str] | None
    abandoned: int = 0
    corpus: str | None = None

    @property
    def run(self) -> Run:
        """The answers as a ``Run``, built on first use."""
        return self.answered.run


def open_any(retriever: Any, options: RetrieverOptions) -> tuple[Retriever, bool]:
    """An adapter for a spec string (``bm25:corpus.jsonl``, ``http://...``), a LangChain / LlamaIndex
    / Haystack retriever, vector store, index or pipeline (``ragauge.retrieve.frameworks``), a plain
    function ``fn(query, n)`` (sync or async, wrapped like a ``python:`` spec) or an adapter object;
    and whether it was opened here (then the caller closes it)."""
    if isinstance(retriever, str):
        from ragauge.retrieve.registry import open_retriever

        return open_retriever(retriever, options), True
    from ragauge.retrieve.frameworks import framework_of, open_framework

    if framework_of(retriever) is not None:  # a LangChain / LlamaIndex / Haystack object
        kind = type(retriever)
        wrapped = open_framework(f"python:{kind.__module__}:{kind.__qualname__}", retriever, options)
        if wrapped is not None:
            return wrapped, True
    if callable(retriever) and not hasattr(retriever, "search"):
        from ragauge.retrieve.python_callable import PythonRetriever

        named = retriever if inspect.isfunction(retriever) or inspect.ismethod(retriever) else type(retriever)
        spec = f"python:{named.__module__}:{named.__qualname__}"
        return PythonRetriever(spec, retriever, options), True
    if hasattr(retriever, "search") and hasattr(retriever, "describe"):
        return retriever, False
    raise InputError(f"a retriever must be a spec string, a function (query, n), a LangChain / LlamaIndex / "
                     f"Haystack retriever or an adapter, got "
                     f"{type(retriever).__name__}", hint="e.g. retriever='bm25:corpus.jsonl' or retriever=my_search")


def retrieve_all(golden: Any, retriever: Any, output: str | Path | None = None, *, fetch: int | None = None,
                 concurrency: int | None = None, timeout: float | None = None, retries: int | None = None,
                 on_error: str = "zero",
                 resume: bool = False, doc_id_key: str | None = None, config: Mapping[str, Any] | None = None,
                 progress: Progress | None = None, shard: str | Shard | None = None,
                 ray: RaySetup | None = None, prepare_run: bool = True) -> Retrieval:
    """Call ``retriever`` once per question of ``golden`` (see :func:`run_retriever`), keeping what
    the CLI needs besides the run: the index's document ids and the abandoned calls. With a
    ``shard`` ("I/N"), only that shard's questions (``data.shard``). With ``ray`` (a
    ``RaySetup``), the calls run on Ray actors, each opening the retriever from its spec (so the
    retriever must be a spec string). ``prepare_run=False``: the caller will not read
    ``Retrieval.run`` (see ``executor.answer_all``). A number left None takes its default from
    ``ExecutorOptions`` (fetch, concurrency, retries) or ``RetrieverOptions`` (timeout), their one
    home. ``progress`` is updated as answers come, and its ``abandoned`` when the run ends. Asking
    needs no labels: an unlabelled question (``"relevant": null``) is asked as any other; a verb
    that scores by human labels alone refuses it before calling (``runner.either``)."""
    if output is not None and isinstance(golden, (str, Path)):
        from ragauge.core.files import check_not_an_input

        check_not_an_input(output, [golden], "run file")
    golden_set = as_golden(golden, unlabelled=True)
    described = None
    if shard is not None:
        part = shard if isinstance(shard, Shard) else parse_shard(shard)
        whole, golden_set = golden_set, part.select(golden_set)
        described = part.describe(whole, golden_set)
    options = executor_options(fetch, concurrency, retries, on_error)
    retriever_options = call_options(doc_id_key, timeout, config)
    if ray is not None and not isinstance(retriever, str):
        raise InputError(f"{flag('ray', cli='--executor ray')} needs the retriever as a spec string (each Ray worker "
                         "opens its own)",
                         hint="e.g. bm25:corpus.jsonl, https://..., or python:package.module:function")
    adapter, opened = open_any(retriever, retriever_options)
    try:
        answered = answer_all(golden_set, adapter, Path(output) if output is not None else None, options,
                              resume=resume, progress=progress, shard=described,
                              ray=(retriever, retriever_options, ray) if ray is not None else None,
                              prepare_run=prepare_run)
        documents = adapter.documents()
        corpus = _local_corpus(adapter)
    finally:
        if opened:
            adapter.close()
    abandoned = int(getattr(adapter, "abandoned", 0))
    if progress is not None:
        progress.abandoned = abandoned
    return Retrieval(golden_set, answered, documents, abandoned, corpus)


def executor_options(fetch: int | None = None, concurrency: int | None = None, retries: int | None = None,
                     on_error: str = "zero") -> ExecutorOptions:
    """``ExecutorOptions`` with the numbers given, the class's defaults for those left None."""
    given = {"fetch": fetch, "concurrency": concurrency, "retries": retries}
    return ExecutorOptions(on_error=on_error, **{name: value for name, value in given.items() if value is not None})


def call_options(doc_id_key: str | None = None, timeout: float | None = None,
                 config: Mapping[str, Any] | None = None) -> RetrieverOptions:
    """``RetrieverOptions`` for one call: the timeout given, else the class's default."""
    return RetrieverOptions(doc_id_key=doc_id_key, config=dict(config or {}),
                            timeout=RetrieverOptions.timeout if timeout is None else timeout)


def _local_corpus(adapter: Retriever) -> str | None:
    """The corpus file or folder an adapter says it indexed (``describe()["corpus"]``), when it exists here."""
    try:
        named = adapter.describe().get("corpus")
    except Exception:  # noqa: BLE001 - a description is optional: without it, no corpus
        return None
    return named if isinstance(named, str) and Path(named).exists() else None


def run_retriever(golden: Any, retriever: Any, output: str | Path | None = None, *, fetch: int | None = None,
                  concurrency: int | None = None, timeout: float | None = None, retries: int | None = None,
                  on_error: str = "zero",
                  resume: bool = False, doc_id_key: str | None = None,
                  config: Mapping[str, Any] | None = None, shard: str | Shard | None = None,
                  ray: RaySetup | None = None, progress: Progress | None = None) -> Run:
    """Ask ``retriever`` (a spec string, a function ``fn(query, n)`` or an adapter) for ``fetch``
    hits per question of ``golden`` (a GoldenSet, a file or question dicts) and return the run.
    Unlabelled questions (``"relevant": null``) are asked too: a run needs no labels.

    ``concurrency`` calls run at once, each within ``timeout`` seconds; transient failures are
    retried ``retries`` times with exponential backoff and jitter. A question that still fails is
    recorded with its error and scores 0 (``on_error="zero"``), is left out (``"skip"``) or stops
    the run (``"fail"``). With ``output`` the run file is written as it goes (each answer flushed)
    and ``resume=True`` continues it, refusing a file made by another retriever, settings, fetch
    depth or golden set. ``config`` is the ``[retriever]`` table of a ragauge.toml (HTTP headers,
    body, hits path); see ``ragauge.config.retriever_config``. ``shard="I/N"`` calls only that
    deterministic shard of the questions (join the shards with :func:`ragauge.merge_shards`);
    ``ray=RaySetup(address, workers)`` runs the calls on Ray (``retrieve.ray_workers``). Raises
    InputError when every call failed."""
    return retrieve_all(golden, retriever, output, fetch=fetch, concurrency=concurrency, timeout=timeout,
                        retries=retries, on_error=on_error, resume=resume, doc_id_key=doc_id_key,
                        config=config, shard=shard, ray=ray, progress=progress).run
