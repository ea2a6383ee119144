"""Documents that occur more than once in one query's ranking, found per query, vectorized."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ragauge.core.arrow import fingerprint_slots, ragged_arange, take, to_numpy

if TYPE_CHECKING:
    import pyarrow as pa

_PAD = np.uint64(np.iinfo(np.uint64).max)
_PAD32 = np.iinfo(np.uint32).max
EXACT_WIDTHS = 16  # up to this many distinct segment lengths, each length is sorted unpadded


def repeated_rows(
    docs: pa.Array | pa.ChunkedArray, fingerprints: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """Positions (sorted) of every repeat: a position whose document already occurs at a
    smaller position of the same segment ``[starts[i], starts[i] + lengths[i])``.

    ``fingerprints`` holds one value per position (equal documents, equal values);
    ``docs[rows[p]]`` (or ``docs[p]`` without ``rows``) is the document at position ``p``.
    Candidates that share a fingerprint are confirmed by comparing the documents exactly.
    """
    from ragauge.core import compute as pc

    pos, label = shared_in_segments(fingerprints, lengths, starts)
    if len(pos) == 0:
        return pos
    found = take(docs, pos if rows is None else rows[pos])
    group_start = np.flatnonzero(np.concatenate([[True], label[1:] != label[:-1]]))
    head = np.repeat(group_start, np.diff(np.append(group_start, len(pos))))
    same = to_numpy(pc.equal(found, take(found, head)))
    repeat = same & (np.arange(len(pos)) != head)
    for g in _distinct(label[~same]):  # fingerprints that collided: compare one by one
        members = np.flatnonzero(label == g)
        seen: set[str] = set()
        for m, doc in zip(members.tolist(), take(found, members).to_pylist()):
            repeat[m] = doc in seen
            seen.add(doc)
    return np.sort(pos[repeat])


def shared_in_segments(
    values: np.ndarray, lengths: np.ndarray, starts: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Positions in ``values`` whose value occurs more than once within its segment, with a
    label per (segment, value); sorted by label, then by position.

    Segment ``i`` is ``values[starts[i]:starts[i] + lengths[i]]``; without ``starts`` the
    segments follow each other from 0. Each segment is sorted on its own (segments of one
    length as rows of a 2-D array, viewed in place when they tile a stretch of ``values``),
    several times faster than one sort of everything when segments are short. Which segments
    hold a repeat at all is found on 32 bits of each value (``core.arrow.fingerprint_slots``),
    which sort about three times faster than 64; only those (and the few whose 32 bits collide)
    are sorted on the whole values.
    """
    values = np.asarray(values, dtype=np.uint64)
    lengths = np.asarray(lengths, dtype=np.int64)
    starts = np.cumsum(lengths) - lengths if starts is None else np.asarray(starts, dtype=np.int64)
    many = lengths >= 2
    out_pos: list[np.ndarray] = []
    out_label: list[np.ndarray] = []
    next_label = 0
    for segs, width in _by_width(lengths, many):
        segs = segs[np.argsort(starts[segs], kind="stable")]
        block, valid = _block(values, starts[segs], lengths[segs], width)
        short = fingerprint_slots(block, 32)
        if valid is not None:  # padding keeps the largest key: it still sorts after every real value
            short = np.where(block == _PAD, _PAD32, short)
        ordered = np.sort(short.astype(np.uint32), axis=1)
        equal = ordered[:, 1:] == ordered[:, :-1]
        if valid is not None:
            equal &= valid
        hit = np.flatnonzero(equal.any(axis=1))
        if len(hit) == 0:
            continue
        block = block[hit]
        perm = np.argsort(block, axis=1, kind="stable")  # real values precede equal padding
        ordered = np.take_along_axis(block, perm, axis=1)
        equal = ordered[:, 1:] == ordered[:, :-1]
        if valid is not None:
            equal &= valid[hit]
        member = np.zeros(ordered.shape, dtype=bool)
        member[:, 1:] |= equal
        member[:, :-1] |= equal
        r, col = np.nonzero(member)
        if len(r) == 0:  # the rows' 32 bits collided, their values did not
            continue
        value = ordered[r, col]
        new = np.concatenate([[True], (r[1:] != r[:-1]) | (value[1:] != value[:-1])])
        out_label.append(next_label + np.cumsum(new) - 1)
        out_pos.append(starts[segs[hit[r]]] + perm[r, col])
        next_label += int(new.sum())
    if not out_pos:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(out_pos), np.concatenate(out_label)


def _distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for a 1-D array, without the import of numpy.ma that np.unique makes
    (numpy 2: ~10 ms, a noticeable share of a small evaluation's whole process)."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _by_width(lengths: np.ndarray, many: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """Segments to sort together: one group per distinct length when there are few, else per
    power of two (padded)."""
    distinct = _distinct(lengths[many])
    if len(distinct) <= EXACT_WIDTHS:
        return [(np.flatnonzero(lengths == w), int(w)) for w in distinct.tolist()]
    width_class = np.zeros(len(lengths), dtype=np.int64)
    width_class[many] = np.ceil(np.log2(lengths[many])).astype(np.int64)
    return [(np.flatnonzero(many & (width_class == c)), 1 << c) for c in _distinct(width_class[many]).tolist()]


def _block(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
           width: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The segments as rows of a ``width``-wide array (padded with the largest value), and
    which neighbouring pairs of a sorted row are both real values (None: all are)."""
    if np.all(lengths == width):
        if np.all(np.diff(starts) == width):  # the segments tile one stretch: a view, no copy
            return values[starts[0]:starts[0] + width * len(starts)].reshape(len(starts), width), None
        return values[ragged_arange(starts, lengths)].reshape(len(starts), width), None
    block = np.full((len(starts), width), _PAD, dtype=np.uint64)
    dest = ragged_arange(np.arange(len(starts), dtype=np.int64) * width, lengths)
    block.reshape(-1)[dest] = values[ragged_arange(starts, lengths)]
    return block, np.arange(1, width) < lengths[:, None]
