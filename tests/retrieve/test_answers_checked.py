"""retrieve.base.check_answer: the one check of what any adapter returned, fast path included."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve.base import Retrieved, check_answer


class Tag(str):
    """A str subclass: an id all the same."""


_ids = (st.none() | st.text(max_size=3) | st.text(max_size=3).map(Tag) | st.integers(-2, 2)
        | st.sampled_from([b"d", 1.5]))
_scores = st.none() | st.floats() | st.integers(-3, 3) | st.booleans() | st.sampled_from([math.nan, math.inf, "0.5"])


def _allowed(hit: Hit) -> bool:
    """The rule, written out: string ids (or none), and a score that is a finite int or float, not a bool."""
    ids = all(v is None or isinstance(v, str) for v in (hit.doc_id, hit.chunk_id))
    score = hit.score is None or (not isinstance(hit.score, bool) and isinstance(hit.score, (int, float))
                                  and math.isfinite(hit.score))
    return ids and score


@settings(max_examples=400, deadline=None)
@given(st.lists(st.builds(Hit, _ids, _ids, _scores), max_size=4))
def test_an_answer_passes_exactly_when_every_hit_keeps_the_rule(hits: list[Any]) -> None:
    """The usual hit (str ids, finite float) passes at a glance; every other goes through each check,
    so the fast path can only agree with the rule."""
    if all(_allowed(h) for h in hits):
        check_answer(Retrieved(tuple(hits)), "q1")
    else:
        with pytest.raises(InputError, match="for question 'q1'"):
            check_answer(Retrieved(tuple(hits)), "q1")
