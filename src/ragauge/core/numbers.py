"""One validator for every number ragauge reads: finite, of the right kind, inside its range.

Each number is checked where it enters (a file, a TOML table, an option), so nothing downstream
can compute with NaN, an infinity, a negative latency or a grade so large that nDCG overflows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ragauge.errors import InputError

GRADE_LIMIT = 1e9
"""Grades are at most this large in magnitude: DCG sums grades over a ranking, and a grade near
float64's limit (1e308) makes a perfect ranking overflow to inf/inf = NaN. trec_eval stores a
grade in a C ``long``; 1e9 leaves room for any real grading scale."""


@dataclass(frozen=True)
class Range:
    """An interval of allowed values; ``low_open``/``high_open`` exclude the bound itself."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integer: bool = False

    def contains(self, x: float) -> bool:
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            return False
        return not (self.high is not None and (x > self.high or (self.high_open and x == self.high)))

    def __str__(self) -> str:
        kind = "an integer" if self.integer else "a finite number"
        low, high = _fmt(self.low), _fmt(self.high)
        if self.low is not None and self.high is not None:
            return f"{kind} in {'(' if self.low_open else '['}{low}, {high}{')' if self.high_open else ']'}"
        if self.low is not None:
            return f"{kind} {'>' if self.low_open else '>='} {low}"
        if self.high is not None:
            return f"{kind} {'<' if self.high_open else '<='} {high}"
        return kind


def _fmt(x: float | None) -> str:
    if x is None:
        return ""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e6 else f"{x:g}"


ANY = Range()
NON_NEGATIVE = Range(0)
POSITIVE = Range(0, low_open=True)
UNIT = Range(0, 1)
"""A share or a metric value: [0, 1]."""
PROBABILITY = Range(0, 1, low_open=True, high_open=True)
"""A significance level: strictly between 0 and 1."""
CORRELATION = Range(-1, 1, high_open=True)
"""A correlation that leaves two runs some room to differ."""
KAPPA = Range(-1, 1)
"""An agreement statistic such as Cohen's kappa: [-1, 1]."""
COUNT = Range(1, integer=True)
"""A depth, a cutoff, a count: an integer >= 1."""
WHOLE = Range(0, integer=True)
"""A chunk size or overlap, a number of retries, a seed: an integer >= 0."""
GRADE = Range(-GRADE_LIMIT, GRADE_LIMIT)

TIMEOUT = Range(0, 1e6, low_open=True)
"""Seconds per call: more than 0; at most 1,000,000 (11 days), which every client and timer accepts."""


def check_number(value: Any, what: str, allowed: Range = ANY, *, where: str | None = None,
                 hint: str | None = None) -> float:
    """``value`` as a float (an int when ``allowed.integer``), or InputError naming ``what``,
    ``where`` and the allowed range. Refuses booleans, non-numbers, NaN, infinities and values
    outside ``allowed``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{what} must be {allowed}, got {value!r}", where=where, hint=hint)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{what} must be {allowed}, got {value!r}", where=where,
                         hint=hint or "NaN and infinities are not numbers ragauge can compute with")
    if isinstance(value, int) and not allowed.integer:
        try:
            value = float(value)
        except OverflowError:
            raise InputError(f"{what} must be {allowed}, got an integer too large for a float", where=where,
                             hint=hint) from None
    if allowed.integer:
        if isinstance(value, float) and not value.is_integer():
            raise InputError(f"{what} must be {allowed}, got {value!r}", where=where, hint=hint)
        value = int(value)
    if not allowed.contains(value):
        raise InputError(f"{what} must be {allowed}, got {value!r}", where=where, hint=hint)
    return value if allowed.integer else float(value)
