"""The successive-halving schedule: the sample order, who survives a round, and the largest first
sample whose rounds fit the budget, checked against a step-by-step count of the retrievals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.errors import InputError
from ragauge.experiments.halving import MIN_SAMPLE, Schedule, sample_order, schedule, survivors

IDS = st.lists(st.text(min_size=1, max_size=8), unique=True, max_size=40)


@settings(max_examples=60, deadline=None)
@given(IDS, IDS)
def test_the_sample_order_depends_on_each_id_alone(ids: list[str], more: list[str]) -> None:
    order = sample_order(ids)
    assert sorted(order) == sorted(ids) and sample_order(list(reversed(ids))) == order
    both = sample_order(list(dict.fromkeys(ids + more)))
    assert [q for q in both if q in set(ids)] == order  # adding questions never reorders the others


def test_the_sample_order_is_the_documented_hash() -> None:
    import hashlib

    ids = [f"q{i}" for i in range(50)]
    digest = {q: int.from_bytes(hashlib.sha256(f"ragauge-halving:{q}".encode()).digest()[:8], "big") for q in ids}
    assert sample_order(ids) == sorted(ids, key=digest.__getitem__)


def test_survivors_keep_the_best_share_in_the_sweeps_order() -> None:
    order = ["a", "b", "c", "d", "e", "f", "g"]
    means = {"a": 0.1, "b": 0.5, "c": 0.5, "d": float("nan"), "e": 0.9, "f": 0.5, "g": 0.2}
    assert survivors(means, order, 3) == ["b", "c", "e"]  # ceil(7/3) = 3; b and c before f on the tie
    assert survivors(means, order, 2) == ["b", "c", "e", "f"]
    assert survivors({"d": float("nan"), "a": 0.0}, ["d", "a"], 2) == ["a"]  # NaN counts as the lowest


def simulate(configurations: int, tuning: int, questions: int, first: int, factor: int) -> tuple[int, list[int], int]:
    """The retrievals of the rounds, counted question by question."""
    answered = [0] * configurations  # the reference is configuration 0 and never dropped
    alive = list(range(configurations))
    made, samples, n = 0, [], first
    while len(alive) - 1 > factor and n < tuning:
        for c in alive:
            made += n - answered[c]
            answered[c] = n
        samples.append(n)
        alive = alive[:1] + alive[1:1 + math.ceil((len(alive) - 1) / factor)]
        n *= factor
    made += sum(questions - answered[c] for c in alive)
    return made, samples, len(alive) - 1


@pytest.mark.parametrize(("configurations", "tuning", "questions", "factor"),
                         [(13, 300, 300, 3), (48, 300, 320, 3), (9, 40, 45, 2), (100, 1000, 1200, 4), (5, 30, 30, 3)])
def test_the_schedule_is_the_largest_first_sample_that_fits(configurations: int, tuning: int, questions: int,
                                                            factor: int) -> None:
    full = configurations * questions
    smallest = simulate(configurations, tuning, questions, MIN_SAMPLE, factor)[0]
    for budget in sorted({smallest, (smallest + full) // 2, full - 1}):
        s = schedule(configurations, tuning, questions, budget, factor)
        assert isinstance(s, Schedule) and s.full == full and s.cost <= budget
        made, samples, final = simulate(configurations, tuning, questions, s.samples[0], factor)
        assert (made, list(s.samples), s.final) == (s.cost, samples, final)
        assert all(n < tuning for n in s.samples) and s.final <= factor or s.samples[-1] * factor >= tuning
        if s.samples[0] + 1 < tuning:
            assert simulate(configurations, tuning, questions, s.samples[0] + 1, factor)[0] > budget
    assert schedule(configurations, tuning, questions, full, factor) is None  # the budget covers everything


def test_impossible_budgets_are_refused_with_what_would_fit() -> None:
    with pytest.raises(InputError, match=r"budget=1000 is too small: .* makes 1,040 retrievals; the full sweep "
                                         r"makes 3,900") as info:
        schedule(13, 300, 300, 1000)
    assert "budget= between 1040 and 3899" in str(info.value.hint)
    with pytest.raises(InputError, match="nothing to drop: 3 configuration"):
        schedule(4, 300, 300, 500)
    with pytest.raises(InputError, match="cannot make a first sample of 10"):
        schedule(13, 10, 40, 200)
    for bad in (0, -5, 2.5, True, "100"):
        with pytest.raises(InputError, match="the sweep budget"):
            schedule(13, 300, 300, bad)
    with pytest.raises(InputError, match="the halving factor"):
        schedule(13, 300, 300, 2000, 1)
