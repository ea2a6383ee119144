"""Rows of a run grouped by query, in rank order, without moving the rows themselves."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ragauge.core.arrow import (
    find_sorted,
    group_starts,
    ragged_arange,
    string_column,
    strings,
    take,
    to_numpy,
)

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True, eq=False)
class Grouping:
    """Group ``g`` (query ``ids[g]``) ranks, best first, the rows at positions
    ``starts[g] .. starts[g] + lengths[g] - 1`` of a row order.

    The row order is ``order`` when given (any permutation). Otherwise it is the identity,
    except that ``moves = (positions, rows)`` puts ``rows[i]`` at ``positions[i]``; moves stay
    within a group's block, so group ``g`` holds exactly the rows of its block (``in_blocks``).
    Keeping a row order, or a few moves, instead of reordered columns spares copying millions
    of strings when only some ties are out of place.
    """

    ids: list[str]
    starts: np.ndarray
    lengths: np.ndarray
    order: np.ndarray | None = None
    moves: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def in_blocks(self) -> bool:
        """Group ``g`` holds exactly the rows ``starts[g] .. starts[g] + lengths[g] - 1``."""
        return self.order is None

    @cached_property
    def _row_order(self) -> np.ndarray | None:
        if self.order is not None or self.moves is None:
            return self.order
        order = np.arange(int(self.lengths.sum()), dtype=np.int64)
        order[self.moves[0]] = self.moves[1]
        return order

    def rows(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Rows at the ranked positions ``[starts[i], starts[i] + lengths[i])``, concatenated."""
        idx = ragged_arange(starts, lengths)
        return idx if self._row_order is None else self._row_order[idx]

    def rows_at(self, positions: np.ndarray) -> np.ndarray:
        """The row at each ranked position (cheap for a few positions when ``in_blocks``)."""
        if self.order is not None:
            return np.asarray(self.order[positions])
        return positions if self.moves is None else _remap(positions, *self.moves)

    def positions_of(self, rows: np.ndarray) -> np.ndarray:
        """The ranked position of each row; only when ``in_blocks``."""
        assert self.order is None, "positions_of needs a grouping in blocks"
        return rows if self.moves is None else _remap(rows, self.moves[1], self.moves[0])


def _remap(values: np.ndarray, keys: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``values`` with each value found in ``keys`` replaced by its target."""
    if len(keys) == 0 or len(values) == 0:
        return values
    by_key = np.argsort(keys)
    at, hit = find_sorted(keys[by_key], values)
    targets = targets[by_key]
    out = np.array(values, dtype=np.int64, copy=True)
    out[hit] = targets[at[hit]]
    return out


def contiguous(qid: pa.Array | pa.ChunkedArray, order: np.ndarray | None = None) -> Grouping:
    """Grouping of rows whose equal query ids are adjacent (in ``order``, if given);
    the caller guarantees each id forms a single block."""
    qid = string_column(qid)
    ranked = qid if order is None else take(qid, order)
    starts = group_starts(ranked)
    ids = take(ranked, starts).to_pylist() if len(starts) else []
    lengths = np.diff(np.append(starts, len(qid))).astype(np.int64)
    return Grouping(ids, starts, lengths, order)


def group_rows(qid: pa.Array | pa.ChunkedArray) -> Grouping:
    """Group rows by query id, keeping each query's rows in their relative (rank) order; a query
    whose rows are split over several blocks is gathered at its first block's place."""
    from ragauge.core import compute as pc

    qid = string_column(qid)
    n = len(qid)
    starts = group_starts(qid)
    ids = take(qid, starts).to_pylist() if n else []
    if len(set(ids)) == len(ids):
        return Grouping(ids, starts, np.diff(np.append(starts, n)).astype(np.int64))
    uniq = list(dict.fromkeys(ids))
    codes = to_numpy(pc.index_in(qid, value_set=strings(uniq)))
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.concatenate([[0], np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1]).astype(np.int64)
    lengths = np.diff(np.append(starts, n)).astype(np.int64)
    return Grouping([uniq[c] for c in sorted_codes[starts]], starts, lengths, order)
