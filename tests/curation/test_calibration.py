"""The calibration of an assessor's scores to grades: the cutoff that maximises kappa (checked by brute
force over every cutoff), more grades by coordinate ascent, and what happens with nothing to fit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.curation.calibration import fit_calibration
from ragauge.errors import InputError
from ragauge.formats.autolabels import Calibration
from ragauge.stats.kappa import weighted_kappa


def _kappa(scores: np.ndarray, human: np.ndarray, cut: float) -> float:
    value = weighted_kappa(list(human), list((scores >= cut).astype(float)), categories=[0.0, 1.0]).value
    return -np.inf if value is None else float(value)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5, allow_nan=False), st.sampled_from([0.0, 1.0])), min_size=2, max_size=60))
def test_two_grades_take_the_best_cutoff_of_all(pairs: list[tuple[float, float]]) -> None:
    scores = np.array([round(s, 3) for s, _ in pairs])
    human = np.array([h for _, h in pairs])
    if len(set(human)) < 2 or len(set(scores)) < 2:
        return
    fit = fit_calibration(scores, human)
    values = np.unique(scores)
    best = max(_kappa(scores, human, c) for c in (values[1:] + values[:-1]) / 2)
    assert fit.kappa == pytest.approx(best) and fit.grades == (0.0, 1.0) and fit.fitted_on == len(scores)
    assert _kappa(scores, human, fit.cutoffs[0]) == pytest.approx(best)


def test_three_grades_recover_a_clean_separation() -> None:
    rng = np.random.default_rng(3)
    human = rng.choice([0.0, 1.0, 2.0], size=300, p=[0.7, 0.2, 0.1])
    scores = human * 1.0 + rng.uniform(0, 0.9, size=300)  # grade g scores in [g, g + 0.9)
    fit = fit_calibration(scores, human)
    assert fit.grades == (0.0, 1.0, 2.0) and fit.kappa == pytest.approx(1.0)
    assert 0.9 <= fit.cutoffs[0] <= 1.0 and 1.9 <= fit.cutoffs[1] <= 2.0
    assert [fit.grade(s) for s in scores] == list(human)


def test_nothing_to_fit_uses_the_default_or_refuses() -> None:
    default = Calibration((2.0,), (0, 1))
    assert fit_calibration([], [], default) is default
    assert fit_calibration([0.2, 0.4], [0, 0], default) is default  # every labelled pair non-relevant
    with pytest.raises(InputError, match="no pair in the runs' top k has a human label"):
        fit_calibration([], [])
    with pytest.raises(InputError, match="all have grade 0"):
        fit_calibration([0.1, 0.3], [0, 0])
    with pytest.raises(InputError, match="one score"):
        fit_calibration([0.5, 0.5], [0, 1])


def test_a_calibration_maps_scores_at_the_cutoff_upwards() -> None:
    c = Calibration((0.5, 0.8), (0, 1, 2))
    assert [c.grade(s) for s in (0.49, 0.5, 0.79, 0.8, 3.0)] == [0, 1, 1, 2, 2]
    with pytest.raises(InputError):
        Calibration((0.8, 0.5), (0, 1, 2))
    with pytest.raises(InputError):
        Calibration((0.5,), (0, 1, 2))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1, allow_nan=False), st.sampled_from([0.0, 1.0, 2.0])), min_size=1, max_size=40),
       st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=2))
def test_the_fits_kappa_is_weighted_kappa(pairs: list[tuple[float, float]], cuts: list[float]) -> None:
    from ragauge.curation.calibration import _kappa

    scores, human = np.array([s for s, _ in pairs]), np.array([h for _, h in pairs])
    levels = np.array([0.0, 1.0, 2.0])
    cutoffs = sorted(cuts)
    predicted = levels[np.searchsorted(np.array(cutoffs), scores, side="right")]
    value = weighted_kappa(list(human), list(predicted), categories=list(levels)).value
    assert _kappa(scores, human, cutoffs, levels) == (pytest.approx(value) if value is not None else -np.inf)
