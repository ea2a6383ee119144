"""Trajectory metrics: how a multi-call answer (an agent that searched several times) reached its
evidence. Counts of calls, lower is better; none takes a cutoff.

The contract, per question, over the calls of its scored trajectory (``data.hits.QueryResult``:
all its calls, or the last stage's), in call order, within the fetch depth:

- a document *comes back* in the first call that returns it (the trajectory is folded into
  documents in first-seen order, as every metric folds chunks);
- ``calls`` is the number of calls (1 for a question answered in one call);
- ``calls_to_evidence`` is the number of the first call that brought back a relevant document, and
  ``calls_to_complete`` of the call after which every evidence group (each relevant document of a
  plain question) had come back; a question that never got there counts **one more call than it
  made** (calls + 1), so giving up is never cheaper than finding;
- ``wasted_calls`` is the number of calls that brought back no relevant document that had not
  come back before.

With one call per question: calls = 1, calls_to_evidence = 2 - hit, calls_to_complete =
2 - complete and wasted_calls = 1 - hit, each over the whole list.
"""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings

MAX_GROUP_BITS = 64


def _num_calls(r: Rankings) -> np.ndarray:
    return np.ones(r.n, dtype=np.int64) if r.num_calls is None else r.num_calls


def _entry_calls(r: Rankings) -> np.ndarray:
    return np.zeros(len(r.pos), dtype=np.int64) if r.calls is None else r.calls


def calls(r: Rankings, k: int | None) -> np.ndarray:
    """The number of calls of the question's trajectory (1 for a question answered in one call)."""
    return _num_calls(r).astype(np.float64)


def calls_to_evidence(r: Rankings, k: int | None) -> np.ndarray:
    """The number of the first call that brought back a relevant document; calls + 1 when none did."""
    out = _num_calls(r).astype(np.float64) + 1.0
    rel = r.rel_pos
    if len(rel):
        first = np.full(r.n, np.inf)
        np.minimum.at(first, r.qidx[rel], _entry_calls(r)[rel].astype(np.float64) + 1.0)
        out = np.where(np.isfinite(first), first, out)
    return out


def calls_to_complete(r: Rankings, k: int | None) -> np.ndarray:
    """The number of the call after which every evidence group (every relevant document of a plain
    question) had come back; calls + 1 when that never happened."""
    censored = _num_calls(r).astype(np.float64) + 1.0
    rel = r.rel_pos
    q, c = r.qidx[rel], _entry_calls(r)[rel].astype(np.float64) + 1.0
    done = np.zeros(r.n)
    np.maximum.at(done, q, c)  # plain question: the call of its last relevant document
    complete = np.bincount(q, minlength=r.n) >= r.num_rel
    if r.masks is not None and r.num_groups is not None:
        grouped = r.num_groups > 0
        masks = r.masks[rel]
        latest = np.zeros(r.n)
        provided = grouped.copy()
        for bit in range(MAX_GROUP_BITS):
            has = (masks >> np.uint64(bit)) & np.uint64(1) == 1
            needed = grouped & (r.num_groups > bit)
            if not needed.any():
                break
            first = np.full(r.n, np.inf)
            np.minimum.at(first, q[has], c[has])
            latest = np.where(needed, np.maximum(latest, first), latest)
            provided &= ~needed | np.isfinite(first)
        done = np.where(grouped, latest, done)
        complete = np.where(grouped, provided, complete)
    return np.where(complete & (r.num_rel > 0), done, censored)


def wasted_calls(r: Rankings, k: int | None) -> np.ndarray:
    """The number of calls that brought back no relevant document that had not come back before."""
    rel = r.rel_pos
    pairs = np.unique(np.stack([r.qidx[rel], _entry_calls(r)[rel]]), axis=1) if len(rel) else np.zeros((2, 0), int)
    useful = np.bincount(pairs[0], minlength=r.n)
    return (_num_calls(r) - useful).astype(np.float64)
