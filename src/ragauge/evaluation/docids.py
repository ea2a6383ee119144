"""Map chunk hits to document ids: the hit's own doc_id, else the chunk id cut by a rule."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragauge.errors import InputError, flag

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.data.run import Run

_SEP_EXAMPLE = "'#'"  # the separator in the hint's example


def doc_id_rule(sep: str | None = None, pattern: str | None = None) -> str:
    """A human-readable statement of the chunk-to-document rule, for the metric contract."""
    if pattern:
        return f"doc id = first group of /{pattern}/ on the chunk id"
    if sep:
        return f"doc id = chunk id up to the first {sep!r}"
    return "doc id as given by each hit"


def docnos_are_chunks(run: Run, sep: str | None = None, pattern: str | None = None) -> bool:
    """Whether the run's document ids are read as chunk ids: a TREC run's docnos, when a rule maps
    chunk ids to documents."""
    return run.format == "trec" and bool(sep or pattern)


def chunk_column(run: Run, sep: str | None = None, pattern: str | None = None) -> pa.Array:
    """The chunk id in effect per hit row: the run's own, or the docnos :func:`docnos_are_chunks`
    says are chunk ids."""
    return run.doc_id if docnos_are_chunks(run, sep, pattern) else run.chunk_id


def resolve_doc_ids(run: Run, sep: str | None = None, pattern: str | None = None) -> pa.Array:
    """One document id per hit row.

    A hit's ``doc_id`` wins. Rows with only a chunk id (and, when a rule is given, the doc ids
    of a TREC run, whose docnos are then read as chunk ids) are mapped by ``sep`` (text before
    its first occurrence) or ``pattern`` (first capture group; a chunk id that does not match
    is an error). Without a rule, a row with no doc id is an error.
    """
    import pyarrow as pa

    from ragauge.core import compute as pc
    from ragauge.core.arrow import as_string_array, strings

    if sep and pattern:
        raise InputError(f"give either {flag('doc_id_sep')} or {flag('doc_id_pattern')}, not both")
    regex = None
    if pattern:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise InputError(f"invalid {flag('doc_id_pattern')}: {exc}") from None
        if regex.groups < 1:
            raise InputError(f"{flag('doc_id_pattern')} needs a capture group", hint=r"e.g. '^(.+?)#\d+$'")
    chunks = chunk_column(run, sep, pattern)
    docs = pa.nulls(len(run.doc_id), pa.string()) if docnos_are_chunks(run, sep, pattern) else run.doc_id
    missing = pc.is_null(docs)
    if not pc.any(missing).as_py():
        return docs
    if not (sep or pattern):
        first = int(pc.index(missing, True).as_py())
        qid = run.qid[first].as_py()
        raise InputError(
            f"hits of query {qid!r} have chunk ids but no doc_id", where=run.source,
            hint=f"pass {flag('doc_id_sep', _SEP_EXAMPLE)} or {flag('doc_id_pattern', 'REGEX')} to map chunk ids to "
                 "documents",
        )
    source = as_string_array(pc.filter(chunks, missing))  # one array: replace_with_mask takes no chunked values
    uniq = pc.unique(source).to_pylist()
    mapped: list[str] = []
    for chunk in uniq:
        if regex is None:
            mapped.append(chunk.split(sep or "", 1)[0])
            continue
        m = regex.search(chunk)
        if not m or not m.group(1):
            raise InputError(f"chunk id {chunk!r} does not match {flag('doc_id_pattern', repr(pattern))}",
                             where=run.source)
        mapped.append(m.group(1))
    codes = pc.index_in(source, value_set=strings(uniq))
    filled = pc.take(strings(mapped), codes)
    if isinstance(missing, pa.ChunkedArray):
        missing = missing.combine_chunks()
    return pc.replace_with_mask(as_string_array(docs), missing, filled)
