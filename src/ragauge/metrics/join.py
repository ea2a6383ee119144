"""Rankings built block by block (a run too large to hold at once), joined into one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragauge.core.arrow import ragged_arange
from ragauge.metrics.build import BuildInfo
from ragauge.metrics.rankings import Rankings


@dataclass(frozen=True)
class Part:
    """``build_rankings`` over one block of a run, for the queries ``ids`` (in the order built)."""

    ids: Sequence[str]
    rankings: Rankings
    info: BuildInfo


def join_parts(query_ids: Sequence[str], base: tuple[Rankings, BuildInfo], parts: Sequence[Part],
               run_queries: tuple[str, ...]) -> tuple[Rankings, BuildInfo]:
    """The rankings of ``query_ids`` that one ``build_rankings`` over the whole run would give.

    ``base`` is ``build_rankings`` of ``query_ids`` over no hits (the judgements alone: every
    list empty); each part replaces the lists of its queries, and a query that several parts hold
    takes the last part's. Parts' queries outside ``query_ids`` are ignored. ``run_queries`` is
    every query id of the run. The joined ``top_rows`` index the parts' ``top_rows`` laid end to
    end (the caller keeps what those rows hold: the blocks themselves are gone).
    """
    rankings, info = base
    n = len(query_ids)
    index = {q: i for i, q in enumerate(query_ids)}
    owner = np.full(n, -1, dtype=np.int64)
    mapped = []
    for p, part in enumerate(parts):
        where = np.fromiter((index.get(q, -1) for q in part.ids), dtype=np.int64, count=len(part.ids))
        owner[where[where >= 0]] = p
        mapped.append(where)
    lengths, present = rankings.lengths.copy(), info.present.copy()
    raw_lengths, folded = info.raw_lengths.copy(), info.folded.copy()
    qi, pos, grades = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0, np.float64)]
    masks: list[np.ndarray] = [np.zeros(0, np.uint64)]
    calls: list[np.ndarray] = [np.zeros(0, np.int64)]
    num_calls = None if rankings.num_calls is None else rankings.num_calls.copy()
    if num_calls is None and any(part.rankings.num_calls is not None for part in parts):
        num_calls = np.ones(n, dtype=np.int64)  # a question no part answers: one call that found nothing
    top_start = np.zeros(n, dtype=np.int64)
    top_count = np.zeros(n, dtype=np.int64)
    top_base = np.cumsum([0] + [len(part.info.top_rows) for part in parts])
    for p, (part, where) in enumerate(zip(parts, mapped)):
        keep = np.zeros(len(where), dtype=bool)
        inside = where >= 0
        keep[inside] = owner[where[inside]] == p
        mine_rows, at = np.flatnonzero(keep), where[keep]
        lengths[at] = part.rankings.lengths[mine_rows]
        present[at] = part.info.present[mine_rows]
        raw_lengths[at] = part.info.raw_lengths[mine_rows]
        folded[at] = part.info.folded[mine_rows]
        top_start[at] = top_base[p] + part.info.top_offsets[mine_rows]
        top_count[at] = np.diff(part.info.top_offsets)[mine_rows]
        entries = keep[part.rankings.qidx]
        qi.append(where[part.rankings.qidx[entries]])
        pos.append(part.rankings.pos[entries])
        grades.append(part.rankings.grades[entries])
        if part.rankings.masks is not None:
            masks.append(part.rankings.masks[entries])
        if num_calls is not None:
            part_calls = part.rankings.calls
            calls.append(np.zeros(int(entries.sum()), np.int64) if part_calls is None else part_calls[entries])
            part_num = part.rankings.num_calls
            num_calls[at] = part_num[mine_rows] if part_num is not None else 1
    all_qi, all_pos, all_grades = np.concatenate(qi), np.concatenate(pos), np.concatenate(grades)
    order = np.lexsort((all_pos, all_qi))
    offsets = np.concatenate([[0], np.cumsum(np.bincount(all_qi, minlength=n))]).astype(np.int64)
    grouped = rankings.num_groups is not None  # the judgements (the base's) say whether groups exist
    joined = Rankings(offsets, all_pos[order], all_grades[order], lengths, rankings.num_rel,
                      rankings.ideal_offsets, rankings.ideal_gains, rankings.rel_level,
                      np.concatenate(masks)[order] if grouped else None, rankings.num_groups,
                      None if num_calls is None else np.concatenate(calls)[order], num_calls)
    top_rows = ragged_arange(top_start, top_count)
    top_offsets = np.concatenate([[0], np.cumsum(top_count)]).astype(np.int64)
    return joined, BuildInfo(present, raw_lengths, folded, run_queries, top_offsets, top_rows)
