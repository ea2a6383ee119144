"""A judging pool: for each question, the documents several systems returned that nobody has judged yet.

Pooling is how IR test collections are built: the union of the top ``depth`` documents of several
retrievers is what a person judges, because a document no system ranks high matters to no metric
at that depth. A pool records, per question, each **candidate** (an unjudged pooled document) with
the rank at which each system returned it (within ``depth``), and each document **already judged**
for the question (any grade, 0 included) with the rank at which each system returned it at any
depth it fetched (no rank: no system returned it at all). The file format is in
:mod:`ragauge.formats.pool`.

Ranks are 1-based, counted after chunk hits are folded into their documents, as the metrics count
them (``ragauge.evaluation.topdocs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ragauge.core.numbers import COUNT, GRADE, PROBABILITY, check_number
from ragauge.errors import InputError

POOL_VERSION = 1
VERDICT_VERSION = 2
"""A pool made for a comparison's verdict (``golden pool --for-verdict``) is format version 2: version 1
with the header's ``verdict``. A pool without one is written as version 1, byte for byte as before."""
SYSTEM_KINDS = ("retriever", "run")


@dataclass(frozen=True)
class PoolSystem:
    """One pooled system: its ``name`` (the spec, passwords hidden, or the run file's path as given)
    and its ``kind``, ``"retriever"`` (called for the pool) or ``"run"`` (read from a file)."""

    name: str
    kind: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind}


@dataclass(frozen=True)
class PoolVerdict:
    """What a pool made with ``--for-verdict`` decides: the comparison of the system ``new`` against the
    system ``base`` (both among the pool's systems) on ``metric`` (text, e.g. ``ndcg@10``; checked where it
    is used, :mod:`ragauge.curation.verdict`) at level ``alpha``."""

    base: str
    new: str
    metric: str
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "new": self.new, "metric": self.metric, "alpha": self.alpha}


@dataclass(frozen=True)
class PoolDocument:
    """A pooled document of one question and where each system ranked it: ``ranks`` maps a system's
    name to the 1-based rank it gave the document (a system that did not return it is absent).
    ``grade`` is the judgement already recorded for it, None for a candidate still to judge."""

    doc_id: str
    ranks: Mapping[str, int] = field(default_factory=dict)
    grade: float | None = None

    @property
    def best_rank(self) -> int | None:
        return min(self.ranks.values(), default=None)

    def within(self, depth: int) -> bool:
        """Some system ranked it at ``depth`` or better (it is in the pool at that depth)."""
        return any(r <= depth for r in self.ranks.values())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"doc_id": self.doc_id}
        if self.grade is not None:
            out["grade"] = self.grade
        out["ranks"] = dict(self.ranks)
        return out


@dataclass(frozen=True)
class PooledQuestion:
    """One question of a pool. ``systems`` names the systems that answered it (a system whose call
    failed, or whose run lacks the question, is not among them); ``candidates`` are the unjudged
    documents in some system's top ``depth``, best first; ``judged`` are the documents judged before
    pooling, with the ranks they got at any depth."""

    id: str
    query: str
    candidates: tuple[PoolDocument, ...] = ()
    judged: tuple[PoolDocument, ...] = ()
    systems: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    line: int | None = None

    def by_systems(self) -> dict[int, int]:
        """How many candidates came from how many systems: ``{systems: candidates}``, ascending."""
        counts: dict[int, int] = {}
        for c in self.candidates:
            counts[len(c.ranks)] = counts.get(len(c.ranks), 0) + 1
        return dict(sorted(counts.items()))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "query": self.query}
        if self.tags:
            out["tags"] = list(self.tags)
        out["systems"] = list(self.systems)
        out["candidates"] = [c.to_dict() for c in self.candidates]
        out["judged"] = [j.to_dict() for j in self.judged]
        return out


@dataclass(frozen=True)
class Pool:
    """A judging pool: how it was made (``depth``, ``systems``, the chunk-to-document rule, the golden
    set's path and content hash) and one :class:`PooledQuestion` per question, in golden-set order."""

    depth: int
    systems: tuple[PoolSystem, ...]
    questions: tuple[PooledQuestion, ...]
    doc_id: str = "doc id as given by each hit"
    golden: Mapping[str, Any] = field(default_factory=dict)
    ragauge_version: str | None = None
    source: str | None = None
    verdict: PoolVerdict | None = None

    @cached_property
    def by_id(self) -> dict[str, PooledQuestion]:
        return {q.id: q for q in self.questions}

    @property
    def candidates(self) -> int:
        return sum(len(q.candidates) for q in self.questions)

    def by_systems(self) -> dict[int, int]:
        """Over all questions: ``{number of systems: candidates returned by that many}``."""
        counts: dict[int, int] = {}
        for q in self.questions:
            for n, c in q.by_systems().items():
                counts[n] = counts.get(n, 0) + c
        return dict(sorted(counts.items()))

    def header(self) -> dict[str, Any]:
        """The first line of a pool file (``{"_pool": header}``): version 1, or 2 with a ``verdict``."""
        out = {"version": POOL_VERSION if self.verdict is None else VERDICT_VERSION, "depth": self.depth,
               "systems": [s.to_dict() for s in self.systems], "doc_id": self.doc_id, "golden": dict(self.golden),
               "ragauge_version": self.ragauge_version}
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        return out


# --- parsing (one line at a time; ``loc`` names the file and line in errors) ----------------------

_HINT = 'a pool line looks like {"id": "q1", "query": "...", "systems": [...], "candidates": [...], "judged": [...]}'


def _string(value: Any, what: str, loc: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not value and not empty):
        raise InputError(f"{what} must be a {'' if empty else 'non-empty '}string, got {value!r}", where=loc,
                         hint=_HINT)
    return value


def _strings(value: Any, what: str, loc: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InputError(f"{what} must be a list of strings, got {type(value).__name__}", where=loc, hint=_HINT)
    items = tuple(_string(v, f"each of {what}", loc) for v in value)
    if len(set(items)) != len(items):
        raise InputError(f"{what} names {next(v for v in items if items.count(v) > 1)!r} twice", where=loc)
    return items


def _keys(obj: Mapping[str, Any], required: tuple[str, ...], optional: tuple[str, ...], what: str, loc: str) -> None:
    missing = [k for k in required if k not in obj]
    if missing:
        raise InputError(f"{what} lacks {', '.join(repr(k) for k in missing)}", where=loc, hint=_HINT)
    unknown = sorted(k for k in obj if k not in required + optional)
    if unknown:
        raise InputError(f"{what} has unknown field(s) {', '.join(repr(k) for k in unknown)}", where=loc,
                         hint=f"pool format version {POOL_VERSION} has only "
                              f"{', '.join(repr(k) for k in required + optional)}")


def parse_system(obj: Any, loc: str) -> PoolSystem:
    if not isinstance(obj, Mapping):
        raise InputError(f"each system must be an object, got {type(obj).__name__}", where=loc)
    _keys(obj, ("name", "kind"), (), "a system", loc)
    kind = obj["kind"]
    if kind not in SYSTEM_KINDS:
        raise InputError(f"a system's kind must be 'retriever' or 'run', got {kind!r}", where=loc)
    return PoolSystem(_string(obj["name"], "a system's name", loc), kind)


def parse_document(obj: Any, systems: Mapping[str, Any], loc: str, *, judged: bool) -> PoolDocument:
    """One candidate (``judged=False``: no grade, at least one rank) or already-judged document (a
    grade, any number of ranks); every rank names a known system and is an integer >= 1."""
    what = "a judged document" if judged else "a candidate"
    if not isinstance(obj, Mapping):
        raise InputError(f"{what} must be an object, got {type(obj).__name__}", where=loc, hint=_HINT)
    _keys(obj, ("doc_id", "ranks", "grade") if judged else ("doc_id", "ranks"), (), what, loc)
    doc = _string(obj["doc_id"], f"{what}'s doc_id", loc)
    ranks = obj["ranks"]
    if not isinstance(ranks, Mapping):
        raise InputError(f"'ranks' of {doc!r} must be an object {{system: rank}}", where=loc, hint=_HINT)
    if not judged and not ranks:
        raise InputError(f"candidate {doc!r} has no rank: every candidate was returned by some system", where=loc)
    checked: dict[str, int] = {}
    for name, rank in ranks.items():
        if name not in systems:
            raise InputError(f"{doc!r} is ranked by {name!r}, which is not among the pool's systems", where=loc,
                             hint="a rank names one of the systems of the first line")
        checked[name] = int(check_number(rank, f"rank of {doc!r} by {name!r}", COUNT, where=loc))
    grade = None
    if judged:
        grade = check_number(obj["grade"], f"grade of {doc!r}", GRADE, where=loc)
        grade = int(grade) if grade.is_integer() else grade
    return PoolDocument(doc, checked, grade)


def parse_pooled_question(obj: Mapping[str, Any], systems: Mapping[str, Any], loc: str) -> PooledQuestion:
    """One question line of a pool file, checked field by field (InputError naming ``loc``)."""
    _keys(obj, ("id", "query", "systems", "candidates", "judged"), ("tags",), "a pool line", loc)
    qid = _string(obj["id"], "'id'", loc)
    query = _string(obj["query"], "'query'", loc, empty=True)
    tags = _strings(obj.get("tags", []), "'tags'", loc)
    answered = _strings(obj["systems"], "'systems'", loc)
    for name in answered:
        if name not in systems:
            raise InputError(f"'systems' names {name!r}, which is not among the pool's systems", where=loc)
    docs: dict[str, PoolDocument] = {}
    parts = []
    for key, judged in (("candidates", False), ("judged", True)):
        if not isinstance(obj[key], list):
            raise InputError(f"'{key}' must be a list, got {type(obj[key]).__name__}", where=loc, hint=_HINT)
        part = []
        for item in obj[key]:
            doc = parse_document(item, systems, loc, judged=judged)
            if doc.doc_id in docs:
                raise InputError(f"document {doc.doc_id!r} appears twice in question {qid!r}", where=loc,
                                 hint="a document is either a candidate or already judged, once")
            docs[doc.doc_id] = doc
            part.append(doc)
        parts.append(tuple(part))
    return PooledQuestion(qid, query, parts[0], parts[1], answered, tags)


def parse_verdict(obj: Any, systems: Mapping[str, Any], loc: str) -> PoolVerdict:
    """The header's ``verdict`` (format version 2): two distinct systems of the header, a metric's
    text and a level alpha in (0, 1)."""
    if not isinstance(obj, Mapping):
        raise InputError("'verdict' in the pool header must be an object", where=loc)
    _keys(obj, ("base", "new", "metric", "alpha"), (), "the pool's verdict", loc)
    base, new = (_string(obj[k], f"the verdict's {k!r}", loc) for k in ("base", "new"))
    for name in (base, new):
        if name not in systems:
            raise InputError(f"the verdict compares {name!r}, which is not among the pool's systems", where=loc)
    if base == new:
        raise InputError(f"the verdict compares {base!r} with itself", where=loc)
    alpha = check_number(obj["alpha"], "the verdict's alpha", PROBABILITY, where=loc)
    return PoolVerdict(base, new, _string(obj["metric"], "the verdict's metric", loc), alpha)


def parse_header(obj: Mapping[str, Any], loc: str) -> Pool:
    """The ``_pool`` header line, checked, as a Pool with no question yet; a version other than
    :data:`POOL_VERSION` or :data:`VERDICT_VERSION` (which, and only which, has a ``verdict``) is refused."""
    head = obj.get("_pool")
    if len(obj) != 1 or not isinstance(head, Mapping):
        raise InputError("the first line of a pool file must be {\"_pool\": {...}}", where=loc,
                         hint="is this a pool file? make one with 'ragauge golden pool'")
    version = head.get("version")
    if version not in (POOL_VERSION, VERDICT_VERSION) or isinstance(version, bool):
        newer = isinstance(version, int) and not isinstance(version, bool) and version > VERDICT_VERSION
        raise InputError(f"unsupported pool format version {version!r} (this ragauge reads versions "
                         f"{POOL_VERSION} and {VERDICT_VERSION})", where=loc,
                         hint="upgrade ragauge" if newer else "make the pool again with 'ragauge golden pool'")
    optional = ("doc_id", "golden", "ragauge_version") + (("verdict",) if version == VERDICT_VERSION else ())
    _keys(head, ("version", "depth", "systems") + (("verdict",) if version == VERDICT_VERSION else ()), optional,
          "the pool header", loc)
    depth = int(check_number(head["depth"], "the pool's depth", COUNT, where=loc))
    if not isinstance(head["systems"], list) or not head["systems"]:
        raise InputError("the pool header must list at least one system", where=loc)
    systems = tuple(parse_system(s, loc) for s in head["systems"])
    names = [s.name for s in systems]
    if len(set(names)) != len(names):
        raise InputError(f"the pool header names system {next(n for n in names if names.count(n) > 1)!r} twice",
                         where=loc)
    golden = head.get("golden") or {}
    if not isinstance(golden, Mapping):
        raise InputError("'golden' in the pool header must be an object", where=loc)
    doc_id = head.get("doc_id", "doc id as given by each hit")
    version_text = head.get("ragauge_version")
    verdict = parse_verdict(head["verdict"], {s.name: s for s in systems}, loc) if "verdict" in head else None
    return Pool(depth, systems, (), _string(doc_id, "'doc_id'", loc), dict(golden),
                None if version_text is None else _string(version_text, "'ragauge_version'", loc), verdict=verdict)
