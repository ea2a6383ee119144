"""TREC topics and query TSV files, and golden sets made from them with TREC qrels.

**TREC topics** (the SGML-like format of the classic ad hoc tracks; fields are not closed)::

    <top>
    <num> Number: 301
    <title> International Organized Crime
    <desc> Description:
    Identify organizations that participate in international criminal activity.
    <narr> Narrative:
    A relevant document must as a minimum identify the organization ...
    </top>

A field runs from its tag to the next tag; the labels ``Number:``, ``Topic:``, ``Description:`` and
``Narrative:`` are dropped, whitespace is collapsed and closing tags such as ``</title>`` (written
by some files) are ignored. Tags other than these (``<dom>``, ``<smry>``, ...) are kept by name.

**Query TSV** (MS MARCO ``queries.*.tsv``, and a simple TREC topics file): ``qid<TAB>text`` a line.

Both are read strictly: text outside a ``<top>`` block, a ``<top>`` left open, a topic without a
number or without the field asked for, a TSV line without a tab and an id given twice are errors
naming the file and line. The ``<topic number="...">`` XML format of later tracks is not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ragauge.core.files import decode_utf8, read_input
from ragauge.data.golden import GoldenQuery
from ragauge.errors import InputError, flag, where
from ragauge.formats import TOPIC_FIELD

TOPIC_FIELDS = ("title", "desc", "title+desc")
_LABELS = {"num": r"number\s*:", "title": r"topic\s*:", "desc": r"description\s*:", "narr": r"narrative\s*:"}
_EXTRA = {"title": "title", "desc": "description", "narr": "narrative"}
_TAG = re.compile(r"<\s*([A-Za-z]+)\s*>")
_CLOSE = re.compile(r"</\s*(?!top\b)[A-Za-z]+\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class Topic:
    """One topic: its number, its fields by tag name (``title``, ``desc``, ``narr``, ...), its line."""

    id: str
    fields: Mapping[str, str]
    line: int


def _text(path: Path, what: str) -> list[str]:
    return decode_utf8(read_input(path, what), path, what).splitlines()


def _read_query_jsonl(path: Path, lines: list[str], what: str) -> list[Topic]:
    """JSONL queries: each line ``{"_id" or "id": ..., "text" or "query": ...}`` (other keys kept out)."""
    import json

    out: list[Topic] = []
    first: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            example = '{"_id": "1", "text": "the question"}'
            raise InputError(f"not a JSON object ({exc.msg})", where=where(path, number),
                             hint=f"each line of a JSONL {what} file is {example}") from None
        qid = obj.get("_id", obj.get("id")) if isinstance(obj, dict) else None
        text = obj.get("text", obj.get("query")) if isinstance(obj, dict) else None
        if isinstance(qid, int) and not isinstance(qid, bool):
            qid = str(qid)
        if not isinstance(qid, str) or not qid.strip() or not isinstance(text, str) or not text.strip():
            raise InputError('expected {"_id": "...", "text": "..."} (or "id" and "query") with non-empty strings',
                             where=where(path, number), hint="BEIR's queries.jsonl layout")
        qid = qid.strip()
        if qid in first:
            raise InputError(f"id {qid!r} given twice (first on line {first[qid]})", where=where(path, number))
        first[qid] = number
        out.append(Topic(qid, {"title": " ".join(text.split())}, number))
    if not out:
        raise InputError(f"no {what} in the file", where=str(path))
    return out


def read_query_tsv(path: str | Path, what: str = "queries") -> list[Topic]:
    """``qid<TAB>text`` lines as topics whose one field is ``title``; blank lines are skipped. A file
    of JSON objects (its first non-blank line starts with ``{``) is read as JSONL queries instead:
    BEIR's ``{"_id", "text"}`` or ``{"id", "query"}`` (so a collection of JSONL queries and TREC qrels,
    as Cranfield's derived files are, imports without a hand-written BEIR folder)."""
    path = Path(path)
    lines = _text(path, what)
    if next((line.lstrip() for line in lines if line.strip()), "").startswith("{"):
        return _read_query_jsonl(path, lines, what)
    out: list[Topic] = []
    first: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        qid, tab, text = line.partition("\t")
        qid, text = qid.strip(), " ".join(text.split())
        if not tab:
            raise InputError("expected 'id<TAB>text', found no tab", where=where(path, number),
                             hint=f"each line of a {what} TSV file is an id, a tab, the text")
        if not qid or not text:
            raise InputError(f"an empty {'id' if not qid else 'text'}", where=where(path, number))
        if qid in first:
            raise InputError(f"id {qid!r} given twice (first on line {first[qid]})", where=where(path, number))
        first[qid] = number
        out.append(Topic(qid, {"title": text}, number))
    if not out:
        raise InputError(f"the {what} file is empty", where=str(path))
    return out


def read_topics(path: str | Path) -> list[Topic]:
    """The topics of a TREC topics file, SGML-like or ``qid<TAB>text`` (sniffed: a ``<top>`` line)."""
    path = Path(path)
    lines = _text(path, "topics")
    if not any(line.strip().lower() == "<top>" for line in lines):
        if any(re.match(r"\s*<topics?\b", line, re.IGNORECASE) for line in lines):
            raise InputError("this is the XML topics format (<topic number=...>), which is not read",
                             where=str(path), hint="convert it to 'id<TAB>text' lines")
        return read_query_tsv(path, "topics")
    out: list[Topic] = []
    first: dict[str, int] = {}
    opened: int | None = None
    fields: dict[str, list[str]] = {}
    current: str | None = None
    for number, raw in enumerate(lines, start=1):
        line = _CLOSE.sub(" ", raw)
        marker = line.strip().lower()
        if marker == "<top>":
            if opened is not None:
                raise InputError(f"<top> inside the <top> opened on line {opened}", where=where(path, number),
                                 hint="close each topic with </top>")
            opened, fields, current = number, {}, None
            continue
        if marker == "</top>":
            if opened is None:
                raise InputError("</top> without a <top>", where=where(path, number))
            topic = _topic(fields, path, opened)
            if topic.id in first:
                raise InputError(f"topic {topic.id!r} given twice (first on line {first[topic.id]})",
                                 where=where(path, opened))
            first[topic.id] = opened
            out.append(topic)
            opened = None
            continue
        if opened is None:
            if marker:
                raise InputError("text outside a <top> ... </top> block", where=where(path, number))
            continue
        for piece in _pieces(line):
            if isinstance(piece, tuple):
                current = piece[0]
                fields.setdefault(current, [])
            elif piece.strip():
                if current is None:
                    raise InputError("text before the first field tag of the topic", where=where(path, number))
                fields[current].append(piece)
    if opened is not None:
        raise InputError(f"the <top> opened on line {opened} is never closed", where=where(path, len(lines)))
    if not out:
        raise InputError("the topics file has no topic", where=str(path))
    return out


def _pieces(line: str) -> Iterable[str | tuple[str]]:
    """The line cut at its tags: text pieces, and ``(tag,)`` for each tag."""
    at = 0
    for m in _TAG.finditer(line):
        yield line[at:m.start()]
        yield (m.group(1).lower(),)
        at = m.end()
    yield line[at:]


def _topic(fields: Mapping[str, list[str]], path: Path, line: int) -> Topic:
    clean = {}
    for tag, parts in fields.items():
        text = " ".join(" ".join(parts).split())
        label = _LABELS.get(tag)
        if label:
            text = re.sub(rf"^{label}\s*", "", text, flags=re.IGNORECASE)
        clean[tag] = text
    if not clean.get("num"):
        raise InputError("a topic without a <num>", where=where(path, line))
    return Topic(clean.pop("num"), clean, line)


def topic_query(topic: Topic, field: str, path: str | Path) -> str:
    """The question a topic asks, from its ``title``, ``desc`` or both (``title+desc``)."""
    if field not in TOPIC_FIELDS:
        raise InputError(f"unknown topic field {field!r}", hint=f"use one of {', '.join(TOPIC_FIELDS)}")
    parts = field.split("+")
    missing = [p for p in parts if not topic.fields.get(p)]
    if missing:
        raise InputError(f"topic {topic.id!r} has no <{missing[0]}>", where=where(path, topic.line),
                         hint="choose another field with " + flag("topic_field"))
    return " ".join(topic.fields[p] for p in parts)


def golden_from_topics(topics: list[Topic], qrels: Mapping[str, Mapping[str, float]], *, field: str = TOPIC_FIELD,
                       topics_path: str | Path, qrels_path: str | Path, what: str = "topic") -> tuple[
                           list[GoldenQuery], list[str]]:
    """Golden questions for the judged topics, in the topics' order, and the notes that change how
    the set reads. A topic without judgements is left out (unjudged is not "no answer"; a note
    counts them); judgements of an id missing from the topics are an error. Topic numbers written
    with leading zeros (``051``) match qrels ids without them (``51``), with a note."""
    whats = "queries" if what == "query" else f"{what}s"  # the plural ("querys" was printed)
    by_id = {t.id: t for t in topics}
    alias: dict[str, str] = {}
    unknown = [q for q in qrels if q not in by_id]
    if unknown:
        stripped = {t.id.lstrip("0") or "0": t.id for t in topics if t.id.isdigit()}
        alias = {q: stripped[q.lstrip("0") or "0"] for q in unknown
                 if q.isdigit() and (q.lstrip("0") or "0") in stripped}
        unknown = [q for q in unknown if q not in alias]
    if unknown:
        raise InputError(f"{len(unknown)} judged {what} id(s) are not in the {whats} file, e.g. {unknown[0]!r}",
                         where=str(qrels_path), hint=f"give the {whats} file that goes with these qrels")
    judged = {alias.get(q, q): docs for q, docs in qrels.items()}
    notes = []
    if alias:
        example = next(iter(alias.items()))
        notes.append(f"{len(alias)} {what} number(s) match the qrels only without leading zeros "
                     f"(qrels {example[0]!r} is {what} {example[1]!r}); the {whats}' own ids are kept")
    queries = []
    extra_fields = [f for f in ("title", "desc", "narr") if f not in field.split("+")]
    for topic in topics:
        if topic.id not in judged:
            continue
        extra = {_EXTRA[f]: topic.fields[f] for f in extra_fields if topic.fields.get(f)}
        queries.append(GoldenQuery(topic.id, topic_query(topic, field, topics_path), dict(judged[topic.id]), (),
                                   extra))
    left = len(topics) - len(queries)
    if left:
        ids = [t.id for t in topics if t.id not in judged]
        notes.append(f"{left} {what}(s) have no judgement in {qrels_path} and were left out (an unjudged {what} is "
                     f"not a question without an answer): {', '.join(ids[:10])}{' ...' if left > 10 else ''}")
    if not queries:
        raise InputError(f"no {what} of {topics_path} is judged in {qrels_path}",
                         hint=f"are the {whats} and the qrels of the same collection?")
    return queries, notes


def read_qrels_dict(path: str | Path) -> dict[str, dict[str, float]]:
    """TREC qrels (``qid iter docno rel``, any whitespace; the MS MARCO qrels TSV is this format) as
    ``{qid: {docno: grade}}`` in file order; a (qid, docno) pair given twice is an error."""
    from ragauge.formats.trec import read_qrels

    qrels = read_qrels(path)
    out: dict[str, dict[str, float]] = {}
    for qid, doc, rel in zip(qrels.qid.to_pylist(), qrels.docno.to_pylist(), qrels.rel.tolist()):
        out.setdefault(qid, {})[doc] = int(rel)
    if not out:
        raise InputError("the qrels file has no judgement", where=str(path))
    return out
