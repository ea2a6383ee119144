"""What a document id says about itself: the ``doc#section`` rule and chunk-looking ids.

A golden set is judged at document or stable-section level. A stable-section id is its
document's id, ``#`` and a section name (``kb-1#setup``); it counts as present in an index that
holds its document. A chunk id (``kb-1#chunk-3``, ``doc::12``) changes with every re-chunking and
never belongs in a golden set.
"""

from __future__ import annotations

import re
from collections.abc import Set

SECTION_SEP = "#"

CHUNK_ID = re.compile(r"(?i)(?:#\d+|::\d+|@\d+|#c\d+|(?:#|::|[_\-/.:])(?:chunk|chk|passage|split)[-_#:]?\d+)$")
"""Ids that name a chunk: a numeric suffix after ``#``, ``::`` or ``@``, or a ``chunk``/``passage``/
``split`` part with a number (``kb-1#chunk-3``, ``doc_chunk_12``, ``a/b-passage7``)."""


def section_parent(doc_id: str) -> str | None:
    """``"kb-1#setup"`` -> ``"kb-1"``; None for an id without a section part."""
    head, sep, tail = doc_id.partition(SECTION_SEP)
    return head if sep and head and tail else None


def is_chunk_id(doc_id: str) -> bool:
    """True when ``doc_id`` looks like a chunk id rather than a document or section id."""
    return CHUNK_ID.search(doc_id) is not None


def chunk_parent(doc_id: str) -> str | None:
    """The document part of a chunk-looking id (``"kb-1#chunk-3"`` -> ``"kb-1"``), else None."""
    m = CHUNK_ID.search(doc_id)
    return doc_id[:m.start()] if m and m.start() > 0 else None


def in_index(doc_id: str, documents: Set[str]) -> bool:
    """A relevant id is in an index that holds it, or holds the document it is a section of."""
    parent = section_parent(doc_id)
    return doc_id in documents or (parent is not None and parent in documents)


def lookalike_key(doc_id: str) -> str:
    """What an id looks like on screen: invisible characters (Unicode format characters such as the
    zero-width space, the soft hyphen, direction marks) removed and compatibility forms folded
    (NFKC: a full-width ``ｋｂ`` is ``kb``, a non-breaking space a space), outer whitespace
    stripped. Two different ids with one key cannot be told apart by a reader; exact matching tells
    them apart, so a hit under one does not count for a label under the other."""
    import unicodedata

    visible = "".join(c for c in doc_id if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", visible).strip()


def looks_altered(doc_id: str) -> bool:
    """Whether ``doc_id`` holds invisible or compatibility characters (its look-alike key differs)."""
    return not doc_id.isascii() and lookalike_key(doc_id) != doc_id
