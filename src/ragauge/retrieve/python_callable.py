"""``python:package.module:function`` (or ``python:path/to/file.py:function``): call your own code.

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


def load_callable(target: str) -> Callable[..., Any]:
    """Import ``module:attr`` or ``file.py:attr`` (the working directory is importable)."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"python retriever {target!r} must look like package.module:function",
                         hint="e.g. --retriever python:myapp.search:retrieve")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise InputError(f"no such file {module_name!r}", hint="check the path of the python retriever")
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
        raise InputError(f"cannot import {module_name!r}: {exc}",
                         hint="run from the folder that contains the package, or install it") from None
    except RagaugeError:
        raise
    except (Exception, SystemExit) as exc:  # the module raised while it was imported
        where = _where_in(exc)
        raise InputError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}{where}",
                         hint=f"fix the module; python -c 'import {Path(module_name).stem}' "
                              "shows the traceback") from None
    fn: Callable[..., Any] | None = getattr(module, attr, None)
    if not callable(fn):
        raise InputError(f"{module_name!r} has no callable {attr!r}")
    return fn


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


def open(spec: str, options: RetrieverOptions) -> PythonRetriever:  # noqa: A001 - the adapter entry point
    return PythonRetriever(spec, load_callable(spec.partition(":")[2]), options)
