"""Join a ranked run with judgements into :class:`Rankings`, vectorized (no per-hit Python loop)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from ragauge.data.arrow import as_string_array, group_starts, hash64, ragged_arange
from ragauge.errors import InputError
from ragauge.metrics.rankings import Rankings

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class Judgements:
    """Columnar judgements: one row per (query id, document id) with a numeric grade."""

    qid: "pa.Array"
    docno: "pa.Array"
    grade: np.ndarray


@dataclass(frozen=True)
class BuildInfo:
    """What happened while building: which queries had rows, what was folded or cut."""

    present: np.ndarray          # bool per evaluated query: the run has an entry for it
    raw_lengths: np.ndarray      # hits per query before the depth cut and deduplication
    folded: np.ndarray           # duplicate documents removed per query
    run_queries: tuple[str, ...]  # every query id that has rows in the run, first-seen order
    top_offsets: np.ndarray      # CSR over top_rows, per evaluated query
    top_rows: np.ndarray         # source-run rows of each query's first keep_top ranked documents


def _groups(run_qid: "pa.Array") -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
    """Contiguous groups of equal query ids: starts, lengths, ids; plus a row order if the
    rows had to be regrouped (a query id appearing in several separate blocks)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(run_qid)
    starts = group_starts(run_qid)
    ids = run_qid.take(pa.array(starts)).to_pylist() if n else []
    order = None
    if len(set(ids)) != len(ids):
        uniq = list(dict.fromkeys(ids))
        codes = pc.index_in(run_qid, value_set=pa.array(uniq, pa.string())).to_numpy(zero_copy_only=False)
        order = np.argsort(codes, kind="stable")
        sorted_codes = codes[order]
        starts = np.concatenate([[0], np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1]).astype(np.int64)
        ids = [uniq[c] for c in sorted_codes[starts]]
    lengths = np.diff(np.append(starts, n)).astype(np.int64)
    return starts, lengths, ids, order


def build_rankings(
    query_ids: Sequence[str],
    run_qid: "pa.Array",
    run_doc: "pa.Array",
    judgements: Judgements,
    *,
    rel_level: float = 1.0,
    depth: int | None = None,
    duplicates: Literal["error", "first"] = "first",
    source: str | None = None,
    keep_top: int = 0,
) -> tuple[Rankings, BuildInfo]:
    """Rankings for ``query_ids`` (in that order) from run rows already in rank order per query.

    Rows of one query need not be contiguous; their relative order is the ranking. ``depth``
    keeps each query's first ``depth`` rows before duplicate handling. Duplicate documents
    within a query are folded into their first occurrence (``"first"``) or are an error.
    Queries absent from the run get an empty ranking; judgements of other queries are ignored.
    ``keep_top`` records the source rows of each query's first documents (for reports).
    """
    import pyarrow as pa

    run_qid, run_doc = as_string_array(run_qid), as_string_array(run_doc)
    starts, lengths, ids, order = _groups(run_qid)
    where_q = {q: i for i, q in enumerate(ids)}
    nq = len(query_ids)
    sel = np.array([where_q.get(q, -1) for q in query_ids], dtype=np.int64)
    present = sel >= 0
    q_starts = np.where(present, starts[np.maximum(sel, 0)] if len(starts) else 0, 0)
    raw_lengths = np.where(present, lengths[np.maximum(sel, 0)] if len(lengths) else 0, 0).astype(np.int64)
    q_lengths = raw_lengths if depth is None else np.minimum(raw_lengths, depth)

    idx = ragged_arange(q_starts, q_lengths)
    rows = order[idx] if order is not None else idx
    identity = len(rows) == len(run_doc) and (len(rows) == 0 or (rows[0] == 0 and np.all(np.diff(rows) == 1)))
    docs = run_doc if identity else run_doc.take(pa.array(rows))
    qidx = np.repeat(np.arange(nq, dtype=np.int32 if nq < 2**31 else np.int64), q_lengths)

    keep, folded = _fold_duplicates(docs, qidx, nq, duplicates, query_ids, source)
    if keep is not None:
        rows, docs, qidx = rows[keep], docs.filter(pa.array(keep)), qidx[keep]
        q_lengths = q_lengths - folded
    starts_kept = np.concatenate([[0], np.cumsum(q_lengths)]).astype(np.int64)

    entries, grades, num_rel, ideal_offsets, ideal_gains = _judge(query_ids, docs, qidx, judgements, rel_level)
    eq = qidx[entries]
    pos = entries - starts_kept[eq]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(eq, minlength=nq))]).astype(np.int64)
    rankings = Rankings(offsets, pos, grades, q_lengths.astype(np.int64), num_rel, ideal_offsets, ideal_gains,
                        rel_level)
    top_lengths = np.minimum(q_lengths, keep_top)
    top_rows = rows[ragged_arange(starts_kept[:-1], top_lengths)]
    top_offsets = np.concatenate([[0], np.cumsum(top_lengths)]).astype(np.int64)
    return rankings, BuildInfo(present, raw_lengths, folded, tuple(ids), top_offsets, top_rows)


def _fold_duplicates(
    docs: "pa.Array", qidx: np.ndarray, nq: int, mode: str, query_ids: Sequence[str], source: str | None,
) -> tuple[np.ndarray | None, np.ndarray]:
    import pyarrow as pa

    folded = np.zeros(nq, dtype=np.int64)
    if len(docs) < 2:
        return None, folded
    key = hash64(docs)
    with np.errstate(over="ignore"):
        key ^= qidx.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    sk = np.sort(key)
    any_equal = bool(np.any(sk[1:] == sk[:-1]))
    del sk
    if not any_equal:
        return None, folded
    order = np.argsort(key, kind="stable")
    sk = key[order]
    run_start = np.concatenate([[True], sk[1:] != sk[:-1]])
    in_dup_run = ~run_start | np.concatenate([sk[1:] == sk[:-1], [False]])
    cand = order[in_dup_run]  # positions whose fingerprint is shared within the query
    seen: set[tuple[int, str]] = set()
    later_list = []
    for p, doc in zip(np.sort(cand).tolist(), docs.take(pa.array(np.sort(cand))).to_pylist()):
        k = (int(qidx[p]), doc)
        if k in seen:
            later_list.append(p)
        seen.add(k)
    later = np.asarray(later_list, dtype=np.int64)
    if len(later) == 0:
        return None, folded
    if mode == "error":
        first = int(later.min())
        raise InputError(
            f"query {query_ids[qidx[first]]!r} retrieves document {docs[first].as_py()!r} more than once",
            where=source, hint="each document may appear once per query in a TREC run (as trec_eval requires)",
        )
    keep = np.ones(len(docs), dtype=bool)
    keep[later] = False
    np.add.at(folded, qidx[later], 1)
    return keep, folded


def _codes(values: "pa.Array", vocab: "pa.Array") -> np.ndarray:
    """Index of each value in ``vocab``, -1 when absent."""
    import pyarrow.compute as pc

    codes = pc.fill_null(pc.index_in(values, value_set=vocab), -1).to_numpy(zero_copy_only=False)
    return codes if codes.dtype in (np.int32, np.int64) else codes.astype(np.int64)


def _judge(
    query_ids: Sequence[str], docs: "pa.Array", qidx: np.ndarray, judgements: Judgements, rel_level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Judged rows (indices into ``docs``, in order) with their grades, plus per-query counts
    and ideal gains."""
    import pyarrow as pa
    import pyarrow.compute as pc

    nq = len(query_ids)
    jq_all = _codes(as_string_array(judgements.qid), pa.array(list(query_ids), pa.string()))
    mine = jq_all >= 0
    jq = jq_all[mine].astype(np.int64)
    jdoc = as_string_array(judgements.docno).filter(pa.array(mine))
    jgrade = np.asarray(judgements.grade, dtype=np.float64)[mine]

    vocab = pc.unique(jdoc)
    v = max(len(vocab), 1)
    jd = _codes(jdoc, vocab)
    jkey = jq * v + jd
    korder = np.argsort(jkey, kind="stable")
    jkey, kgrade = jkey[korder], jgrade[korder]

    entries = np.zeros(0, dtype=np.int64)
    grades = np.zeros(0, dtype=np.float64)
    if len(docs) and len(jkey):
        rd = _codes(docs, vocab)
        cand = np.flatnonzero(rd >= 0)  # rows whose document is judged for some query
        rkey = qidx[cand].astype(np.int64) * v + rd[cand]
        at = np.minimum(np.searchsorted(jkey, rkey), len(jkey) - 1)
        hit = jkey[at] == rkey
        entries, grades = cand[hit], kgrade[at[hit]]

    num_rel = np.bincount(jq[jgrade >= rel_level], minlength=nq).astype(np.int64)
    pos = jgrade > 0
    iorder = np.lexsort((-jgrade[pos], jq[pos]))
    ideal_gains = jgrade[pos][iorder]
    ideal_offsets = np.concatenate([[0], np.cumsum(np.bincount(jq[pos], minlength=nq))]).astype(np.int64)
    return entries, grades, num_rel, ideal_offsets, ideal_gains
