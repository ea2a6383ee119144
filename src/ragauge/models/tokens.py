"""Token budgets counted by a named tokenizer (``eval --tokenizer``, a sweep's ``tokenizer``).

By default a budget (``recall@2000t``) counts each hit's ``length`` in words, as the run records it.
With a tokenizer, a hit's length is the number of tokens of the characters it covers in its
document, ``text[start:end]`` of the corpus (title excluded; the whole text for a hit that names a
document, not a chunk), without the special tokens a model adds around a sequence. Tokenizers:

- ``words``: whitespace words (the default; then the run's own ``length`` is used);
- ``minilm``: the word pieces of the bundled all-MiniLM-L6-v2 vocabulary (BERT uncased);
- ``hf:PATH``: a Hugging Face ``tokenizer.json`` (or a folder holding one), e.g. the one a model
  you serve ships, read with the ``tokenizers`` library; nothing is downloaded. Reports and the
  contract name it ``hf:FILE@sha256:HASH`` (its file name and content), so results compare when
  the file is the same, however its path was written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragauge.errors import InputError, MissingExtra, flag

WORDS = "words"
NAMES_HINT = "use words, minilm, or hf:PATH (a Hugging Face tokenizer.json, or its folder)"


class Tokenizer(Protocol):
    """Counts tokens: ``count(texts)`` gives one count per text; ``name`` is how reports name it."""

    name: str

    def count(self, texts: Sequence[str]) -> list[int]: ...


class _Words:
    name = WORDS

    def count(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]


class _Pieces:
    """A ``tokenizers`` tokenizer, counted without special tokens and without truncation."""

    def __init__(self, name: str, tokenizer: Any) -> None:
        self.name = name
        tokenizer.no_truncation()
        tokenizer.no_padding()  # a tokenizer.json saved with padding would count its pad tokens
        self._tokenizer = tokenizer

    def count(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts), add_special_tokens=False)]


def minilm_vocab() -> Any:
    """The bundled all-MiniLM-L6-v2 word-piece vocabulary as a file path (a context manager), read
    as package data (``models/data/README.md``)."""
    from importlib import resources  # not at import time: it brings tempfile, shutil and more

    return resources.as_file(resources.files("ragauge") / "models" / "data" / "minilm-vocab.txt")


def check_tokenizer_name(name: str) -> str:
    """``name`` when it names a tokenizer (module docstring), else InputError."""
    if name in (WORDS, "minilm") or (name.startswith("hf:") and len(name) > 3):
        return name
    raise InputError(f"unknown tokenizer {name!r}", hint=NAMES_HINT)


def open_tokenizer(name: str | Tokenizer) -> Tokenizer:
    """The tokenizer ``name`` names (module docstring), or ``name`` itself when it is one already.
    InputError for an unknown name or an unreadable file; MissingExtra without ``tokenizers``."""
    if not isinstance(name, str):
        return name
    if check_tokenizer_name(name) == WORDS:
        return _Words()
    try:
        import tokenizers
    except ImportError:
        raise MissingExtra("tokenizers", "dense", f"the tokenizer {name!r}") from None
    if name == "minilm":
        from tokenizers.implementations import BertWordPieceTokenizer  # type: ignore[attr-defined, unused-ignore]

        with minilm_vocab() as vocab:
            return _Pieces(name, BertWordPieceTokenizer(str(vocab), lowercase=True))
    import hashlib

    path = Path(name[3:])
    file = path / "tokenizer.json" if path.is_dir() else path
    try:
        digest = hashlib.sha256(file.read_bytes()).hexdigest()[:12]  # the same file however it is named
        return _Pieces(f"hf:{file.name}@sha256:{digest}", tokenizers.Tokenizer.from_file(str(file)))
    except Exception as exc:  # the library raises bare Exceptions for missing or malformed files
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot read the tokenizer: {why}", where=str(file),
                         hint="name a Hugging Face tokenizer.json (or the folder holding it)") from None


def hit_tokens(run: Any, rows: np.ndarray, docs: Any, chunk_ids: Any, texts: Mapping[str, str],
               tokenizer: Tokenizer) -> np.ndarray:
    """Token counts of the run's ``rows`` (module docstring), NaN elsewhere; ``docs`` and
    ``chunk_ids`` are the document and the chunk id in effect of every row. InputError for a hit
    whose text cannot be found: a chunk without offsets, offsets past the document's end, or a
    document the corpus does not hold."""
    out = np.full(len(docs), np.nan)
    if not len(rows):
        return out
    from ragauge.core.arrow import take

    names = take(docs, rows).to_pylist()
    starts = None if run.start is None else run.start[rows]
    ends = None if run.end is None else run.end[rows]
    chunks = take(chunk_ids, rows).to_pylist()
    keys: list[tuple[str, int, int]] = []
    for i, (doc, chunk) in enumerate(zip(names, chunks)):
        text = texts.get(doc)
        if text is None:
            raise InputError(f"a token budget counts hit texts, and document {doc!r} is not in the corpus",
                             where=run.source,
                             hint=f"pass the corpus the run was retrieved from ({flag('corpus', 'PATH')})")
        if starts is not None and ends is not None and not np.isnan(starts[i]) and not np.isnan(ends[i]):
            if ends[i] > len(text):
                raise InputError(f"a token budget counts hit texts, and a hit of {doc!r} ends at character "
                                 f"{int(ends[i])}, past the document's {len(text)}", where=run.source,
                                 hint="the run was retrieved from another version of the corpus: retrieve again, or "
                                      "pass the corpus it was made from")
            keys.append((doc, int(starts[i]), int(ends[i])))
        elif chunk is None:
            keys.append((doc, 0, len(text)))
        else:
            raise InputError(f"a token budget counts hit texts, and chunk {chunk!r} has no start/end", where=run.source,
                             hint="give each chunk hit \"start\" and \"end\" (its characters in the document; the "
                                  "built-in retrievers record them), or count budgets in words")
    unique = list(dict.fromkeys(keys))
    counts = dict(zip(unique, tokenizer.count([texts[d][a:b] for d, a, b in unique])))
    out[rows] = [counts[key] for key in keys]
    return out
