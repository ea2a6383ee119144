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
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragauge.data.coerce import coerce_hits
from ragauge.errors import InputError, RagaugeError
from ragauge.retrieve.base import Retrieved, RetrieverBase, RetrieverOptions
from ragauge.retrieve.workers import Deadline


def _where_in(exc: BaseException) -> str:
    """`` (at file:line)``: the deepest frame of the traceback, or a SyntaxError's own location."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" (at {exc.filename}:{exc.lineno})"
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f" (at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})" if tb is not None else ""


def load_object(target: str) -> Any:
    """Import ``module:attr`` (the working directory is importable) or ``file.py:attr`` (the file's
    folder is importable, as ``python file.py`` makes it, so it can import a module beside it) and
    return the attribute; InputError when the module cannot be imported or has no such attribute."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"python retriever {target!r} must look like package.module:function",
                         hint="e.g. --retriever python:myapp.search:retrieve")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise InputError(f"no such file {module_name!r}", hint="check the path of the python retriever")
            folder = str(path.resolve().parent)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                raise InputError(f"cannot import {module_name!r}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            if "" not in sys.path and str(Path.cwd()) not in sys.path:
                sys.path.insert(0, str(Path.cwd()))
            module = importlib.import_module(module_name)
    except ImportError as exc:
        hint = ("install the package it imports, or put it beside the file" if module_name.endswith(".py") else
                "run from the folder that contains the package, or install it")
        raise InputError(f"cannot import {module_name!r}: {exc}", hint=hint) from None
    except RagaugeError:
        raise
    except (Exception, SystemExit) as exc:  # the module raised while it was imported
        where = _where_in(exc)
        raise InputError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}{where}",
                         hint=f"fix the module; python -c 'import {Path(module_name).stem}' "
                              "shows the traceback") from None
    missing = object()
    found = getattr(module, attr, missing)
    if found is missing:
        raise InputError(f"{module_name!r} has no attribute {attr!r}")
    return found


def load_callable(target: str) -> Callable[..., Any]:
    """``load_object`` for a callable attribute (InputError otherwise)."""
    fn = load_object(target)
    if not callable(fn):
        raise InputError(f"{target.rpartition(':')[0]!r} has no callable {target.rpartition(':')[2]!r}")
    return fn  # type: ignore[no-any-return]


def is_factory(fn: Any) -> bool:
    """Whether ``fn`` can be called with no arguments and not with ``(query, n)``: then it builds a
    retriever rather than being one."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: treat it as a search function
        return False
    try:
        sig.bind()
    except TypeError:
        return False
    try:
        sig.bind("query", 1)
    except TypeError:
        return True
    return False


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
                         f"{_where_in(exc)}",
                         hint="fix the factory, or point the spec at the retriever itself") from None
    return made


def open(spec: str, options: RetrieverOptions) -> RetrieverBase:  # noqa: A001 - the adapter entry point
    return adapt(spec, load_object(spec.partition(":")[2]), options)
