"""Your own model code as an embedder or a reranker: ``python:module:function``.

- **Embedder** ``python:pkg.mod:embed`` (``embedder=`` of ``dense:`` and ``hybrid:``, and bi-encoder
  rescoring ``rerank=bi-encoder:python:pkg.mod:embed``): ``embed(texts: list[str])`` returns one row
  per text, an array-like of shape ``(len(texts), dim)``. ragauge scales each row to unit L2 norm
  (an all-zero row stays zero), so similarity is the cosine. ``dim`` is learnt when the spec is
  opened, by one call ``embed(["ragauge dimension probe"])``; every later call must give rows of
  that width.
- **Reranker** ``python:pkg.mod:rerank`` (``rerank=python:pkg.mod:rerank``): ``rerank(query: str,
  candidates: list[str])`` returns one score per candidate, in the candidates' order, higher = more
  relevant; each candidate is the passage's text as ``dense:`` embeds it (title and text, or the
  text alone with ``title=0``).

As for ``python:`` retrievers, the target is ``module:function`` (the working directory is
importable) or ``path/to/file.py:function``, and an attribute that takes no arguments is a factory:
it is called once when the spec is opened and what it returns is the function (load a model once).
Functions are called one at a time, synchronously.

Strictness: a result of the wrong shape or length, or any number that is not finite (NaN, an
infinity, not a number at all), is an InputError naming the text or candidate it belongs to.

Identity: the target plus the sha256 of the file that defines the named attribute
(``inspect.getsourcefile``), so a passage-embedding cache entry is used only while that file is
unchanged. A change in another module the function calls is not seen: clear the cache
(``$RAGAUGE_CACHE``, or the sweep's ``cache/``) or rename the function. When the file cannot be
found (a builtin, a C extension), the embeddings are not cached at all and the run metadata says so.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.errors import InputError, RagaugeError

PROBE = "ragauge dimension probe"
PREFIX = "python:"


_CALLS = {"embedder": ("texts",), "reranker": ("query", "candidates")}
_OTHER = {"embedder": "a reranker (query, candidates) is rerank=python:module:function",
          "reranker": "bi-encoder rescoring with an embedder (texts) is rerank=bi-encoder:python:module:function"}


def _load(target: str, kind: str) -> tuple[Callable[..., Any], str | None]:
    """The function ``target`` names (a factory's product) and the sha256 of its defining file;
    InputError when it cannot be called with the ``kind``'s arguments."""
    fn, digest = _made(target, kind)
    try:
        inspect.signature(fn).bind(*_CALLS[kind])
    except TypeError:
        article = "an" if kind == "embedder" else "a"
        raise InputError(f"{target} cannot be called as {article} {kind}, fn({', '.join(_CALLS[kind])})",
                         hint=_OTHER[kind]) from None
    except ValueError:  # no signature to check (some builtins): the call itself will tell
        pass
    return fn, digest


def _made(target: str, kind: str) -> tuple[Callable[..., Any], str | None]:
    from ragauge.core.objects import load_callable, where_in

    named = load_callable(target)
    digest = source_digest(named)
    try:
        takes_nothing = not inspect.signature(named).parameters
    except (TypeError, ValueError):
        takes_nothing = False
    if not takes_nothing:
        return named, digest
    try:
        made = named()
    except RagaugeError:
        raise
    except Exception as exc:  # user code: say where it failed, no traceback
        raise InputError(f"calling {target}() to build the {kind} raised {type(exc).__name__}: {exc}"
                         f"{where_in(exc)}", hint=f"fix the factory, or point the spec at the {kind} itself") from None
    if not callable(made):
        raise InputError(f"{target} takes no arguments, so ragauge called it to build the {kind}, but it returned "
                         f"{type(made).__module__}.{type(made).__qualname__}", hint="it must return a function")
    return made, digest


def source_digest(obj: Any) -> str | None:
    """``sha256:...`` of the file that defines ``obj`` (a function, a class, a callable object's
    class; a ``functools.partial``'s function), or None when there is none to read."""
    while isinstance(obj, functools.partial):
        obj = obj.func
    target = obj if inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj) else type(obj)
    try:
        path = inspect.getsourcefile(inspect.unwrap(target))
        data = Path(path).read_bytes() if path else None
    except (TypeError, OSError):
        return None
    return None if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def _call(fn: Callable[..., Any], lock: threading.Lock, target: str, *args: Any) -> Any:
    from ragauge.core.objects import where_in

    try:
        with lock:  # one call at a time, as the module docstring promises
            return fn(*args)
    except RagaugeError:
        raise
    except Exception as exc:
        raise InputError(f"{target} raised {type(exc).__name__}: {exc}{where_in(exc)}",
                         hint="fix the function; ragauge calls it as documented in docs/sweep.md") from None


def _floats(raw: Any, target: str, shape: str) -> np.ndarray:
    try:
        return np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{target} returned {type(raw).__name__}, not numbers ({exc})",
                         hint=f"return {shape}") from None


def _show(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


class PythonEmbedder:
    """An embedder backed by a ``python:`` function (module docstring): unit-norm float32 rows."""

    def __init__(self, target: str) -> None:
        self.target = target.removeprefix(PREFIX)
        self.name = PREFIX + self.target
        self.fn, self.source = _load(self.target, "embedder")
        self._lock = threading.Lock()
        self.cacheable = self.source is not None
        self.dim = 0
        self.dim = int(self._rows([PROBE]).shape[1])
        if self.dim < 1:
            raise InputError(f"{self.name} returned rows of width 0", hint="return one vector per text")

    def _rows(self, texts: list[str]) -> np.ndarray:
        raw = _call(self.fn, self._lock, self.name, list(texts))
        rows = _floats(raw, self.name, "an array of shape (len(texts), dim)")
        if rows.ndim != 2 or rows.shape[0] != len(texts) or (self.dim and rows.shape[1] != self.dim):
            expected = f"({len(texts)}, {self.dim or 'dim'})"
            raise InputError(f"{self.name} returned an array of shape {rows.shape} for {len(texts)} text(s), "
                             f"expected {expected}", hint="return one row per text, every row of the same width")
        bad = np.flatnonzero(~np.isfinite(rows).all(axis=1))
        if len(bad):
            raise InputError(f"{self.name} returned a vector with a non-finite number for text {_show(texts[bad[0]])}",
                             hint="every number of every vector must be finite")
        return rows

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        from ragauge.models.minilm import normalize

        return normalize(self._rows(list(texts)))

    def describe(self) -> dict[str, Any]:
        """What identifies these vectors: part of every cache key of the embeddings."""
        return {"model": self.name, "source": self.source, "dim": self.dim,
                **({} if self.cacheable else {"cache": "off: the function's source file cannot be read"})}


class PythonReranker:
    """A reranker backed by a ``python:`` function (module docstring)."""

    def __init__(self, target: str) -> None:
        self.target = target.removeprefix(PREFIX)
        self.name = PREFIX + self.target
        self.fn, self.source = _load(self.target, "reranker")
        self._lock = threading.Lock()

    def scores(self, query: str, candidates: Sequence[str], names: Sequence[str]) -> np.ndarray:
        """One finite score per candidate (``names`` label them in errors)."""
        if not candidates:
            return np.zeros(0)
        raw = _call(self.fn, self._lock, self.name, query, list(candidates))
        if isinstance(raw, (str, bytes)) or not hasattr(raw, "__len__") or len(raw) != len(candidates):
            got = f"{len(raw)} value(s)" if hasattr(raw, "__len__") else type(raw).__name__
            raise InputError(f"{self.name} returned {got} for {len(candidates)} candidate(s) of question "
                             f"{_show(query)}", hint="return one score per candidate, in their order")
        out = np.zeros(len(candidates))
        for i, value in enumerate(raw):
            number = value.item() if isinstance(value, np.generic) else value
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
                raise InputError(f"{self.name} returned {value!r} for candidate {names[i]!r} of question "
                                 f"{_show(query)}", hint="every score must be a finite number")
            out[i] = float(number)
        return out

    def describe(self) -> dict[str, Any]:
        return {"rerank": self.name, "source": self.source}
