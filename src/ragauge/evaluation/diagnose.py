"""Why a result would be all zeros: refuse what cannot be scored, explain what scores nothing.

``refuse_unscorable`` raises before scoring when the run cannot describe the golden set at all
(an empty run, no shared question id, every retriever call failed). ``explain_zeros`` returns
loud warnings when a scored run retrieved no relevant document anywhere and the ids show why
(section labels against a document index, chunk ids that need a rule, a rule that matched
nothing, ids from another scheme).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ragauge.core.notes import LOUD
from ragauge.data.golden import GoldenSet
from ragauge.data.ids import SECTION_SEP, chunk_parent, is_chunk_id, section_parent
from ragauge.data.relevance import is_relevant
from ragauge.errors import InputError
from ragauge.evaluation.spans import OUTSIDE

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.data.run import Run



def _examples(ids: Iterable[str], n: int = 3) -> str:
    shown = []
    for i in ids:
        shown.append(repr(i))
        if len(shown) == n:
            break
    return ", ".join(shown)


def refuse_unscorable(golden: GoldenSet, run: Run) -> None:
    """InputError when scoring ``run`` against ``golden`` could only give zeros: the run holds no
    question, shares no question id with the golden set, or every call for the golden set's
    questions failed."""
    where = run.source
    if not run.queries:
        raise InputError("the run holds no questions, so every metric would be 0", where=where,
                         hint="check that the retriever wrote its answers (ragauge run ... -o RUN), "
                              "or that this is the right file")
    ids = golden.by_id
    shared = [q for q in run.queries if q in ids]
    if not shared:
        raise InputError(
            f"none of the run's {len(run.queries)} question id(s) is in the golden set "
            f"(run: {_examples(run.queries)}; golden set: {_examples(ids)})", where=where,
            hint="score the run against the golden set it was made from; ids must match exactly")
    failed = [q for q in shared if q in run.errors]
    if len(failed) == len(shared):
        first = run.errors[failed[0]]
        raise InputError(
            f"every retriever call failed ({len(failed)} of {len(shared)} question(s)); first error: {first}",
            where=where, hint="check that the retriever is up and reachable, then run again")


def lookalike_warnings(golden: GoldenSet, docs: pa.Array) -> list[str]:
    """A warning (``LOUD``) naming returned ids that differ from a labelled id only by invisible or
    look-alike characters (``data.ids.lookalike_key``): exact matching does not count them, so the
    number is right for the ids as written but the labels or the index are likely mistyped. Only
    ids with non-ASCII characters are examined (an ASCII id has no such look-alike)."""
    import pyarrow as pa

    from ragauge.core import compute as pc
    from ragauge.data.ids import lookalike_key

    labelled = {d for q in golden for d, g in q.relevant.items() if is_relevant(g)}
    if not labelled or len(docs) == docs.null_count:
        return []
    pairs: list[tuple[str, str]] = []
    odd = pc.invert(pc.string_is_ascii(docs))  # one pass; only the non-ASCII ids are looked at
    if pc.any(odd).as_py():
        by_key: dict[str, str] = {}
        for d in labelled:
            by_key.setdefault(lookalike_key(d), d)
        for r in pc.unique(pc.drop_null(pc.filter(docs, odd))).to_pylist():
            twin = by_key.get(lookalike_key(r))
            if twin is not None and twin != r and r not in labelled:
                pairs.append((r, twin))
    altered = {lookalike_key(d): d for d in labelled if not d.isascii() and lookalike_key(d) != d}
    if altered:  # a mistyped label (rare): is its plain form among the returned ids?
        keys = pa.array(list(altered))
        found = pc.is_in(keys, docs).to_pylist()
        pairs += [(k, altered[k]) for k, hit in zip(keys.to_pylist(), found) if hit]
    if not pairs:
        return []
    shown = ", ".join(f"{ascii(r)} returned, {ascii(d)} labelled" for r, d in sorted(pairs)[:3])
    return [f"{LOUD}{len(pairs)} returned id(s) differ from a labelled id only by invisible or look-alike characters "
            f"({shown}{' ...' if len(pairs) > 3 else ''}): they do not count as relevant; check the ids (ragauge "
            f"golden validate GOLDEN --corpus PATH lists them)"]


def explain_zeros(golden: GoldenSet, chunks: pa.Array | None, docs: pa.Array, *, any_relevant_retrieved: bool,
                  doc_id_sep: str | None, doc_id_pattern: str | None) -> list[str]:
    """Warnings (each starting with ``LOUD``) for a run that retrieved no relevant document for
    any answerable question, naming the detectable cause; [] when something relevant came back
    or there is nothing to explain. Also warns about chunk-looking golden ids and a
    ``--doc-id-sep`` found in no chunk id, which mislead whatever the numbers. ``chunks`` are the
    run's ids the separator applies to (None without one), ``docs`` the documents returned."""
    from ragauge.core import compute as pc

    warnings: list[str] = []
    judged = [d for q in golden for d, g in q.relevant.items() if is_relevant(g)]
    chunky = sorted({d for d in judged if is_chunk_id(d)})
    if chunky:
        warnings.append(f"{LOUD}{len(chunky)} relevant id(s) look like chunk ids ({_examples(chunky)}): judge at "
                        f"document or stable-section level; chunk ids change with every re-chunking")
    if doc_id_sep and chunks is not None and len(chunks) > chunks.null_count:
        if not pc.any(pc.match_substring(chunks, doc_id_sep)).as_py():
            warnings.append(f"{LOUD}--doc-id-sep {doc_id_sep!r} occurs in no chunk id (e.g. "
                            f"{_examples(pc.drop_null(pc.unique(chunks)).to_pylist()[:3])}), so chunk ids were used "
                            f"unchanged as document ids")
    if any_relevant_retrieved or not judged:
        return warnings
    returned = set(pc.drop_null(pc.unique(docs)).to_pylist())
    if not returned:
        warnings.append(f"{LOUD}the run returned no document for any question: every question is a miss")
        return warnings
    judged_set = set(judged)
    passages = sorted(d for d in returned if d.endswith(OUTSIDE) and d[:-len(OUTSIDE)] in judged_set)
    if passages:
        warnings.append(f"{LOUD}no retrieved chunk holds a labelled span, though {len(passages)} relevant document(s) "
                        f"came back (e.g. {_examples(passages)}): the documents are found, the passages that answer "
                        f"are not; see the wrong-passage pattern")
        return warnings
    sections = [d for d in judged_set if section_parent(d) in returned]
    if sections:
        warnings.append(
            f"{LOUD}no returned id equals a judged id, but {len(sections)}/{len(judged_set)} judged ids are sections "
            f"of returned documents (e.g. {_examples(sorted(sections))}): label at document level, or index sections")
        return warnings
    parents = {section_parent(d) or chunk_parent(d) for d in returned}
    covered = judged_set & parents
    if covered:
        warnings.append(
            f"{LOUD}no returned id equals a judged id, but returned ids look like sections or chunks of "
            f"{len(covered)}/{len(judged_set)} judged documents (e.g. {_examples(sorted(returned)[:3])}): map them "
            f"to documents with --doc-id-sep '{SECTION_SEP}' or --doc-id-pattern")
        return warnings
    rule = " after the doc-id rule" if (doc_id_sep or doc_id_pattern) else ""
    warnings.append(
        f"{LOUD}no relevant document was retrieved for any question: no returned id{rule} is a judged id "
        f"(returned: {_examples(sorted(returned))}; judged: {_examples(sorted(judged_set))}); check that the "
        f"run and the golden set use the same id scheme and the same index")
    return warnings


def no_answer_only(golden: Sequence[object], answerable: int) -> str | None:
    """The warning for a golden set with no answerable question (nothing can be averaged)."""
    if answerable or not golden:
        return None
    return (f"{LOUD}none of the {len(golden)} question(s) has a relevant document (all are no-answer "
            f"questions), so no metric can be averaged: the means are empty (n/a), not 0")
