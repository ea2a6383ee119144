"""Load a Python object named ``module:attribute`` or ``path/to/file.py:attribute``, as ``python:``
specs name retrievers, embedders, rerankers and judges. The working directory is importable; a
module that fails to import (any exception, a syntax error) is an InputError naming it and where,
not a traceback."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragauge.errors import InputError, RagaugeError, flag


def where_in(exc: BaseException) -> str:
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
                         hint="e.g. " + flag("retriever", "python:myapp.search:retrieve"))
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
        where = where_in(exc)
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
