"""Cohen's kappa: a worked example, scikit-learn's implementation as the reference, and the undefined cases."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.stats.kappa import cohen_kappa


def test_worked_example() -> None:
    """The two-reader example of Cohen's kappa in the literature (Wikipedia, "Cohen's kappa"): 50
    proposals, both say yes to 20, A yes / B no 5, A no / B yes 10, both no 15: p_o = 0.7,
    p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4."""
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    k = cohen_kappa(a, b)
    assert k.n == 50 and k.agreement == pytest.approx(0.7) and k.value == pytest.approx(0.4)


def test_perfect_and_chance_agreement() -> None:
    assert cohen_kappa([0, 1, 2, 2], [0, 1, 2, 2]).value == pytest.approx(1.0)
    # A says 1 to everything B says 0 or 1 to, half each: agreement 0.5 is what chance gives
    assert cohen_kappa([1, 1, 1, 1], [0, 1, 0, 1]).value == pytest.approx(0.0)


@pytest.mark.parametrize("a, b, reason", [
    ([], [], "no item judged by both"),
    ([2, 2, 2], [2, 2, 2], "same label"),
])
def test_undefined_is_none_with_a_reason(a: list[int], b: list[int], reason: str) -> None:
    k = cohen_kappa(a, b)
    assert k.value is None and reason in (k.reason or "")


def test_unequal_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="one label each"):
        cohen_kappa([0, 1], [0])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2]), st.sampled_from([0, 1, 2])), min_size=1, max_size=60))
def test_agrees_with_scikit_learn(pairs: list[tuple[int, int]]) -> None:
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the reference implementation")
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the undefined case warns; its value is nan
        expected = metrics.cohen_kappa_score(a, b)
    k = cohen_kappa(a, b)
    if math.isnan(expected):
        assert k.value is None
    else:
        assert k.value == pytest.approx(expected, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, 3]), st.sampled_from([0, 1, 2, 3])), min_size=1, max_size=50))
def test_weighted_kappa_is_sklearns_linear(pairs: list[tuple[int, int]]) -> None:
    from sklearn.metrics import cohen_kappa_score

    from ragauge.stats.kappa import weighted_kappa

    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    k = weighted_kappa(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = cohen_kappa_score(a, b, weights="linear")
    if k.value is None:
        assert len(set(a) | set(b)) == 1 and "same label" in (k.reason or "")
    else:
        assert k.value == pytest.approx(reference, abs=1e-9)
    if len(set(a) | set(b)) <= 2 and k.value is not None:
        assert k.value == pytest.approx(cohen_kappa(a, b).value)
