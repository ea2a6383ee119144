"""What a retriever module offers, as one value (``ADAPTER``) the registry reads: the schemes it
serves, how to open a spec, the extra it needs, an example, its spec options and, for a store that
ragauge can fill, the index call and its options. The ``index`` subcommands and the reference's
spec table are generated from these values."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    """One option: of a spec (``name=value`` in its query string) or of an ``index`` call (the
    keyword ``name``, the command-line flag ``--name`` with ``_`` as ``-``). ``default`` None: not
    given; ``choices``: the values allowed."""

    name: str
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Index:
    """How to load a corpus into a store: ``load(target, corpus, embedder, *, chunking, recreate,
    batch_size, progress, **options)`` returns a ``stores.common.IndexResult``; ``target`` names its
    first argument (``DSN``, ``TARGET``, ``INDEX_FILE``); ``help`` is the command's text; ``options``
    the store's own keywords beside the shared ones (embedder, chunking, batch size, recreate);
    ``check(target)``, when given, refuses a bad target before the corpus is read."""

    load: Callable[..., Any]
    target: str
    help: str
    options: tuple[Option, ...] = ()
    check: Callable[[str], Any] | None = None


@dataclass(frozen=True)
class Adapter:
    """A retriever module's registration. ``open(spec, options)`` returns the adapter for a spec of
    one of ``schemes``; ``extra`` names the pip extra it needs (None: none);
    ``example`` is a spec that works; ``summary`` says in a sentence what it calls."""

    name: str
    schemes: tuple[str, ...]
    open: Callable[..., Any]
    summary: str
    example: str
    extra: str | None = None
    options: tuple[Option, ...] = ()
    index: Index | None = None
