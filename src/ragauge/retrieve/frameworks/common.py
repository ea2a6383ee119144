"""What the framework adapters share: which metadata key holds the document id, calling a method
that may be async, and the errors that say what an object is and what would work instead."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragauge.data.hits import Hit
from ragauge.errors import InputError

EXTRA_HINT = "pip install 'ragauge[frameworks]' installs the versions ragauge is tested with"
KEY_HINT = ("name the metadata key that holds the document id with --doc-id-key KEY (doc_id_key= in Python); "
            "--doc-id-key id takes the object's own id")


@dataclass(frozen=True)
class Binding:
    """A framework object made callable the ragauge way: ``search(query, n)`` returns at most ``n``
    hits in the framework's order and is thread-safe; ``settings`` goes into ``describe()``."""

    search: Callable[[str, int], list[Hit]]
    settings: dict[str, Any]


def qualname(obj: Any) -> str:
    """``module.Class`` of ``obj``'s type: what describe() and the errors call it."""
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def import_framework(module: str, framework: str, package: str) -> Any:
    """``module`` of a framework the object came from, or an InputError with an install hint (an
    object from an old or partial installation: the 1.x line of a framework, a missing core package)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise InputError(f"the object is a {framework} object, but {module} cannot be imported ({exc})",
                         hint=f"ragauge supports {package}; pip install -U {package} ({EXTRA_HINT})") from None


def overrides(obj: Any, base: type, name: str) -> bool:
    """Whether ``obj``'s class defines ``name`` itself rather than inheriting ``base``'s."""
    mine = getattr(type(obj), name, None)
    return mine is not None and mine is not getattr(base, name, None)


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, run to completion on a private event loop when it is a coroutine
    function or returns an awaitable (each call runs in its own worker thread, never inside a loop)."""
    result = fn(*args, **kwargs)
    if inspect.isawaitable(result):
        return asyncio.run(_wait(result))
    return result


async def _wait(awaitable: Any) -> Any:
    return await awaitable


@dataclass(frozen=True)
class DocIds:
    """Where a framework object keeps the document id: the first of ``keys`` found in its metadata,
    else among its own named values (``own``: e.g. ``id``, LlamaIndex's ``ref_doc_id``). ``given``
    says the keys came from ``--doc-id-key`` rather than the framework's defaults."""

    framework: str
    kind: str
    keys: tuple[str, ...]
    given: bool

    @classmethod
    def of(cls, framework: str, kind: str, doc_id_key: str | None, defaults: Sequence[str]) -> DocIds:
        keys = (doc_id_key,) if doc_id_key else tuple(defaults)
        return cls(framework, kind, keys, bool(doc_id_key))

    def hit(self, meta: Any, own: Mapping[str, Any], chunk_id: Any, score: Any, rank: int) -> Hit:
        """The hit at ``rank``: its document id by the rule above, ``chunk_id`` (the object's own id)
        and ``score`` kept when given. InputError naming the keys tried and the keys that exist."""
        meta = meta if isinstance(meta, Mapping) else {}
        for key in self.keys:
            value = meta.get(key)
            if value is None:
                value = own.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise InputError(f"the {self.kind} at rank {rank} holds {type(value).__name__} "
                                 f"{_short(value)} under {key!r}, not a document id", hint=KEY_HINT)
            return Hit(str(value), None if chunk_id is None else str(chunk_id), _score(score))
        tried = " or ".join(repr(k) for k in self.keys)
        where = "metadata key" + ("" if len(self.keys) == 1 else "s")
        keys = ", ".join(repr(k) for k in sorted(map(str, meta))) or "none"
        ids = ", ".join(f"{name} {value!r}" for name, value in own.items() if value is not None)
        default = "" if self.given else f" (the {self.framework} defaults)"
        raise InputError(f"the {self.kind} at rank {rank} has no {where} {tried}{default}: its metadata keys are "
                         f"{keys}" + (f"; its own ids: {ids}" if ids else ""), hint=KEY_HINT)

    def describe(self) -> list[str]:
        return list(self.keys)


def _score(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def per_depth(obj: Any, make: Callable[[int], Any] | None) -> Callable[[int], Any]:
    """``sized(n)``: ``obj`` set up to return ``n`` results, a copy ``make(n)`` made once per depth
    and kept (thread-safe), or ``obj`` itself when its depth cannot be set (``make`` None)."""
    copies: dict[int, Any] = {}
    lock = threading.Lock()

    def sized(n: int) -> Any:
        if make is None:
            return obj
        with lock:
            if n not in copies:
                copies[n] = make(n)
            return copies[n]

    return sized


def unusable(obj: Any, framework: str, supported: str, hint: str) -> InputError:
    """The error for a framework object ragauge cannot search with (an Embeddings, a Document, an
    LLM): what it is, what is supported, what to pass instead."""
    return InputError(f"{qualname(obj)} is a {framework} object ragauge cannot search with: it supports "
                      f"{supported}", hint=hint)


def as_list(value: Any, what: str) -> list[Any]:
    """``value`` as a list of results; InputError naming ``what`` returned something else."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise InputError(f"{what} returned {type(value).__name__}, not a list of documents")
    return list(value)
