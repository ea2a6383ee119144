"""BEIR datasets: ``queries.jsonl`` (``_id``, ``text``) and ``qrels/<split>.tsv``
(``query-id<TAB>corpus-id<TAB>score`` with a header line)."""

from __future__ import annotations

from pathlib import Path

from ragauge.core.files import decode_utf8, read_input
from ragauge.core.jsonl import read_jsonl
from ragauge.core.numbers import GRADE, check_number
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.errors import InputError, where
from ragauge.formats import BEIR_SPLIT


def read_beir_qrels(path: Path) -> dict[str, dict[str, float]]:
    """``{query_id: {doc_id: grade}}`` from a BEIR qrels TSV (header optional, CRLF accepted)."""
    text = decode_utf8(read_input(path, "BEIR qrels"), path, "qrels")
    out: dict[str, dict[str, float]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.strip().split("\t") if "\t" in line else line.split()
        if not parts or not line.strip():
            continue
        if number == 1 and parts[0].lower() in ("query-id", "query_id", "qid"):
            continue
        if len(parts) < 3:
            raise InputError(f"expected query-id, corpus-id, score; found {len(parts)} field(s)",
                             where=where(path, number))
        try:
            grade = check_number(float(parts[2]), "score", GRADE, where=where(path, number))
        except ValueError:
            raise InputError(f"score must be a number, got {parts[2]!r}", where=where(path, number)) from None
        docs = out.setdefault(parts[0], {})
        if parts[1] in docs:
            raise InputError(f"duplicate judgement for query {parts[0]!r}, document {parts[1]!r}",
                             where=where(path, number))
        docs[parts[1]] = int(grade) if grade.is_integer() else grade
    return out


def import_beir(folder: str | Path, split: str = BEIR_SPLIT, output: str | Path | None = None) -> GoldenSet:
    """A golden set of the split's judged queries, in queries.jsonl order, tagged with the split;
    written to ``output`` (atomically: a failure leaves no partial file) when given."""
    folder = Path(folder)
    qrels = read_beir_qrels(folder / "qrels" / f"{split}.tsv")
    texts: dict[str, str] = {}
    for number, obj in read_jsonl(folder / "queries.jsonl", what="BEIR queries"):
        qid, text = obj.get("_id"), obj.get("text")
        if not isinstance(qid, (str, int)) or not isinstance(text, str):
            raise InputError("expected '_id' and 'text'", where=where(folder / "queries.jsonl", number))
        texts[str(qid)] = text
    unknown = [q for q in qrels if q not in texts]
    if unknown:
        raise InputError(f"{len(unknown)} judged quer(y/ies) missing from queries.jsonl, e.g. {unknown[0]!r}",
                         where=str(folder / "queries.jsonl"))
    queries = [GoldenQuery(qid, texts[qid], qrels[qid], (), {"split": split}) for qid in texts if qid in qrels]
    golden = GoldenSet.from_queries(queries, source=str(folder))
    if output is not None:
        from ragauge.formats.golden import write_golden

        write_golden(golden, output)
    return golden
