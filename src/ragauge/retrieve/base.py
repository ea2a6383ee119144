"""The retriever protocol every adapter implements, and the spec that names one."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragauge.core.numbers import NON_NEGATIVE, TIMEOUT, Range, check_number
from ragauge.data.hits import Hit
from ragauge.errors import InputError, flag
from ragauge.redact import redact


@dataclass(frozen=True)
class Retrieved:
    """What one call returned: hits in rank order, and the cost when the adapter knows it."""

    hits: Sequence[Hit]
    cost: float | None = None


@runtime_checkable
class Retriever(Protocol):
    """A retriever ragauge can call. ``search`` is called from worker threads, so it must be
    thread-safe, or the adapter sets ``max_concurrency`` (the executor never runs more calls
    at once than that).

    ``describe()`` returns JSON-safe settings written into run metadata (never secrets);
    ``fingerprint()`` identifies the corpus/index when known (else None); ``documents()``
    returns the set of document ids the index holds when the adapter can know it (else None).
    """

    spec: str

    def search(self, query: str, n: int) -> Retrieved: ...

    def describe(self) -> dict[str, Any]: ...

    def fingerprint(self) -> str | None: ...

    def documents(self) -> set[str] | None: ...

    def close(self) -> None: ...


class RetrieverBase:
    """Defaults for adapters that know nothing of an index: no fingerprint, no document list,
    nothing to close."""

    spec: str

    def fingerprint(self) -> str | None:
        return None

    def documents(self) -> set[str] | None:
        return None

    def close(self) -> None:
        pass


class RetryableError(Exception):
    """A transient failure (timeout, connection reset, HTTP 429/5xx): the executor retries it."""


@dataclass(frozen=True)
class RetrieverOptions:
    """Settings shared by adapters: ``doc_id_key`` names the metadata key holding the document id
    in framework objects; ``timeout`` is per call in seconds; ``config`` is the retriever section
    of ragauge.toml (adapter specific); ``extra`` holds adapter keyword options from the spec."""

    doc_id_key: str | None = None
    timeout: float = 30.0
    config: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "timeout", check_number(self.timeout, flag("timeout"), TIMEOUT))


def split_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """``"bm25:corpus.jsonl?chunk_size=200&chunk_overlap=20"`` -> ("bm25", "corpus.jsonl",
    {"chunk_size": "200", "chunk_overlap": "20"}). The query part is optional."""
    from urllib.parse import parse_qsl

    scheme, _, rest = spec.partition(":")
    target, _, query = rest.partition("?")
    return scheme, target, dict(parse_qsl(query, keep_blank_values=True))


def spec_number(options: Mapping[str, str], key: str, default: float, allowed: Range, spec: str) -> Any:
    """Option ``key`` of a spec's query string as a number in ``allowed`` (``default`` when
    absent); InputError naming the option, the spec and the allowed range otherwise."""
    text = options.get(key)
    if text is None:
        return default
    try:
        value: float = int(text) if allowed.integer else float(text)
    except ValueError:
        raise InputError(f"option {key}={text!r} in {redact(spec)!r} must be {allowed}") from None
    return check_number(value, f"option {key}", allowed, where=redact(spec))


def check_answer(got: Retrieved, question: str) -> None:
    """InputError naming ``question`` when an adapter's answer holds a hit whose document or chunk
    id is not a string (a ``Hit`` built by hand: ``Hit(5)``), a score that is not a finite number
    (NaN, an infinity, a boolean) or a cost that is not a finite number >= 0: such a value would
    rank or total silently wrong downstream, or not be written at all."""
    for rank, hit in enumerate(got.hits, start=1):
        doc, chunk, score = hit.doc_id, hit.chunk_id, hit.score
        if ((doc is None or type(doc) is str) and (chunk is None or type(chunk) is str)
                and (score is None or type(score) is float and score - score == 0.0)):  # finite: inf - inf is nan
            continue  # the usual hit, at a glance; any other goes through each check below
        for name, value in (("document id", doc), ("chunk id", chunk)):
            if value is not None and not isinstance(value, str):
                raise InputError(f"the retriever returned a {name} of {value!r} ({type(value).__name__}, rank "
                                 f"{rank}) for question {question!r}",
                                 hint="ids are strings: build hits as Hit(str(doc_id)), or return dicts or ids, "
                                      "which ragauge turns into strings")
        if score is not None and (isinstance(score, bool) or not (
                isinstance(score, (int, float)) and math.isfinite(score))):
            raise InputError(f"the retriever returned a score of {score!r} (rank {rank}, document "
                             f"{doc or chunk!r}) for question {question!r}",
                             hint="scores must be finite numbers; leave the score out (None) when there is none")
    if got.cost is not None:
        check_number(got.cost, "the cost the retriever returned", NON_NEGATIVE, where=f"question {question!r}")
