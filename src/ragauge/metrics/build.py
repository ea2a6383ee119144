"""Join a ranked run with judgements into :class:`Rankings`, vectorized (no per-hit Python loop)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from ragauge.core.arrow import (
    as_string_array,
    find_sorted,
    fingerprint_slots,
    from_numpy,
    hash64,
    ragged_arange,
    string_column,
    strings,
    take,
    to_numpy,
)
from ragauge.core.background import start
from ragauge.errors import DuplicateDocument as DuplicateDocument  # it lives in ragauge.errors
from ragauge.metrics.duplicates import repeated_rows
from ragauge.metrics.rankings import Rankings, popcount

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.core.grouping import Grouping

PARALLEL_ROWS = 1 << 20  # from this many hits on, duplicate detection runs in a second thread
SPREAD = 64  # slots per judged document in _judged_rows' table: about 1 in SPREAD other hits is a candidate
MAX_TABLE_BITS = 24  # at most 16M slots (16 MB)


@dataclass(frozen=True)
class Judgements:
    """Columnar judgements: one row per (query id, document id) with a numeric grade, and for the
    questions that need evidence groups, the groups each document provides (bit i: group i; None
    when no question has groups)."""

    qid: pa.Array
    docno: pa.Array
    grade: np.ndarray
    masks: np.ndarray | None = None


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
    run_qid: pa.Array | Grouping,
    run_doc: pa.Array,
    judgements: Judgements,
    *,
    rel_level: float = 1.0,
    depth: int | None = None,
    duplicates: Literal["error", "first"] = "first",
    source: str | None = None,
    keep_top: int = 0,
    fingerprints: Callable[[], np.ndarray] | None = None,
    run_call: np.ndarray | None = None,
    num_calls: np.ndarray | None = None,
) -> tuple[Rankings, BuildInfo]:
    """Rankings for ``query_ids`` (in that order) from a run's rows.

    ``run_qid`` is either the query id of every row, rows already in rank order per query (rows
    of one query need not be contiguous; their relative order is the ranking), or a
    :class:`Grouping` that says which rows form each query's ranking. ``depth`` keeps each
    query's first ``depth`` rows before duplicate handling. Duplicate documents within a query
    are folded into their first occurrence (``"first"``) or are an error. Queries absent from
    the run get an empty ranking; judgements of other queries are ignored. ``keep_top`` records
    the source rows of each query's first documents (for reports). ``fingerprints`` gives
    ``hash64(run_doc)`` when the caller computes it already (say, in a thread of its own).
    A multi-call run gives ``run_call`` (each row's 0-based call in its question's trajectory) and
    ``num_calls`` (per query in ``query_ids``): each ranked document keeps the call of its first
    occurrence (``Rankings.calls``).

    Work is on ranked positions: when the grouping keeps each query's rows in one block, the
    positions are the run's own rows and nothing of size "all hits" is copied.
    """
    from ragauge.core.grouping import Grouping, group_rows

    grouping = run_qid if isinstance(run_qid, Grouping) else group_rows(run_qid)
    run_doc = string_column(run_doc)
    where_q = {q: i for i, q in enumerate(grouping.ids)}
    nq = len(query_ids)
    sel = np.array([where_q.get(q, -1) for q in query_ids], dtype=np.int64)
    present = sel >= 0
    g_starts = np.where(present, grouping.starts[np.maximum(sel, 0)] if len(grouping.starts) else 0, 0)
    raw_lengths = np.where(present, grouping.lengths[np.maximum(sel, 0)] if len(grouping.lengths) else 0, 0)
    raw_lengths = raw_lengths.astype(np.int64)
    lengths = raw_lengths if depth is None else np.minimum(raw_lengths, depth)

    # Positions: each query's ranking is positions seg[i] .. seg[i] + lengths[i] - 1, and
    # base[p] is the run row at position p (None: position p is row p, but for the few rows that
    # ``moves`` puts elsewhere in their query's block: a TREC run's ties written out of order).
    # Duplicates are then found among rows, in file order: a query's occurrences of one document
    # are in rank order there too (moves only reorder rows of one score, by docno), except for
    # occurrences that share their score, which are the same hit twice, so either may stay.
    direct = grouping.in_blocks and (grouping.moves is None or depth is None)
    if direct:
        base, seg = None, g_starts.astype(np.int64)
    else:
        base = grouping.rows(g_starts, lengths)
        seg = np.cumsum(lengths) - lengths
    segments = _Segments(seg, lengths)

    keys = _JudgementKeys.build(query_ids, judgements, rel_level)
    per_row = hash64(run_doc) if fingerprints is None else fingerprints()  # both steps below read them

    def find_repeats() -> np.ndarray:
        return repeated_rows(run_doc, per_row if base is None else per_row[base], seg, lengths, rows=base)

    # Duplicate detection and the judgement join are independent and each a few passes over
    # every hit; numpy and Arrow release the GIL, so on a large run they share the cores.
    repeats = start(find_repeats, background=len(run_doc) >= PARALLEL_ROWS)
    judged = _judged_positions(run_doc, per_row, keys, grouping, base, segments)
    removed = repeats()

    folded = np.zeros(nq, dtype=np.int64)
    if len(removed):
        removed_q = segments.of(removed)
        if duplicates == "error":  # name the first query (evaluation order), its first repeat in rank order
            first_q = int(removed_q.min())
            repeats = removed[removed_q == first_q]
            ranked = repeats if base is not None else grouping.positions_of(repeats)
            at = int(repeats[np.argmin(ranked)])
            row = at if base is None else int(base[at])
            raise DuplicateDocument(
                f"query {query_ids[first_q]!r} retrieves document {run_doc[row].as_py()!r} more than once",
                query=query_ids[first_q], where=source,
                hint="each document may appear once per query in a TREC run (as trec_eval requires)",
            )
        folded = np.bincount(removed_q, minlength=nq).astype(np.int64)
        if base is None and grouping.moves is not None:  # rows found in file order, as ranked positions
            removed = np.sort(grouping.positions_of(removed))
    kept = lengths - folded
    qi, rank, grades, masks, rows = _graded_ranks(judged, keys, segments, removed)
    by_rank = np.lexsort((rank, qi))
    qi, rank, grades = qi[by_rank], rank[by_rank], grades[by_rank]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(qi, minlength=nq))]).astype(np.int64)
    calls = None if run_call is None else np.asarray(run_call, dtype=np.int64)[rows[by_rank]]
    rankings = Rankings(offsets, rank, grades, kept, keys.num_rel, keys.ideal_offsets, keys.ideal_gains, rel_level,
                        masks=None if masks is None else masks[by_rank], num_groups=keys.num_groups,
                        calls=calls, num_calls=None if num_calls is None else np.asarray(num_calls, dtype=np.int64))

    top_positions, top_offsets = _top(segments, kept, folded, removed, keep_top)
    top_rows = base[top_positions] if base is not None else grouping.rows_at(top_positions)
    return rankings, BuildInfo(present, raw_lengths, folded, tuple(grouping.ids), top_offsets, top_rows)


@dataclass(frozen=True)
class _Segments:
    """Query ``i`` holds positions ``start[i] .. start[i] + length[i] - 1`` (any order of queries)."""

    start: np.ndarray
    length: np.ndarray

    def of(self, positions: np.ndarray) -> np.ndarray:
        """The query holding each position; -1 for positions outside every query."""
        if len(self.start) == 0:
            return np.full(len(positions), -1, dtype=np.int64)
        by_start = np.lexsort((self.length, self.start))  # empty segments before a same-start one
        starts = self.start[by_start]
        at = np.maximum(np.searchsorted(starts, positions, side="right") - 1, 0)
        inside = (positions >= starts[at]) & (positions < starts[at] + self.length[by_start][at])
        return np.where(inside, by_start[at], -1)


@dataclass(frozen=True)
class _JudgementKeys:
    """Judgements of the evaluated queries as sorted integer keys ``query * v + doc code``."""

    vocab: pa.Array
    keys: np.ndarray
    grades: np.ndarray
    num_rel: np.ndarray
    ideal_offsets: np.ndarray
    ideal_gains: np.ndarray
    masks: np.ndarray | None = None
    num_groups: np.ndarray | None = None

    @classmethod
    def build(cls, query_ids: Sequence[str], judgements: Judgements, rel_level: float) -> _JudgementKeys:
        from ragauge.core import compute as pc

        nq = len(query_ids)
        jq_all = _codes(as_string_array(judgements.qid), strings(list(query_ids)))
        mine = jq_all >= 0
        jq = jq_all[mine].astype(np.int64)
        jdoc = pc.filter(as_string_array(judgements.docno), from_numpy(mine))
        jgrade = np.asarray(judgements.grade, dtype=np.float64)[mine]
        vocab = pc.unique(jdoc)
        key = jq * max(len(vocab), 1) + _codes(jdoc, vocab)
        order = np.argsort(key, kind="stable")
        num_rel = np.bincount(jq[jgrade >= rel_level], minlength=nq).astype(np.int64)
        pos = jgrade > 0
        iorder = np.lexsort((-jgrade[pos], jq[pos]))
        ideal_offsets = np.concatenate([[0], np.cumsum(np.bincount(jq[pos], minlength=nq))]).astype(np.int64)
        masks = num_groups = None
        if judgements.masks is not None:
            jmask = np.asarray(judgements.masks, dtype=np.uint64)[mine]
            masks = jmask[order]
            every = np.zeros(nq, dtype=np.uint64)
            np.bitwise_or.at(every, jq, jmask)
            num_groups = popcount(every)
        return cls(vocab, key[order], jgrade[order], num_rel, ideal_offsets, jgrade[pos][iorder], masks, num_groups)

    def lookup(self, qi: np.ndarray, code: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Which (query, doc code) pairs are judged, their grades and their evidence masks."""
        if len(self.keys) == 0 or len(qi) == 0:
            empty = None if self.masks is None else np.zeros(0, dtype=np.uint64)
            return np.zeros(len(qi), dtype=bool), np.zeros(0, dtype=np.float64), empty
        at, hit = find_sorted(self.keys, qi * max(len(self.vocab), 1) + code)
        return hit, self.grades[at[hit]], None if self.masks is None else self.masks[at[hit]]


@dataclass(frozen=True)
class _Judged:
    """Ranked hits whose document is judged for some query: position, query, doc code, run row."""

    positions: np.ndarray
    qi: np.ndarray
    code: np.ndarray
    rows: np.ndarray


def _judged_positions(
    run_doc: pa.Array | pa.ChunkedArray, fingerprints: np.ndarray, keys: _JudgementKeys, grouping: Grouping,
    base: np.ndarray | None, segments: _Segments,
) -> _Judged:
    empty = np.zeros(0, dtype=np.int64)
    if len(keys.keys) == 0 or len(run_doc) == 0:
        return _Judged(empty, empty, empty, empty)
    rows, code = _judged_rows(run_doc, fingerprints, keys.vocab)
    if base is None:
        positions = grouping.positions_of(rows)
    else:
        where = np.full(len(run_doc), -1, dtype=np.int64)
        where[base] = np.arange(len(base), dtype=np.int64)
        positions = where[rows]
    qi = segments.of(positions)
    inside = qi >= 0
    return _Judged(positions[inside], qi[inside], code[inside], rows[inside])


def _judged_rows(run_doc: pa.Array | pa.ChunkedArray, fingerprints: np.ndarray,
                 vocab: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The rows whose document is in ``vocab`` (ascending), and its index there.

    A few thousand judged documents against millions of hits: a bit per slot of a table at least
    ``SPREAD`` times larger than ``vocab``, set for each judged document's fingerprint, leaves as
    candidates the hits whose fingerprint falls on a set slot (the judged ones and about one in
    ``SPREAD`` of the others); only those are looked up by their text. Exact (fingerprints only
    choose candidates), and about four times cheaper than looking every hit's text up: 27 against
    105 ms over the 7M hits of the MS MARCO-scale benchmark."""
    if len(vocab) * SPREAD > len(run_doc):  # a table would not filter much: look every hit up
        code = _codes(run_doc, vocab)
        rows = np.flatnonzero(code >= 0)
        return rows, code[rows].astype(np.int64)
    bits = min(MAX_TABLE_BITS, max(12, (len(vocab) * SPREAD).bit_length()))
    table = np.zeros(1 << bits, dtype=np.bool_)
    table[fingerprint_slots(hash64(vocab), bits)] = True
    candidates = np.flatnonzero(np.take(table, fingerprint_slots(fingerprints, bits)))
    code = _codes(take(run_doc, candidates), vocab)
    found = code >= 0
    return candidates[found], code[found].astype(np.int64)



def _graded_ranks(
    judged: _Judged, keys: _JudgementKeys, segments: _Segments, removed: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """Query index, 0-based rank (after folding ``removed``), grade, evidence mask and run row of
    every judged ranked document."""
    positions, qi, code, rows = judged.positions, judged.qi, judged.code, judged.rows
    rank = positions - segments.start[qi]
    if len(removed):
        before, dropped = find_sorted(removed, positions)
        rank = rank - (before - np.searchsorted(removed, segments.start[qi]))
        qi, rank, code, rows = qi[~dropped], rank[~dropped], code[~dropped], rows[~dropped]
    hit, grades, masks = keys.lookup(qi, code)
    return qi[hit], rank[hit], grades, masks, rows[hit]


def _top(
    segments: _Segments, kept: np.ndarray, folded: np.ndarray, removed: np.ndarray, keep_top: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Positions of each query's first ``keep_top`` documents (after folding), as CSR."""
    nq = len(kept)
    span = np.minimum(segments.length, keep_top + folded)
    positions = ragged_arange(segments.start, span)
    owner = np.repeat(np.arange(nq, dtype=np.int64), span)
    if len(removed) and len(positions):
        live = ~find_sorted(removed, positions)[1]
        positions, owner = positions[live], owner[live]
    counts = np.minimum(kept, keep_top)
    first = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=nq))])[:-1]
    within = np.arange(len(positions)) - first[owner] < counts[owner]
    return positions[within], np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _codes(values: pa.Array | pa.ChunkedArray, vocab: pa.Array) -> np.ndarray:
    """Index of each value in ``vocab``, -1 when absent."""
    from ragauge.core import compute as pc

    codes = to_numpy(pc.index_in(values, value_set=vocab), null=-1)
    return codes if codes.dtype in (np.int32, np.int64) else codes.astype(np.int64)
