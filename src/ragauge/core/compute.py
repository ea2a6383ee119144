"""The Arrow compute kernels ragauge calls, by name, without importing ``pyarrow.compute``.

``import pyarrow.compute`` builds a Python wrapper, with a docstring, for each of Arrow's ~290
kernels: ~30 ms, a large share of a small evaluation's whole process (issue 17). The wrappers
only call the kernel registry, ``call_function``; these functions call it directly, with the
same arguments and results as their ``pyarrow.compute`` namesakes. The registry and the option
classes are imported from ``pyarrow._compute``, where pyarrow defines them, or from the public
``pyarrow.compute`` if a pyarrow ever moves them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from pyarrow._compute import (
        CastOptions,
        IndexOptions,
        MatchSubstringOptions,
        SetLookupOptions,
        SortOptions,
        call_function,
    )
except ImportError:  # pragma: no cover - pyarrow defines them there from 1.0 to today
    from pyarrow.compute import (
        CastOptions,
        IndexOptions,
        MatchSubstringOptions,
        SetLookupOptions,
        SortOptions,
        call_function,
    )


def take(values: Any, indices: Any) -> Any:
    """``values[indices]`` (the kernel behind ``Array.take``, which imports pyarrow.compute)."""
    return call_function("take", [values, indices])


def cast(values: Any, target_type: Any) -> Any:
    """``values`` as ``target_type``, refusing a lossy cast (the kernel behind ``Array.cast``)."""
    return call_function("cast", [values], CastOptions.safe(target_type))


def filter(values: Any, mask: Any) -> Any:  # noqa: A001 - the kernel's name, as in pyarrow.compute
    """The values where ``mask`` is true (the kernel behind ``Array.filter``)."""
    return call_function("filter", [values, mask])


def is_null(values: Any) -> Any:
    return call_function("is_null", [values])


def index_in(values: Any, value_set: Any) -> Any:
    """Each value's position in ``value_set`` (null: absent)."""
    return call_function("index_in", [values], SetLookupOptions(value_set))


def is_in(values: Any, value_set: Any) -> Any:
    """Whether each value is in ``value_set`` (a null is when the set holds a null)."""
    return call_function("is_in", [values], SetLookupOptions(value_set))


def unique(values: Any) -> Any:
    """The distinct values, in order of first appearance."""
    return call_function("unique", [values])


def equal(left: Any, right: Any) -> Any:
    return call_function("equal", [left, right])


def not_equal(left: Any, right: Any) -> Any:
    return call_function("not_equal", [left, right])


def greater(left: Any, right: Any) -> Any:
    return call_function("greater", [left, right])


def any(values: Any) -> Any:  # noqa: A001 - the kernel's name, as in pyarrow.compute
    """Whether any value is true (nulls skipped)."""
    return call_function("any", [values])


def index(values: Any, value: Any) -> Any:
    """The position of the first ``value`` in ``values`` (-1: absent)."""
    import pyarrow as pa

    return call_function("index", [values], IndexOptions(pa.scalar(value, type=values.type)))


def drop_null(values: Any) -> Any:
    """The values without their nulls (the kernel behind ``Array.drop_null``)."""
    return call_function("drop_null", [values])


def match_substring(values: Any, pattern: Any) -> Any:
    return call_function("match_substring", [values], MatchSubstringOptions(pattern))


def replace_with_mask(values: Any, mask: Any, replacements: Any) -> Any:
    return call_function("replace_with_mask", [values, mask, replacements])


def sort_indices(table: Any, sort_keys: Sequence[tuple[str, str]]) -> Any:
    """The row order that sorts ``table`` by ``sort_keys`` ((column, "ascending"|"descending"), ...)."""
    return call_function("sort_indices", [table], SortOptions(sort_keys=list(sort_keys)))


def string_is_ascii(values: Any) -> Any:
    """Whether each string holds ASCII characters only."""
    return call_function("string_is_ascii", [values])


def invert(values: Any) -> Any:
    """The logical not of each boolean."""
    return call_function("invert", [values])
