"""``python:package.module:function`` (or ``python:path/to/file.py:function``): call your own code.

The attribute is one of: a function ``fn(query, n)`` (sync or ``async``); a LangChain, LlamaIndex
or Haystack retriever, vector store, index or pipeline (wrapped by ``ragauge.retrieve.frameworks``);
or a factory that takes no arguments and returns one of those (called once, when the spec is
opened: ``def retriever(): return index.as_retriever()``).

Each call runs in a daemon thread and is given ``--timeout`` seconds: after that the executor
stops waiting (a TimeoutError, retried like other transient failures) and the call is abandoned,
since Python cannot stop a running function; ``abandoned`` counts such calls. A module that fails
to import (any exception, a syntax error) is an InputError naming it, not a traceback.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from ragauge.core.deadline import Deadline
from ragauge.core.objects import is_factory, load_object, where_in
from ragauge.data.coerce import coerce_hits
from ragauge.errors import InputError, RagaugeError
from ragauge.retrieve.adapter import Adapter
from ragauge.retrieve.base import Retrieved, RetrieverBase, RetrieverOptions


class PythonRetriever(RetrieverBase):
    """Calls ``fn(query, n)`` within ``options.timeout`` seconds; coroutine functions run on a
    private event loop per call."""

    def __init__(self, spec: str, fn: Callable[..., Any], options: RetrieverOptions) -> None:
        self.spec = spec
        self.fn = fn
        self.options = options
        self.is_async = inspect.iscoroutinefunction(fn)
        self._deadline = Deadline(options.timeout, name="ragauge-python-retriever")

    @property
    def abandoned(self) -> int:
        """Calls that overran the timeout and were left running."""
        return self._deadline.abandoned

    def _invoke(self, query: str, n: int) -> Any:
        raw = asyncio.run(self.fn(query, n)) if self.is_async else self.fn(query, n)
        if inspect.isawaitable(raw):
            raw = asyncio.run(_await(raw))
        return raw

    def search(self, query: str, n: int) -> Retrieved:
        raw = self._deadline.call(self._invoke, query, n)
        return Retrieved(coerce_hits(raw, self.options.doc_id_key))

    def close(self) -> None:
        self._deadline.close()

    def describe(self) -> dict[str, Any]:
        return {"callable": self.spec.partition(":")[2], "async": self.is_async,
                "doc_id_key": self.options.doc_id_key}


async def _await(x: Any) -> Any:
    return await x


_KINDS = ("a function (query, n), a LangChain / LlamaIndex / Haystack retriever, or a function of no arguments "
          "that returns one")


def adapt(spec: str, obj: Any, options: RetrieverOptions) -> RetrieverBase:
    """The retriever for what a ``python:`` spec names: a framework object (wrapped), a factory
    (called once, its result adapted), or a search function. InputError for anything else."""
    from ragauge.retrieve.frameworks import open_framework

    target = spec.partition(":")[2]
    wrapped = open_framework(spec, obj, options)
    if wrapped is not None:
        return wrapped
    if callable(obj) and is_factory(obj):
        made = _build(obj, target)
        wrapped = open_framework(spec, made, options)
        if wrapped is not None:
            return wrapped
        if callable(made) and not is_factory(made):
            return PythonRetriever(spec, made, options)
        raise InputError(f"{target} takes no arguments, so ragauge called it to build the retriever, but it returned "
                         f"{type(made).__module__}.{type(made).__qualname__}", hint=f"it must return {_KINDS}")
    if not callable(obj):
        raise InputError(f"{target} is a {type(obj).__module__}.{type(obj).__qualname__}, not a retriever",
                         hint=f"point the spec at {_KINDS}")
    return PythonRetriever(spec, obj, options)


def _build(factory: Callable[..., Any], target: str) -> Any:
    try:
        made = factory()
        if inspect.isawaitable(made):
            made = asyncio.run(_await(made))
    except RagaugeError:
        raise
    except Exception as exc:  # user code: say where it failed, no traceback
        raise InputError(f"calling {target}() to build the retriever raised {type(exc).__name__}: {exc}"
                         f"{where_in(exc)}",
                         hint="fix the factory, or point the spec at the retriever itself") from None
    return made


def open(spec: str, options: RetrieverOptions) -> RetrieverBase:  # noqa: A001 - the adapter entry point
    return adapt(spec, load_object(spec.partition(":")[2]), options)


ADAPTER = Adapter(
    "python", ("python",), open,
    "your function fn(query, n) (sync or async) returning doc ids, (doc_id, score) pairs or dicts; or a LangChain, "
    "LlamaIndex or Haystack retriever, vector store, index or pipeline, or a function of no arguments returning one",
    "python:app.rag:search", extra=None)
