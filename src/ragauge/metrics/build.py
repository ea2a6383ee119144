"""Join a ranked run with judgements into :class:`Rankings`, vectorized (no per-hit Python loop)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from ragauge.data.arrow import as_string_array, hash64, ragged_arange, string_column
from ragauge.errors import InputError
from ragauge.metrics.rankings import Rankings

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.data.grouping import Grouping


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


def build_rankings(
    query_ids: Sequence[str],
    run_qid: "pa.Array | Grouping",
    run_doc: "pa.Array",
    judgements: Judgements,
    *,
    rel_level: float = 1.0,
    depth: int | None = None,
    duplicates: Literal["error", "first"] = "first",
    source: str | None = None,
    keep_top: int = 0,
) -> tuple[Rankings, BuildInfo]:
    """Rankings for ``query_ids`` (in that order) from a run's rows.

    ``run_qid`` is either the query id of every row, rows already in rank order per query (rows
    of one query need not be contiguous; their relative order is the ranking), or a
    :class:`Grouping` that says which rows form each query's ranking. ``depth`` keeps each
    query's first ``depth`` rows before duplicate handling. Duplicate documents within a query
    are folded into their first occurrence (``"first"``) or are an error. Queries absent from
    the run get an empty ranking; judgements of other queries are ignored. ``keep_top`` records
    the source rows of each query's first documents (for reports).
    """
    from ragauge.data.grouping import Grouping, group_rows

    grouping = run_qid if isinstance(run_qid, Grouping) else group_rows(run_qid)
    run_doc = string_column(run_doc)
    where_q = {q: i for i, q in enumerate(grouping.ids)}
    nq = len(query_ids)
    sel = np.array([where_q.get(q, -1) for q in query_ids], dtype=np.int64)
    present = sel >= 0
    q_starts = np.where(present, grouping.starts[np.maximum(sel, 0)] if len(grouping.starts) else 0, 0)
    raw_lengths = np.where(present, grouping.lengths[np.maximum(sel, 0)] if len(grouping.lengths) else 0, 0)
    raw_lengths = raw_lengths.astype(np.int64)
    q_lengths = raw_lengths if depth is None else np.minimum(raw_lengths, depth)

    rows = grouping.rows(q_starts, q_lengths)  # run rows of every evaluated query, ranked
    keep, folded = _fold_duplicates(run_doc, rows, q_lengths, duplicates, query_ids, source)
    if keep is not None:
        rows = rows[keep]
        q_lengths = q_lengths - folded
    starts_kept = np.concatenate([[0], np.cumsum(q_lengths)]).astype(np.int64)
    qidx = np.repeat(np.arange(nq, dtype=np.int64), q_lengths)

    entries, grades, num_rel, ideal_offsets, ideal_gains = _judge(query_ids, run_doc, rows, qidx, judgements,
                                                                  rel_level)
    eq = qidx[entries]
    pos = entries - starts_kept[eq]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(eq, minlength=nq))]).astype(np.int64)
    rankings = Rankings(offsets, pos, grades, q_lengths.astype(np.int64), num_rel, ideal_offsets, ideal_gains,
                        rel_level)
    top_lengths = np.minimum(q_lengths, keep_top)
    top_rows = rows[ragged_arange(starts_kept[:-1], top_lengths)]
    top_offsets = np.concatenate([[0], np.cumsum(top_lengths)]).astype(np.int64)
    return rankings, BuildInfo(present, raw_lengths, folded, tuple(grouping.ids), top_offsets, top_rows)


def _fold_duplicates(
    run_doc: "pa.Array", rows: np.ndarray, lengths: np.ndarray, mode: str, query_ids: Sequence[str],
    source: str | None,
) -> tuple[np.ndarray | None, np.ndarray]:
    """Which of ``rows`` (ranked, ``lengths`` per query) to keep, and how many were folded per
    query; None when no query holds a document twice."""
    import pyarrow as pa
    import pyarrow.compute as pc

    nq = len(lengths)
    folded = np.zeros(nq, dtype=np.int64)
    if len(rows) < 2:
        return None, folded
    fp = hash64(run_doc)
    if len(rows) != len(fp) or not _is_identity(rows):
        fp = fp[rows]
    pos, label = shared_in_segments(fp, lengths)
    if len(pos) == 0:
        return None, folded
    docs = run_doc.take(pa.array(rows[pos]))
    group_start = np.flatnonzero(np.concatenate([[True], label[1:] != label[:-1]]))
    head = np.repeat(group_start, np.diff(np.append(group_start, len(pos))))
    same = pc.equal(docs, docs.take(pa.array(head))).to_numpy(zero_copy_only=False)
    is_later = same & (np.arange(len(pos)) != head)
    for g in np.unique(label[~same]):  # fingerprints that collided: compare exactly
        members = np.flatnonzero(label == g)
        seen: set[str] = set()
        for m, doc in zip(members.tolist(), docs.take(pa.array(members)).to_pylist()):
            is_later[m] = doc in seen
            seen.add(doc)
    later = np.sort(pos[is_later])
    if len(later) == 0:
        return None, folded
    qidx = np.repeat(np.arange(nq, dtype=np.int64), lengths)
    if mode == "error":
        first = int(later[0])
        raise InputError(
            f"query {query_ids[qidx[first]]!r} retrieves document {run_doc[int(rows[first])].as_py()!r} more than "
            "once", where=source, hint="each document may appear once per query in a TREC run (as trec_eval requires)",
        )
    keep = np.ones(len(rows), dtype=bool)
    keep[later] = False
    np.add.at(folded, qidx[later], 1)
    return keep, folded


def _is_identity(rows: np.ndarray) -> bool:
    return bool(rows[0] == 0 and rows[-1] == len(rows) - 1 and np.all(np.diff(rows) == 1))


def shared_in_segments(values: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions in ``values`` (consecutive segments of ``lengths``) whose value occurs more
    than once within its segment, with a label per (segment, value); sorted by label, then by
    position.

    Each segment is sorted on its own (segments of similar length padded into one 2-D array),
    which is several times faster than one sort of everything when segments are short.
    """
    values = np.asarray(values, dtype=np.uint64)
    lengths = np.asarray(lengths, dtype=np.int64)
    seg_start = np.cumsum(lengths) - lengths
    width_class = np.zeros(len(lengths), dtype=np.int64)
    many = lengths >= 2
    width_class[many] = np.ceil(np.log2(lengths[many])).astype(np.int64)
    pad = np.uint64(np.iinfo(np.uint64).max)
    out_pos: list[np.ndarray] = []
    out_label: list[np.ndarray] = []
    next_label = 0
    for c in np.unique(width_class[many]).tolist():
        segs = np.flatnonzero(many & (width_class == c))
        width, seg_len = 1 << c, lengths[segs]
        block = np.full((len(segs), width), pad, dtype=np.uint64)
        block[np.repeat(np.arange(len(segs)), seg_len), ragged_arange(np.zeros_like(seg_len), seg_len)] = \
            values[ragged_arange(seg_start[segs], seg_len)]
        valid = np.arange(1, width) < seg_len[:, None]
        ordered = np.sort(block, axis=1)
        hit = np.flatnonzero(((ordered[:, 1:] == ordered[:, :-1]) & valid).any(axis=1))
        if len(hit) == 0:
            continue
        block, valid = block[hit], valid[hit]
        perm = np.argsort(block, axis=1, kind="stable")  # real values precede equal padding
        ordered = np.take_along_axis(block, perm, axis=1)
        equal = (ordered[:, 1:] == ordered[:, :-1]) & valid
        member = np.zeros(ordered.shape, dtype=bool)
        member[:, 1:] |= equal
        member[:, :-1] |= equal
        r, col = np.nonzero(member)
        value = ordered[r, col]
        new = np.concatenate([[True], (r[1:] != r[:-1]) | (value[1:] != value[:-1])])
        out_label.append(next_label + np.cumsum(new) - 1)
        out_pos.append(seg_start[segs[hit[r]]] + perm[r, col])
        next_label += int(new.sum())
    if not out_pos:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(out_pos), np.concatenate(out_label)


def _codes(values: "pa.Array", vocab: "pa.Array") -> np.ndarray:
    """Index of each value in ``vocab``, -1 when absent."""
    import pyarrow.compute as pc

    codes = pc.fill_null(pc.index_in(values, value_set=vocab), -1).to_numpy(zero_copy_only=False)
    return codes if codes.dtype in (np.int32, np.int64) else codes.astype(np.int64)


def _judge(
    query_ids: Sequence[str], run_doc: "pa.Array", rows: np.ndarray, qidx: np.ndarray, judgements: Judgements,
    rel_level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Judged entries (indices into ``rows``, in order) with their grades, plus per-query counts
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
    if len(rows) and len(jkey):
        code = _codes(run_doc, vocab)  # per run row, in file order
        judged = np.flatnonzero(code >= 0)
        where = np.full(len(run_doc), -1, dtype=np.int64)
        where[rows] = np.arange(len(rows), dtype=np.int64)
        cand = np.sort(where[judged])
        cand = cand[cand >= 0]  # entries whose document is judged for some query
        rkey = qidx[cand] * v + code[rows[cand]]
        at = np.minimum(np.searchsorted(jkey, rkey), len(jkey) - 1)
        hit = jkey[at] == rkey
        entries, grades = cand[hit], kgrade[at[hit]]

    num_rel = np.bincount(jq[jgrade >= rel_level], minlength=nq).astype(np.int64)
    pos = jgrade > 0
    iorder = np.lexsort((-jgrade[pos], jq[pos]))
    ideal_gains = jgrade[pos][iorder]
    ideal_offsets = np.concatenate([[0], np.cumsum(np.bincount(jq[pos], minlength=nq))]).astype(np.int64)
    return entries, grades, num_rel, ideal_offsets, ideal_gains
