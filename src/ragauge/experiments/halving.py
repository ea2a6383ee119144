"""Successive halving for large sweeps (Jamieson & Talwalkar 2016; scikit-learn's ``HalvingGridSearchCV``
names): every configuration answers a small sample of questions first, the best ``1/factor`` go on
to a sample ``factor`` times larger, and so on; the survivors then answer every question, and only
there are the table, the tests and the selection computed (``experiments.analysis``).

The contract of ``budget``: the most retrievals (one question asked of one configuration) the sweep
may make in all, the final round included. From it, the sweep's size and ``factor``, the schedule
is fixed before anything runs:

- the **candidates** are every configuration but the reference. The reference is never dropped (the
  table's differences are against it) and answers every round;
- **round i** (i = 1, 2, ...) asks the candidates still in of the first ``n * factor**(i-1)``
  questions in the sample order (below), where ``n`` is the first sample; it keeps the best
  ``ceil(c / factor)`` of its ``c`` candidates by the mean of the primary metric over those questions
  (the earlier configuration of the sweep on a tie). A question answered in one round is not asked
  again: each round asks only the questions its sample adds;
- the rounds stop when ``factor`` or fewer candidates are left, or when the next sample would hold
  every tuning question; the **final round** then asks the survivors and the reference the
  questions they have not answered, so each of them has answered every question of the golden set;
- ``n`` is the largest first sample whose schedule fits the budget, and at least ``MIN_SAMPLE``.

The **sample order** ranks the answerable tuning questions (never a held-out one) by the first 8
bytes of SHA-256("ragauge-halving:" + id): deterministic, the same on every machine, each sample
contains the ones before it, and a question's place never depends on the other questions.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass

from ragauge.core.numbers import COUNT, Range, check_number
from ragauge.errors import InputError, flag
from ragauge.experiments import DEFAULT_FACTOR as DEFAULT_FACTOR

MIN_SAMPLE = 10
"""The fewest questions a first sample holds: below it a mean is mostly the luck of the draw."""
FACTOR = Range(2, integer=True)


def sample_order(ids: Iterable[str]) -> list[str]:
    """``ids`` in the sample order of the module docstring (ties, which need equal hashes, by id)."""
    def key(qid: str) -> tuple[bytes, str]:
        return hashlib.sha256(f"ragauge-halving:{qid}".encode("utf-8", "surrogatepass")).digest()[:8], qid

    return sorted(ids, key=key)


def survivors(means: dict[str, float], order: list[str], factor: int) -> list[str]:
    """The best ``ceil(len(order) / factor)`` of the candidates ``order`` (in the sweep's order) by
    ``means`` (higher is better, NaN lowest; the earlier candidate on a tie), in the sweep's order."""
    keep = math.ceil(len(order) / factor)
    ranked = sorted(range(len(order)), key=lambda i: (-_or_low(means[order[i]]), i))[:keep]
    return [order[i] for i in sorted(ranked)]


def _or_low(value: float) -> float:
    return -math.inf if math.isnan(value) else value


@dataclass(frozen=True)
class Schedule:
    """The planned rounds: ``samples[i]`` questions and ``candidates[i]`` candidates (plus the
    reference) in sample round i + 1; ``final`` candidates (plus the reference) answer every one of
    the ``questions`` golden questions in the final round. ``cost`` is the retrievals it makes,
    ``full`` what the sweep without halving makes (every configuration, every question)."""

    budget: int
    factor: int
    samples: tuple[int, ...]
    candidates: tuple[int, ...]
    final: int
    questions: int
    cost: int
    full: int


def _schedule(configurations: int, tuning: int, questions: int, first: int, factor: int,
              budget: int) -> Schedule:
    c, n, asked, cost = configurations - 1, first, 0, 0
    samples: list[int] = []
    candidates: list[int] = []
    while c > factor and n < tuning:
        samples.append(n)
        candidates.append(c)
        cost += (c + 1) * (n - asked)
        asked, c, n = n, math.ceil(c / factor), n * factor
    cost += (c + 1) * (questions - asked)
    return Schedule(budget, factor, tuple(samples), tuple(candidates), c, questions, cost,
                    configurations * questions)


def schedule(configurations: int, tuning: int, questions: int, budget: object,
             factor: object = DEFAULT_FACTOR) -> Schedule | None:
    """The schedule for ``configurations`` (the reference included) over a golden set of
    ``questions``, ``tuning`` of them answerable tuning questions, within ``budget`` retrievals
    (module docstring). None when the budget covers the full sweep (nothing needs dropping).
    InputError for a budget or factor that is not a whole number in range, and for a budget too
    small for any schedule (naming the smallest that fits and the full sweep's cost)."""
    budget = int(check_number(budget, "the sweep budget (retrievals in all)", COUNT,
                              hint="e.g. " + flag("budget", "2000")))
    factor = int(check_number(factor, "the halving factor", FACTOR,
                              hint=f"e.g. {flag('factor', '3')}: keep the best third"))
    full = configurations * questions
    if budget >= full:
        return None
    hint = (f"give {flag('budget', f'{full:,}')} or more to run the full sweep (every configuration answers every "
            f"question), or sweep without {flag('budget')}").replace(",", "")
    if configurations - 1 <= factor:
        raise InputError(f"{flag('budget', str(budget))} is below the full sweep's {full:,} retrievals, and "
                         f"successive halving has nothing to drop: {configurations - 1} configuration(s) besides the "
                         f"reference, and factor {factor} keeps the best 1/{factor} of them only when there are more "
                         f"than {factor}",
                         hint=hint + (f"; or a {flag('factor')} below {configurations - 1}"
                                      if configurations > 3 else ""))
    if tuning <= MIN_SAMPLE:
        raise InputError(f"{flag('budget', str(budget))} is below the full sweep's {full:,} retrievals, and {tuning} "
                         f"answerable tuning question(s) cannot make a first sample of {MIN_SAMPLE} smaller than all "
                         "of them",
                         hint=hint)
    smallest = _schedule(configurations, tuning, questions, MIN_SAMPLE, factor, budget)
    if smallest.cost > budget:
        raise InputError(f"{flag('budget', str(budget))} is too small: the smallest successive halving of this sweep "
                         f"(a first sample of {MIN_SAMPLE} questions, factor {factor}, the survivors then on all "
                         f"{questions} questions) makes {smallest.cost:,} retrievals; the full sweep makes {full:,}",
                         hint=f"give {flag('budget')} between {smallest.cost} and {full - 1}, or a larger "
                              f"{flag('factor')}")
    low, high = MIN_SAMPLE, tuning - 1  # the cost grows with the first sample: the largest that fits
    while low < high:
        mid = (low + high + 1) // 2
        if _schedule(configurations, tuning, questions, mid, factor, budget).cost <= budget:
            low = mid
        else:
            high = mid - 1
    return _schedule(configurations, tuning, questions, low, factor, budget)
