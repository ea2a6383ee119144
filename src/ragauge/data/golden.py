"""The golden set: questions with their relevant documents, loaded with file:line errors."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ragauge.core.hashing import content_hash
from ragauge.core.jsonl import dumps as json_key
from ragauge.core.numbers import COUNT, GRADE, check_number
from ragauge.data.relevance import is_relevant
from ragauge.data.spans import SPAN_HINT, Span, parse_label
from ragauge.errors import InputError

FORMAT_VERSION = 1
_KNOWN = ("id", "query", "relevant", "evidence", "tags")
_KNOWN_KEYS = frozenset(_KNOWN)
MAX_GROUPS = 64
"""The most evidence groups one question may need (each is a bit of a 64-bit mask in the engine)."""
MAX_QUERY_CHARS = 100_000
"""The longest question ragauge takes: far beyond any search query or prompt a retriever is sent
(a 256 MiB one crashed the tokenizer of the built-in retrievers with a segmentation fault)."""
SYNTHETIC = "synthetic"
"""The ``source`` of a question an LLM wrote (``golden draft``, a ragas test set): evaluations score
such questions apart from the others."""


@dataclass(frozen=True)
class GoldenQuery:
    """One question of a golden set.

    ``relevant`` maps document (or stable section) ids to grades; a list in the file means
    grade 1 for each. A question with no document graded >= 1 is a *no-answer* question.
    ``extra`` keeps any other fields of the line for reports. ``spans`` maps a document to the
    passages of it that hold the answer (span labels, ``ragauge.data.spans``): only chunks that
    overlap one count as that document; a document without spans counts whole.

    ``groups`` (a multi-hop question, ``"evidence"`` in the file) lists the pieces of evidence the
    question needs, each the ids of the documents any one of which provides it; ``relevant`` then
    holds every id of every group (a document in two groups provides both). Empty for a plain
    question, whose every relevant document is a piece of evidence of its own.

    A question asked inside a conversation gives ``"conversation"`` (its id) and ``"turn"`` (its
    position, 1 for the first), and may give ``"history"`` (the earlier turns' text); they are kept
    in ``extra`` and read through ``conversation`` and ``turn``.

    ``labelled`` is False for an *unlabelled* question (``"relevant": null`` in the file, read only
    where automatic labels stand in for the human ones: ``load_golden(path, unlabelled=True)``): its
    ``relevant`` is empty because nobody labelled it, not because nothing answers it.
    """

    id: str
    query: str
    relevant: Mapping[str, float] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None
    spans: Mapping[str, tuple[Span, ...]] = field(default_factory=dict)
    groups: tuple[tuple[str, ...], ...] = ()
    labelled: bool = True

    @property
    def answerable(self) -> bool:
        return any(is_relevant(g) for g in self.relevant.values())

    @property
    def conversation(self) -> str | None:
        """The conversation the question was asked in (None: asked on its own)."""
        value = self.extra.get("conversation")
        return value if isinstance(value, str) else None

    @property
    def turn(self) -> int | None:
        """The question's position in its conversation (1: its first turn), None outside one."""
        value = self.extra.get("turn")
        return value if isinstance(value, int) and self.conversation is not None else None

    @property
    def synthetic(self) -> bool:
        """Whether an LLM wrote the question (its line says ``"source": "synthetic"``)."""
        return self.extra.get("source") == SYNTHETIC

    def to_dict(self) -> dict[str, Any]:
        if self.groups:
            out: dict[str, Any] = {"id": self.id, "query": self.query,
                                   "evidence": [self._labels(group) for group in self.groups]}
            if self.tags:
                out["tags"] = list(self.tags)
            out.update(self.extra)
            return out
        graded = any(g != 1 for g in self.relevant.values())
        relevant: Any = dict(self.relevant) if graded else list(self.relevant) if self.labelled else None
        if self.spans:
            relevant = []
            for doc, grade in self.relevant.items():
                if doc in self.spans:
                    relevant += [s.to_dict(doc) for s in self.spans[doc]]
                else:
                    relevant.append(doc if grade == 1 else {"doc": doc, "grade": grade})
        out = {"id": self.id, "query": self.query, "relevant": relevant}
        if self.tags:
            out["tags"] = list(self.tags)
        out.update(self.extra)
        return out

    def _labels(self, docs: tuple[str, ...]) -> list[Any]:
        """The labels of ``docs`` as a list form of ``relevant`` writes them (ids, graded, spans)."""
        out: list[Any] = []
        for doc in docs:
            grade = self.relevant[doc]
            if doc in self.spans:
                out += [s.to_dict(doc) for s in self.spans[doc]]
            else:
                out.append(doc if grade == 1 else {"doc": doc, "grade": grade})
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, unlabelled: bool = False) -> GoldenQuery:
        """The inverse of ``to_dict``: one golden-set line, checked as the file reader checks it
        (``unlabelled`` as :func:`parse_golden_line` takes it)."""
        return parse_golden_line(d, f"question {d.get('id')!r}", unlabelled=unlabelled)


@dataclass(frozen=True)
class GoldenSet:
    """An ordered collection of golden questions with unique ids."""

    queries: tuple[GoldenQuery, ...]
    source: str | None = None

    def __iter__(self) -> Iterator[GoldenQuery]:
        return iter(self.queries)

    def __len__(self) -> int:
        return len(self.queries)

    @cached_property
    def by_id(self) -> dict[str, GoldenQuery]:
        return {q.id: q for q in self.queries}

    @cached_property
    def content_hash(self) -> str:
        """Hash of ids, questions, graded relevant ids, spans, evidence groups, tags and which questions
        are unlabelled; order and extra fields excluded (a set without spans, groups or unlabelled
        questions hashes as it always has)."""
        payload = sorted(
            [q.id, q.query, sorted(q.relevant.items()), sorted(q.tags)]
            + ([sorted((d, sorted(json_key(s.to_dict(d)) for s in spans)) for d, spans in q.spans.items())]
               if q.spans else [])
            + ([["evidence", sorted(sorted(group) for group in q.groups)]] if q.groups else [])
            + ([["unlabelled"]] if not q.labelled else [])
            for q in self.queries
        )
        return content_hash({"golden": FORMAT_VERSION, "queries": payload})

    @cached_property
    def questions_hash(self) -> str:
        """Hash of the questions alone, ids and texts (labels, tags, order and extra fields excluded):
        what an automatic assessor read. Labelling a question, or unlabelling one, leaves it as it is."""
        return content_hash({"golden-questions": FORMAT_VERSION, "queries": sorted([q.id, q.query] for q in self)})

    @cached_property
    def unlabelled(self) -> tuple[str, ...]:
        """The ids of the unlabelled questions (``GoldenQuery.labelled`` False), in order."""
        return tuple(q.id for q in self.queries if not q.labelled)

    @classmethod
    def from_queries(cls, queries: Iterable[GoldenQuery], source: str | None = None) -> GoldenSet:
        """Build a set, refusing duplicate ids."""
        seen: dict[str, GoldenQuery] = {}
        for q in queries:
            if q.id in seen:
                raise InputError(f"duplicate question id {q.id!r}", where=source)
            seen[q.id] = q
        return cls(tuple(seen.values()), source)


def refuse_unlabelled(golden: GoldenSet) -> None:
    """InputError naming the first unlabelled question (file:line) of ``golden``, when it holds one:
    what scores human labels alone cannot score it (read with ``unlabelled=True``, then given where no
    automatic labels stand in)."""
    if not golden.unlabelled:
        return
    first = golden.by_id[golden.unlabelled[0]]
    loc = f"{golden.source}:{first.line}" if golden.source and first.line else golden.source
    raise InputError(f"'relevant' is null: {len(golden.unlabelled)} question(s) are unlabelled (the first: "
                     f"{first.id!r}), which only automatic labels can score", where=loc, hint=UNLABELLED_HINT)


_RELEVANT_HINT = ('use a list of ids ["doc-1", "doc-2"], an object {"doc-1": 2, "doc-2": 1}, or [] for no answer; '
                  'a list may also hold span labels: ' + SPAN_HINT)


def _parse_relevant(value: Any, loc: str) -> tuple[dict[str, float], dict[str, tuple[Span, ...]]]:
    hint = _RELEVANT_HINT
    if isinstance(value, list):
        out: dict[str, float] = {}
        spans: dict[str, list[Span]] = {}
        whole: set[str] = set()
        for item in value:
            if isinstance(item, dict):
                doc, span, grade = parse_label(item, loc)
            elif isinstance(item, str) and item:
                doc, span, grade = item, None, 1
            else:
                raise InputError(f"'relevant' items must be non-empty strings or span objects, got {item!r}",
                                 where=loc, hint=hint)
            if span is None:
                if doc in whole or doc in spans:
                    raise InputError(f"document {doc!r} is listed twice in 'relevant'", where=loc,
                                     hint="list a document once: whole, or by its spans")
                whole.add(doc)
                out[doc] = grade  # its only label
                continue
            if doc in whole:
                raise InputError(f"document {doc!r} is listed both whole and by a span", where=loc,
                                 hint="keep the spans (only chunks that overlap them count) or the whole document")
            spans.setdefault(doc, []).append(span)
            out[doc] = max(grade, out.get(doc, grade))
        return out, {doc: tuple(s) for doc, s in spans.items()} if spans else {}
    if isinstance(value, dict):
        out = {}
        for doc, grade in value.items():
            if not doc:
                raise InputError("'relevant' has an empty document id", where=loc, hint=hint)
            grade = check_number(grade, f"grade of {doc!r}", GRADE, where=loc, hint=hint)
            out[doc] = int(grade) if grade.is_integer() else grade
        return out, {}
    raise InputError(f"'relevant' must be a list or an object, got {type(value).__name__}", where=loc, hint=hint)


UNLABELLED_HINT = ("an unlabelled question is scored only beside automatic labels (eval, compare and gate "
                   "--auto-labels auto.jsonl, written by ragauge golden assess); otherwise label it: a list of "
                   "its relevant ids, or [] for a question nothing answers")


def parse_golden_line(obj: Mapping[str, Any], loc: str, *, line: int | None = None,
                      unlabelled: bool = False) -> GoldenQuery:
    """Validate one decoded golden line; ``loc`` is used in error messages, ``line`` (its line number
    in the file) is kept on the question. ``"relevant": null`` is an unlabelled question
    (``GoldenQuery.labelled`` False) with ``unlabelled``, refused (InputError, ``UNLABELLED_HINT``)
    without."""
    for key in ("id", "query"):
        if key not in obj:
            raise InputError(f"missing required field '{key}'", where=loc,
                             hint='each line needs "id", "query" and "relevant"')
    qid, query = obj["id"], obj["query"]
    if not isinstance(qid, str) or not qid:
        raise InputError(f"'id' must be a non-empty string, got {qid!r}", where=loc,
                         hint='write ids as strings: "id": "q42"')
    if not isinstance(query, str):
        raise InputError(f"'query' must be a string, got {type(query).__name__}", where=loc)
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"'query' is {len(query):,} characters long, more than {MAX_QUERY_CHARS:,}", where=loc,
                         hint="a golden question is what a user asks: put documents in the corpus, not the question")
    groups: tuple[tuple[str, ...], ...] = ()
    if "evidence" in obj:
        if "relevant" in obj:
            raise InputError("a question gives 'relevant' or 'evidence', not both", where=loc,
                             hint='"evidence": [["doc-a", "doc-b"], ["doc-c"]] lists the pieces a multi-hop question '
                                  'needs; "relevant" the documents of a plain one')
        relevant, spans, groups = _parse_evidence(obj["evidence"], loc)
    elif "relevant" not in obj:
        raise InputError("missing required field 'relevant'", where=loc,
                         hint='list the relevant document ids, or "relevant": [] for a no-answer question')
    elif obj["relevant"] is None:
        if not unlabelled:
            raise InputError(f"'relevant' is null: question {qid!r} is unlabelled, which only automatic labels can "
                             "score", where=loc, hint=UNLABELLED_HINT)
        relevant, spans = {}, {}
    else:
        relevant, spans = _parse_relevant(obj["relevant"], loc)
    tags = obj.get("tags", [])
    if tags is None:
        tags = []
    if not isinstance(tags, list) or (tags and not all(isinstance(t, str) for t in tags)):
        raise InputError(f"'tags' must be a list of strings, got {tags!r}", where=loc, hint='"tags": ["networking"]')
    extra = {} if obj.keys() <= _KNOWN_KEYS else {k: v for k, v in obj.items() if k not in _KNOWN}
    if not obj.keys().isdisjoint(_CONVERSATION):
        extra.update(_parse_conversation(obj, loc))
    return GoldenQuery(qid, query, relevant, tuple(dict.fromkeys(tags)) if tags else (), extra, line, spans, groups,
                       labelled=obj.get("relevant", ()) is not None)


_CONVERSATION = ("conversation", "turn", "history")
_TURN_HINT = '"conversation": "c17", "turn": 3 (its position: 1 for the first), "history": ["earlier turns"]'


def _parse_conversation(obj: Mapping[str, Any], loc: str) -> dict[str, Any]:
    """A conversation question's ``conversation``, ``turn`` and ``history``, checked: a turn needs
    its conversation and a conversation its turn (a whole number >= 1); history is a list of texts."""
    conversation, turn, history = obj.get("conversation"), obj.get("turn"), obj.get("history")
    if conversation is None:
        raise InputError(f"a {'turn' if turn is not None else 'history'} without its conversation", where=loc,
                         hint=f"name the conversation the question was asked in: {_TURN_HINT}")
    if not isinstance(conversation, str) or not conversation:
        raise InputError(f"'conversation' must be a non-empty string, got {conversation!r}", where=loc,
                         hint=_TURN_HINT)
    if turn is None:
        raise InputError(f"conversation {conversation!r} without the question's 'turn'", where=loc, hint=_TURN_HINT)
    turn = int(check_number(turn, "'turn'", COUNT, where=loc, hint=_TURN_HINT))
    out: dict[str, Any] = {"conversation": conversation, "turn": turn}
    if "history" in obj:
        if not isinstance(history, list) or not all(isinstance(h, str) for h in history):
            raise InputError("'history' must be a list of the earlier turns' texts", where=loc, hint=_TURN_HINT)
        out["history"] = history
    return out


_EVIDENCE_HINT = ('"evidence": [["doc-a", "doc-b"], ["doc-c"]]: the question needs every group, and any id of a '
                  'group provides it (ids, {"doc": ..., "grade": ...} or span labels, as in "relevant")')


def _parse_evidence(value: Any, loc: str) -> tuple[dict[str, float], dict[str, tuple[Span, ...]],
                                                   tuple[tuple[str, ...], ...]]:
    """The labels of every group together (a document's highest grade, its spans from the one group
    that gives them) and each group's ids, in the file's order. A group without an id graded >= 1
    provides nothing: refused, as are an empty list, more than ``MAX_GROUPS`` groups, and one
    document given spans in two groups."""
    if not isinstance(value, list) or not value:
        raise InputError("'evidence' must be a non-empty list of groups", where=loc, hint=_EVIDENCE_HINT)
    if len(value) > MAX_GROUPS:
        raise InputError(f"'evidence' has {len(value)} groups, more than {MAX_GROUPS}", where=loc,
                         hint="a question that needs that many pieces of evidence is several questions")
    relevant: dict[str, float] = {}
    spans: dict[str, tuple[Span, ...]] = {}
    groups = []
    for number, group in enumerate(value, start=1):
        if not isinstance(group, list) or not group:
            raise InputError(f"evidence group {number} must be a non-empty list of ids, got {group!r}", where=loc,
                             hint=_EVIDENCE_HINT)
        grades, labelled = _parse_relevant(group, f"{loc}, evidence group {number}")
        if not any(is_relevant(g) for g in grades.values()):
            raise InputError(f"evidence group {number} has no relevant id (grade >= 1): nothing can provide it",
                             where=loc, hint=_EVIDENCE_HINT)
        for doc, grade in grades.items():
            relevant[doc] = max(grade, relevant.get(doc, grade))
        for doc, found in labelled.items():
            if doc in spans:
                raise InputError(f"document {doc!r} has spans in two evidence groups", where=loc,
                                 hint="give a document's spans in one group, or list it whole in both")
            spans[doc] = found
        groups.append(tuple(grades))
    return relevant, spans, tuple(groups)
