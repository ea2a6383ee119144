"""The engine's input: every query's judged ranked positions as flat arrays (CSR), built once.

Only judged positions are stored (a run of 7M hits with 7k judgements holds 7k entries): every
metric here depends on where the judged documents rank and on how long each list is, never on
which unjudged document sits where.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True, eq=False)
class Rankings:
    """Judged positions of ``n`` ranked lists.

    Entries ``offsets[q]:offsets[q+1]`` belong to query ``q``, in rank order: ``pos`` is each
    entry's 0-based rank in the (deduplicated, cut) list and ``grades`` its judged grade.
    ``lengths`` is each list's length (judged or not). ``ideal_offsets`` / ``ideal_gains`` hold
    each query's positive judged grades sorted descending (the ideal ranking for nDCG).
    ``num_rel`` counts judged documents with grade >= ``rel_level``, retrieved or not.
    ``masks`` (per entry) and ``num_groups`` (per query) describe the questions that need evidence
    groups: bit i of an entry's mask says its document provides group i, and ``num_groups`` is 0
    for a plain question; both None when no question has groups.
    ``calls`` (per entry) is the 0-based call of a multi-call trajectory that first returned the
    document, and ``num_calls`` (per query) the calls of each trajectory; both None when every
    question is one call (``metrics.trajectory``).
    """

    offsets: np.ndarray
    pos: np.ndarray
    grades: np.ndarray
    lengths: np.ndarray
    num_rel: np.ndarray
    ideal_offsets: np.ndarray
    ideal_gains: np.ndarray
    rel_level: float = 1.0
    masks: np.ndarray | None = None
    num_groups: np.ndarray | None = None
    calls: np.ndarray | None = None
    num_calls: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.offsets) - 1

    @cached_property
    def qidx(self) -> np.ndarray:
        """Query index of every entry."""
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.offsets))

    @cached_property
    def is_rel(self) -> np.ndarray:
        """Entry is a relevant document (judged grade >= rel_level)."""
        return self.grades >= self.rel_level

    @cached_property
    def gains(self) -> np.ndarray:
        """nDCG gain of every entry: the judged grade when positive, else 0."""
        return np.asarray(np.maximum(self.grades, 0.0), dtype=np.float64)

    @cached_property
    def discount(self) -> np.ndarray:
        """1 / log2(rank + 1) for every entry (rank 1-based)."""
        return 1.0 / np.log2(self.pos + 2.0)

    @cached_property
    def rel_pos(self) -> np.ndarray:
        """Flat indices of the relevant entries, in query and rank order."""
        return np.flatnonzero(self.is_rel)

    @cached_property
    def cum_rel(self) -> np.ndarray:
        """For each relevant entry (``rel_pos``), how many relevant documents rank at or above it."""
        q = self.qidx[self.rel_pos]
        if len(q) == 0:
            return np.zeros(0, dtype=np.int64)
        first = np.concatenate([[True], q[1:] != q[:-1]])
        ordinal = np.arange(len(q), dtype=np.int64)
        start = np.maximum.accumulate(np.where(first, ordinal, 0))
        return ordinal - start + 1

    @cached_property
    def first_rel_rank(self) -> np.ndarray:
        """1-based rank of each query's first relevant document; 0 when none was retrieved."""
        out = np.zeros(self.n, dtype=np.int64)
        firsts = self.rel_pos[self.cum_rel == 1]
        out[self.qidx[firsts]] = self.pos[firsts] + 1
        return out

    def count_rel_within(self, k: np.ndarray | int | None) -> np.ndarray:
        """Per query: relevant documents among the first ``k`` positions (k per query allowed)."""
        q = self.qidx[self.rel_pos]
        if k is None:
            return np.bincount(q, minlength=self.n).astype(np.float64)
        limit = k[q] if isinstance(k, np.ndarray) else k
        return np.bincount(q, weights=self.pos[self.rel_pos] < limit, minlength=self.n)

    def count_judged_within(self, k: int | None, min_grade: float | None = None) -> np.ndarray:
        """Per query: judged documents among the first ``k`` positions (all of them for None),
        only those graded >= ``min_grade`` when given."""
        weights = np.ones(len(self.pos)) if k is None else (self.pos < k).astype(np.float64)
        if min_grade is not None:
            weights = np.where(self.grades >= min_grade, weights, 0.0)
        return np.bincount(self.qidx, weights=weights, minlength=self.n)

    def condensed(self) -> Rankings:
        """The same judgements with every unjudged document left out of each list (a condensed
        list, Sakai 2007; trec_eval ``-J``): judged documents keep their order, ranks close up,
        and each list is as long as its judged documents. What is relevant stays the same."""
        counts = np.diff(self.offsets)
        pos = np.arange(len(self.pos), dtype=np.int64) - np.repeat(self.offsets[:-1], counts)
        return Rankings(self.offsets, pos, self.grades, counts.astype(np.int64), self.num_rel, self.ideal_offsets,
                        self.ideal_gains, self.rel_level, self.masks, self.num_groups, self.calls, self.num_calls)

    def sum_by_query(self, values: np.ndarray, k: int | None) -> np.ndarray:
        """Per query: sum of a per-entry array over the entries ranked within the first ``k``."""
        if k is not None:
            values = np.where(self.pos < k, values, 0.0)
        return np.bincount(self.qidx, weights=values, minlength=self.n)

    def ideal_dcg(self, k: int | None) -> np.ndarray:
        """Per query: DCG of the ideal ranking cut at ``k``."""
        lengths = np.diff(self.ideal_offsets)
        iq = np.repeat(np.arange(self.n, dtype=np.int64), lengths)
        ipos = np.arange(len(self.ideal_gains)) - np.repeat(self.ideal_offsets[:-1], lengths)
        w = self.ideal_gains / np.log2(ipos + 2.0)
        if k is not None:
            w = np.where(ipos < k, w, 0.0)
        return np.bincount(iq, weights=w, minlength=self.n)


def safe_divide(num: np.ndarray, den: np.ndarray | float) -> np.ndarray:
    """num / den, and 0 where den is 0."""
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), np.shape(num))
    out = np.zeros(np.shape(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def popcount(values: np.ndarray) -> np.ndarray:
    """The number of bits set in each of ``values`` (unsigned 64-bit), as int64."""
    x = np.asarray(values, dtype=np.uint64)
    count = np.zeros(x.shape, dtype=np.int64)
    for _ in range(64):
        if not x.any():
            break
        count += (x & np.uint64(1)).astype(np.int64)
        x = x >> np.uint64(1)
    return count
