"""``python:package.module:function`` (or ``python:path/to/file.py:function``): call your own code."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragauge.errors import InputError
from ragauge.retrieve.base import Retrieved, RetrieverBase, RetrieverOptions
from ragauge.retrieve.coerce import coerce_hits


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
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise InputError(f"{module_name!r} has no callable {attr!r}")
    return fn


class PythonRetriever(RetrieverBase):
    """Calls ``fn(query, n)``; coroutine functions run on a private event loop per call."""

    def __init__(self, spec: str, fn: Callable[..., Any], options: RetrieverOptions) -> None:
        self.spec = spec
        self.fn = fn
        self.options = options
        self.is_async = inspect.iscoroutinefunction(fn)

    def search(self, query: str, n: int) -> Retrieved:
        raw = asyncio.run(self.fn(query, n)) if self.is_async else self.fn(query, n)
        if inspect.isawaitable(raw):
            raw = asyncio.run(_await(raw))
        return Retrieved(coerce_hits(raw, self.options.doc_id_key))

    def describe(self) -> dict[str, Any]:
        return {"callable": self.spec.partition(":")[2], "async": self.is_async,
                "doc_id_key": self.options.doc_id_key}


async def _await(x: Any) -> Any:
    return await x


def open(spec: str, options: RetrieverOptions) -> PythonRetriever:  # noqa: A001 - the adapter entry point
    return PythonRetriever(spec, load_callable(spec.partition(":")[2]), options)
