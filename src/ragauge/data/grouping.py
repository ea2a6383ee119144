"""Rows of a run grouped by query, in rank order, without moving the rows themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragauge.data.arrow import group_starts, ragged_arange, string_column

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True, eq=False)
class Grouping:
    """Group ``g`` (query ``ids[g]``) is the run rows ``order[starts[g]:starts[g] + lengths[g]]``
    in rank order; ``order`` None means the rows are already grouped and ranked (identity).

    Keeping a row order instead of reordered columns spares copying millions of strings when
    only a few ties are out of place.
    """

    ids: list[str]
    starts: np.ndarray
    lengths: np.ndarray
    order: np.ndarray | None = None

    def rows(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Run rows of the ranked slices ``[starts[i], starts[i] + lengths[i])``, concatenated."""
        idx = ragged_arange(starts, lengths)
        return idx if self.order is None else self.order[idx]


def contiguous(qid: "pa.Array | pa.ChunkedArray", order: np.ndarray | None = None) -> Grouping:
    """Grouping of rows whose equal query ids are adjacent (in ``order``, if given);
    the caller guarantees each id forms a single block."""
    import pyarrow as pa

    qid = string_column(qid)
    ranked = qid if order is None else qid.take(pa.array(order))
    starts = group_starts(ranked)
    ids = ranked.take(pa.array(starts)).to_pylist() if len(starts) else []
    lengths = np.diff(np.append(starts, len(qid))).astype(np.int64)
    return Grouping(ids, starts, lengths, order)


def group_rows(qid: "pa.Array | pa.ChunkedArray") -> Grouping:
    """Group rows by query id, keeping each query's rows in their relative (rank) order; a query
    whose rows are split over several blocks is gathered at its first block's place."""
    import pyarrow as pa
    import pyarrow.compute as pc

    qid = string_column(qid)
    n = len(qid)
    starts = group_starts(qid)
    ids = qid.take(pa.array(starts)).to_pylist() if n else []
    if len(set(ids)) == len(ids):
        return Grouping(ids, starts, np.diff(np.append(starts, n)).astype(np.int64))
    uniq = list(dict.fromkeys(ids))
    codes = pc.index_in(qid, value_set=pa.array(uniq, pa.string())).to_numpy(zero_copy_only=False)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.concatenate([[0], np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1]).astype(np.int64)
    lengths = np.diff(np.append(starts, n)).astype(np.int64)
    return Grouping([uniq[c] for c in sorted_codes[starts]], starts, lengths, order)
