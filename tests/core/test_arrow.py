"""Vectorized helpers over Arrow string columns."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.core.arrow import group_starts, hash64, ragged_arange, strings, take

TEXT = st.text(alphabet="ab\u00e9\U0001f600 #x0", max_size=30)


@settings(deadline=None)
@given(values=st.lists(TEXT, max_size=60), split=st.integers(0, 60))
def test_hash64_equal_strings_equal_fingerprints_chunked_or_not(values, split):
    flat = hash64(pa.array(values, pa.string()))
    chunked = hash64(pa.chunked_array([values[:split], values[split:]], pa.string()))
    sliced = hash64(pa.array(["pad"] + values, pa.string()).slice(1))
    assert flat.tolist() == chunked.tolist() == sliced.tolist()
    by_value: dict[str, int] = {}
    for v, h in zip(values, flat.tolist()):
        assert by_value.setdefault(v, h) == h


def test_hash64_sees_every_byte():
    # ids that differ in one byte anywhere, including the middle of long ids, and in length only
    base = "doc-" + "x" * 40
    variants = [base] + [base[:i] + "y" + base[i + 1:] for i in range(len(base))] + [base + "x", base[:-1], ""]
    assert len(set(hash64(pa.array(variants)).tolist())) == len(variants)


def test_hash64_sees_every_byte_of_short_ids_and_nothing_past_their_end():
    # every id of up to 9 bytes over a, b and NUL (a NUL byte is also what lies past a short id's end)
    ids = [""]
    for _ in range(9):
        ids += [s + c for s in ids if len(s) == len(ids[-1]) for c in "ab\x00"]
    flat = hash64(pa.array(ids))
    assert len(set(flat.tolist())) == len(ids)
    followed = hash64(pa.array([v for s in ids for v in (s, "zzzzzzzzz")]))  # other bytes right after each id
    assert followed[::2].tolist() == flat.tolist()


@given(values=st.lists(st.sampled_from(["a", "b", "c"]), max_size=40))
def test_group_starts(values):
    want = [i for i in range(len(values)) if i == 0 or values[i] != values[i - 1]]
    assert group_starts(pa.array(values, pa.string())).tolist() == want
    assert group_starts(pa.chunked_array([values[:3], values[3:]], pa.string())).tolist() == want


@given(pairs=st.lists(st.tuples(st.integers(0, 50), st.integers(0, 5)), max_size=10))
def test_ragged_arange(pairs):
    starts = np.array([s for s, _ in pairs], dtype=np.int64)
    lengths = np.array([n for _, n in pairs], dtype=np.int64)
    assert ragged_arange(starts, lengths).tolist() == [i for s, n in pairs for i in range(s, s + n)]


@settings(deadline=None)
@given(values=st.lists(TEXT, min_size=1, max_size=40), cuts=st.lists(st.integers(0, 40), max_size=4),
       picks=st.lists(st.integers(0, 10_000), max_size=30))
def test_take_reads_chunked_columns_chunk_by_chunk(values, cuts, picks):
    bounds = sorted({0, len(values), *[min(c, len(values)) for c in cuts]})
    chunked = pa.chunked_array([values[a:b] for a, b in zip(bounds, bounds[1:])], pa.string())
    indices = np.array([p % len(values) for p in picks], dtype=np.int64)
    assert take(chunked, indices).to_pylist() == [values[i] for i in indices]
    assert take(pa.array(values, pa.string()), indices).to_pylist() == [values[i] for i in indices]


@given(keys=st.lists(st.integers(-5, 5), unique=True), values=st.lists(st.integers(-7, 7), max_size=20))
def test_find_sorted(keys, values):
    from ragauge.core.arrow import find_sorted

    sorted_keys = np.array(sorted(keys), dtype=np.int64)
    at, found = find_sorted(sorted_keys, np.array(values, dtype=np.int64))
    assert at.tolist() == np.searchsorted(sorted_keys, values).tolist()
    assert found.tolist() == [v in keys for v in values]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.none() | st.text(max_size=5).filter(lambda t: not any("\ud800" <= c <= "\udfff" for c in t))
                | st.sampled_from(["", "a", "é", "日本"]), max_size=30))
def test_strings_is_the_arrow_array_of_the_values(values: list[str | None]) -> None:
    """strings() builds the buffers itself (ASCII, non-ASCII, nulls, all nulls, empty): the array is
    the one pyarrow makes of the same values."""
    made = strings(values)
    assert made.equals(pa.array(values, type=pa.string())) and made.null_count == values.count(None)
    assert strings(tuple(values)).equals(made)
