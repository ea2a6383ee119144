"""Judge what decides: a pool's unjudged (question, document) pairs ordered by how much their label could
move the verdict of comparing two of its systems, and whether that verdict is certain already.

**The comparison.** A pool made with ``golden pool --for-verdict BASE NEW`` records which two of its
systems are compared, on which metric (with a cutoff k no deeper than the pool) and at which level alpha
(:class:`ragauge.data.pool.PoolVerdict`). The verdict is ``compare``'s for one metric: the betting test of
the mean per-question difference NEW - BASE (:mod:`ragauge.stats.paired`) says *better* or *worse* when
its p-value is below alpha, else *no evidence of a change*. Each question's two values are computed by
the metric's own kernel (:mod:`ragauge.metrics`) from the pool alone: every document of either system's
top ``depth`` is in it (a candidate, or judged with its grade), and so is every document the golden set
judged, returned or not (it counts in nDCG's ideal ranking and in recall's denominator). Unjudged
documents count as not relevant, as ``eval`` scores them: that is the verdict *now*. A question with no
relevant document counts as a tie here (``compare`` leaves it out; near the edge of significance the two
can differ), and a system that lacks a question scores 0 on it, as ``eval`` scores a missing question.

**The extremes.** Judging can move a question's difference only between two values: the lowest and the
highest it takes over the labellings of its unjudged documents, each either not relevant (grade 0) or
relevant (the highest grade the pool holds, at least 1). With at most :data:`EXHAUSTIVE` unjudged
documents every labelling is tried. With more, they are searched over the labellings that mark relevant
the t unjudged documents that most favour one system (ordered by the difference each makes on its own),
for every t, and the same with each document fixed to either label. That search is exact for nDCG,
recall and precision with two grades: they add up over the relevant documents under a normaliser that
depends only on how many there are, so for each count the best set is the t documents with the largest
(or smallest) effects. For hit and MRR the tests find it exact too (held to every labelling of small
questions); for AP its extremes matched every labelling tested, but its extremes with one document
fixed (which only order the pairs) can miss.

**Certain.** The verdict is certain when the test gives the same verdict with every question at its
lowest difference and with every question at its highest: then no labelling of the unjudged pairs can
change it, and judging can stop. This reads the test's bounds as moving with the differences, which the
tests check by drawing labellings between the extremes.

**The order.** As pairs are judged, the low extreme (every question at its lowest difference) can only
rise and the high one only fall; the verdict is certain when their verdicts meet. Each side has a
distance to its next verdict, read from the interval at that extreme: the low side's is how far the
upper bound must rise to reach 0 (its verdict is *worse*) or the lower bound (*no evidence*); the high
side's is the mirror. Judging a pair of question i raises that question's lowest difference by
``dlo`` and lowers its highest by ``dhi``, each computed for both labels (``+``: relevant, ``0``: not),
and the mean difference moves by that over n. The pair's priority is the share of the two distances its
label is expected to close::

    p (dlo+ / D_lo + dhi+ / D_hi) + (1 - p) (dlo0 / D_lo + dhi0 / D_hi)

with p the chance that a pair is relevant: the share of the pool's judged candidates (and of its
judged documents within the pool's depth) that are relevant, counting one pseudo-judgement each way.
The judged documents count only when the golden set records some document judged not relevant (a
grade below the relevance level): a set that lists relevant documents only (BEIR's convention) holds
no sample of what a pooled document is, and counting it would put p near 1.
Why this rule: a label matters to the verdict only through the two extremes, and only while they
disagree; most pooled pairs cannot move them (both systems rank the document alike, or it lies beyond
the cutoff in both, or the two lists are the same), and judging in pool order spends most judgements
there. Dividing by the distances makes the side nearer to flipping weigh more, so a nearly settled
verdict is settled first; weighting by p makes "probably not relevant" count: a document only BASE
returns is likely not relevant, and confirming that raises the low extreme. Ties and pairs that cannot
move anything (priority 0) keep pool order. Once the verdict is certain the weights are 1 (what is left
to judge still moves the metric's value, not the verdict).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragauge.data.judgements import Item
from ragauge.data.pool import Pool
from ragauge.data.relevance import RELEVANCE_LEVEL, is_relevant
from ragauge.errors import InputError, flag
from ragauge.metrics.engine import compute
from ragauge.metrics.rankings import Rankings
from ragauge.metrics.spec import MetricSpec, parse_metric
from ragauge.stats.paired import paired_test

FAMILIES = ("hit", "recall", "precision", "mrr", "ndcg", "map")
"""The metrics a verdict can be judged for: each reads only where judged documents rank within its cutoff."""
VERDICTS = {-1: "worse", 0: "no evidence of a change", 1: "better"}
EXHAUSTIVE = 10
"""A question with at most this many unjudged documents has every labelling tried (2^10 = 1,024)."""
TINY = 1e-12


def verdict_metric(text: str, depth: int, where: str | None = None) -> MetricSpec:
    """The metric of a verdict, checked: one of :data:`FAMILIES` with a cutoff no deeper than the pool's
    ``depth`` (deeper, the pool would not hold every document it reads)."""
    takes = f"name one of {', '.join(f + '@k' for f in FAMILIES)}, e.g. ndcg@10"
    try:
        spec = parse_metric(text)
    except InputError as err:  # an unknown name: the hint names the metrics a verdict takes, not every metric
        raise InputError(err.message, where=where,
                         hint=takes if err.message.startswith("unknown metric") else err.hint) from None
    if spec.name not in FAMILIES or spec.budget is not None:
        raise InputError(f"a verdict cannot be judged for {text!r}", where=where, hint=takes)
    if spec.k is None:
        raise InputError(f"a verdict's metric needs a cutoff, got {text!r}", where=where,
                         hint=f"e.g. {spec.name}@{depth}: the pool holds each system's top {depth} only")
    if spec.k > depth:
        raise InputError(f"{text} reads each system's top {spec.k}, deeper than the pool's depth {depth}",
                         where=where,
                         hint=f"pool at {flag('depth', str(spec.k))} or more, or judge {spec.name}@{depth}")
    return spec


def verdict_of(differences: np.ndarray, alpha: float) -> tuple[int, tuple[float, float]]:
    """``compare``'s verdict on one metric from the per-question differences new - base: 1 (better) or -1
    (worse) when the betting test's p-value is below ``alpha``, else 0; and the test's interval."""
    d = np.asarray(differences, dtype=np.float64)
    test = paired_test(np.zeros(len(d)), d, confidence=1.0 - alpha)
    if test.n == 0 or test.changed == 0 or test.p_value >= alpha:
        return 0, test.ci
    return (1 if test.diff > 0 else -1), test.ci


def _values(spec: MetricSpec, grades: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The metric of one ranked list under each row of ``grades`` (labellings x documents), ``pos`` the
    0-based rank of each document in the list (-1: not in it), through the metric's kernel."""
    rows = grades.shape[0]
    inside = np.flatnonzero(pos >= 0)
    order = inside[np.argsort(pos[inside], kind="stable")]
    listed = grades[:, order]
    mask = listed > 0
    offsets = np.concatenate([[0], np.cumsum(mask.sum(axis=1))]).astype(np.int64)
    row, col = np.nonzero(mask)
    ideal = -np.sort(-grades, axis=1)
    positive = ideal > 0
    ideal_offsets = np.concatenate([[0], np.cumsum(positive.sum(axis=1))]).astype(np.int64)
    length = int(pos.max()) + 1 if len(pos) and pos.max() >= 0 else 0
    rankings = Rankings(offsets, pos[order][col].astype(np.int64), listed[row, col].astype(np.float64),
                        np.full(rows, length, dtype=np.int64),
                        (grades >= RELEVANCE_LEVEL).sum(axis=1).astype(np.int64), ideal_offsets,
                        ideal[positive].astype(np.float64), float(RELEVANCE_LEVEL))
    return compute(rankings, [spec])[spec]


@dataclass
class _Question:
    """One pooled question: ``docs`` every document that can be relevant (candidates, judged ones with a
    positive grade), their 0-based ranks in base's and new's lists (-1: absent), their grades (NaN: still
    unjudged) and each candidate's index in the pool line; then what :meth:`VerdictState._evaluate`
    computed: the difference now, its extremes, and per unjudged document the extremes with it fixed."""

    id: str
    docs: list[str]
    base: np.ndarray
    new: np.ndarray
    grades: np.ndarray
    candidate: dict[str, int]
    now: float = 0.0
    lo: float = 0.0
    hi: float = 0.0
    open: np.ndarray | None = None
    moves: np.ndarray | None = None
    """Per unjudged document (in ``open`` order): raise of lo and fall of hi if not relevant, then if relevant."""


@dataclass(frozen=True)
class VerdictStatus:
    """Where a comparison's verdict stands: the verdict ``now`` (unjudged pairs not relevant) with its mean
    difference and interval, the verdicts with every question at its lowest (``low``) and highest
    (``high``) difference with those means, and whether they agree (``certain``). Verdicts are -1
    (worse), 0 (no evidence of a change), 1 (better): :data:`VERDICTS`."""

    base: str
    new: str
    metric: str
    alpha: float
    questions: int
    unjudged: int
    now: int
    diff: float
    interval: tuple[float, float]
    low: int
    high: int
    low_diff: float
    high_diff: float
    low_interval: tuple[float, float]
    high_interval: tuple[float, float]
    relevant_share: float

    @property
    def certain(self) -> bool:
        return self.low == self.high

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "new": self.new, "metric": self.metric, "alpha": self.alpha,
                "questions": self.questions, "unjudged": self.unjudged, "certain": self.certain,
                "now": VERDICTS[self.now], "diff": self.diff, "interval": list(self.interval),
                "low": VERDICTS[self.low], "low_diff": self.low_diff, "low_interval": list(self.low_interval),
                "high": VERDICTS[self.high], "high_diff": self.high_diff, "high_interval": list(self.high_interval),
                "relevant_share": self.relevant_share}

    def lines(self) -> list[str]:
        """The status in words (names escaped for a terminal)."""
        from ragauge.core.escape import terminal as t

        head = (f"verdict on {self.metric}, {t(self.new)} against {t(self.base)} ({self.questions} questions, "
                f"alpha {self.alpha:g}): ")
        now = (f"{VERDICTS[self.now]} (mean difference {self.diff:+.4f} [{self.interval[0]:+.4f}, "
               f"{self.interval[1]:+.4f}])")
        if self.certain:
            return [head + now, f"  CERTAIN: no label of the {self.unjudged} unjudged pair(s) can change it; "
                                "judging can stop"]
        return [head + now + ", unjudged pairs counted as not relevant",
                f"  not yet certain: the {self.unjudged} unjudged pair(s) could make it anything from "
                f"{VERDICTS[self.low]} (mean {self.low_diff:+.4f}) to {VERDICTS[self.high]} (mean "
                f"{self.high_diff:+.4f})"]


class VerdictState:
    """The verdict of the comparison ``pool`` was made for (module docstring) as judgements come in:
    ``labels`` grades candidates of the pool (``{(question, doc): grade}``); :meth:`set` changes one,
    :meth:`status` says where the verdict stands and :meth:`order` which pairs to judge first."""

    def __init__(self, pool: Pool, labels: Mapping[Item, float] | None = None) -> None:
        if pool.verdict is None:
            raise InputError("the pool was not made for a comparison's verdict", where=pool.source,
                             hint="pool with " + flag("for_verdict", "BASE NEW", cli="--for-verdict"))
        self.pool = pool
        self.base, self.new = pool.verdict.base, pool.verdict.new
        self.spec = verdict_metric(pool.verdict.metric, pool.depth, pool.source)
        self.alpha = pool.verdict.alpha
        labels = dict(labels or {})
        judged = [j.grade for q in pool.questions for j in q.judged if j.grade is not None]
        self.top = float(max([1.0, *judged, *labels.values()]))
        self.questions: list[_Question] = []
        self.where: dict[Item, tuple[int, int]] = {}
        for qi, q in enumerate(pool.questions):
            docs = [c.doc_id for c in q.candidates] + [j.doc_id for j in q.judged if (j.grade or 0) > 0]
            ranks = [*q.candidates, *(j for j in q.judged if (j.grade or 0) > 0)]
            base, new = (np.array([d.ranks.get(name, 0) - 1 for d in ranks], dtype=np.int64)
                         for name in (self.base, self.new))
            grades = np.array([np.nan] * len(q.candidates) + [float(j.grade or 0) for j in q.judged
                                                               if (j.grade or 0) > 0], dtype=np.float64)
            self.questions.append(_Question(q.id, docs, base, new, grades,
                                            {c.doc_id: ci for ci, c in enumerate(q.candidates)}))
            for di, c in enumerate(q.candidates):
                self.where[(q.id, c.doc_id)] = (qi, di)
        within = [j.grade for q in pool.questions for j in q.judged if j.within(pool.depth)]
        if all(is_relevant(j.grade) for q in pool.questions for j in q.judged):
            within = []  # a set listing relevant documents only: its judged ones are no sample (docstring)
        self._prior = (sum(is_relevant(g) for g in within), len(within))
        self.labels: dict[Item, float] = {}
        for item, grade in labels.items():
            self._label(item, grade)
        for question in self.questions:
            self._evaluate(question)
        self._status: VerdictStatus | None = None
        self._order: list[tuple[Item, float]] | None = None

    # --- labels -----------------------------------------------------------------------------------

    def _label(self, item: Item, grade: float | None) -> _Question:
        if item not in self.where:
            raise InputError(f"({item[0]!r}, {item[1]!r}) is not a candidate of the pool", where=self.pool.source)
        qi, di = self.where[item]
        q = self.questions[qi]
        q.grades[di] = np.nan if grade is None else float(grade)
        if grade is None:
            self.labels.pop(item, None)
        else:
            self.labels[item] = float(grade)
        return q

    def set(self, item: Item, grade: float | None) -> None:
        """Grade the candidate ``item`` (None: unjudged again, after an undo or a skip)."""
        q = self._label(item, grade)
        self._evaluate(q)
        self._status = self._order = None

    @property
    def relevant_share(self) -> float:
        """p of the module docstring: relevant among the judged candidates and (when the set records
        documents judged not relevant) the judged documents within the pool's depth, one pseudo-judgement
        each way."""
        relevant = self._prior[0] + sum(is_relevant(g) for g in self.labels.values())
        return (relevant + 1.0) / (self._prior[1] + len(self.labels) + 2.0)

    # --- one question -----------------------------------------------------------------------------

    def _differences(self, q: _Question, grades: np.ndarray) -> np.ndarray:
        return np.asarray(_values(self.spec, grades, q.new) - _values(self.spec, grades, q.base))

    def _evaluate(self, q: _Question) -> None:
        """The question's difference now, its extremes, and each unjudged document's moves (module docstring)."""
        unjudged = np.flatnonzero(np.isnan(q.grades))
        known = np.nan_to_num(q.grades, nan=0.0)
        u = len(unjudged)

        def grades(masks: np.ndarray) -> np.ndarray:
            out = np.repeat(known[None, :], len(masks), axis=0)
            out[:, unjudged] = np.where(masks, self.top, 0.0)
            return out

        if u == 0:
            q.now = q.lo = q.hi = float(self._differences(q, grades(np.zeros((1, 0), dtype=bool)))[0])
            q.open, q.moves = unjudged, np.zeros((0, 4))
            return
        masks = (((np.arange(2 ** u)[:, None] >> np.arange(u)) & 1).astype(bool) if u <= EXHAUSTIVE
                 else self._searched(q, grades))
        d = self._differences(q, grades(masks))  # row 0 is every unjudged document not relevant: now
        q.now, q.lo, q.hi = float(d[0]), float(d.min()), float(d.max())
        column = d[:, None]
        lo0 = np.where(masks, np.inf, column).min(axis=0)
        hi0 = np.where(masks, -np.inf, column).max(axis=0)
        lo1 = np.where(masks, column, np.inf).min(axis=0)
        hi1 = np.where(masks, column, -np.inf).max(axis=0)
        moves = np.stack([lo0 - q.lo, q.hi - hi0, lo1 - q.lo, q.hi - hi1], axis=1)
        moves[moves < TINY] = 0.0
        q.open, q.moves = unjudged, moves

    def _searched(self, q: _Question, grades: Any) -> np.ndarray:
        """The labellings searched (module docstring), one row each, over the unjudged documents: none
        relevant first, then each alone, then for every t the t that favour new most and least, then the
        same with each document fixed not relevant and fixed relevant."""
        u = int(np.isnan(q.grades).sum())
        single = np.zeros((u + 1, u), dtype=bool)
        single[np.arange(1, u + 1), np.arange(u)] = True
        alone = self._differences(q, grades(single))
        effect = alone[1:] - alone[0]
        order = np.argsort(-effect, kind="stable")
        rank = np.empty(u, dtype=np.int64)
        rank[order] = np.arange(u)
        t = np.arange(u + 1)
        prefix = rank[None, :] < t[:, None]
        suffix = rank[None, :] >= (u - t[1:])[:, None]
        others = rank[None, :] - (rank[None, :] > rank[:, None])  # rank among the others, row j leaving out j
        tc = np.arange(u)
        fixed = np.concatenate([others[:, None, :] < tc[None, :, None],
                                others[:, None, :] >= (u - 1 - tc[1:])[None, :, None]], axis=1)
        eye = np.eye(u, dtype=bool)[:, None, :]
        return np.concatenate([single, prefix, suffix, (fixed & ~eye).reshape(-1, u), (fixed | eye).reshape(-1, u)])

    # --- the comparison ---------------------------------------------------------------------------

    def status(self) -> VerdictStatus:
        """Where the verdict stands now (cached until the next :meth:`set`)."""
        if self._status is None:
            now, lo, hi = (np.array([getattr(q, side) for q in self.questions], dtype=np.float64)
                           for side in ("now", "lo", "hi"))
            verdicts = [verdict_of(v, self.alpha) for v in (now, lo, hi)]
            mean = [float(v.mean()) if len(v) else 0.0 for v in (now, lo, hi)]
            unjudged = sum(len(q.open) for q in self.questions if q.open is not None)
            self._status = VerdictStatus(self.base, self.new, str(self.spec), self.alpha, len(self.questions),
                                         unjudged, verdicts[0][0], mean[0], verdicts[0][1], verdicts[1][0],
                                         verdicts[2][0], mean[1], mean[2], verdicts[1][1], verdicts[2][1],
                                         self.relevant_share)
        return self._status

    def weights(self) -> tuple[float, float]:
        """(1 / D_lo, 1 / D_hi) of the module docstring; (1, 1) once the verdict is certain."""
        s = self.status()
        if s.certain:
            return 1.0, 1.0
        low = -s.low_interval[1] if s.low == -1 else -s.low_interval[0]
        high = s.high_interval[0] if s.high == 1 else s.high_interval[1]
        return 1.0 / max(low, TINY), 1.0 / max(high, TINY)

    def order(self) -> list[tuple[Item, float]]:
        """Every unjudged candidate with its priority, highest first (module docstring); ties, and the
        pairs that cannot move the verdict, in pool order (cached until the next :meth:`set`: a page
        of the judging app asks for it more than once)."""
        if self._order is not None:
            return list(self._order)
        w_lo, w_hi = self.weights()
        p = self.relevant_share
        rows: list[tuple[float, int, int, Item]] = []
        for qi, q in enumerate(self.questions):
            if q.open is None or q.moves is None or not len(q.open):
                continue
            m = q.moves
            score = (1.0 - p) * (w_lo * m[:, 0] + w_hi * m[:, 1]) + p * (w_lo * m[:, 2] + w_hi * m[:, 3])
            for di, value in zip(q.open.tolist(), score.tolist()):
                doc = q.docs[di]
                rows.append((-value, qi, q.candidate[doc], (q.id, doc)))
        rows.sort(key=lambda r: r[:3])
        self._order = [(item, -neg) for neg, _, _, item in rows]
        return list(self._order)
