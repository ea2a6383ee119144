"""Vectorized helpers over Arrow columns (imported lazily: pulls in numpy and pyarrow).

Arrays cross between numpy and Arrow only through :func:`from_numpy`, :func:`strings` and
:func:`to_numpy`: ``pa.array``, ``pa.scalar`` and ``Array.to_numpy(zero_copy_only=False)`` first
check whether the value is a pandas object, which imports pandas when it is installed (about
0.3 s, more than evaluating a 500-question golden set).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)
_BLOCK = 1 << 20
_ALL_BITS = np.uint64((1 << 64) - 1)
_WORD_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: spreads every input bit over the output."""
    h ^= h >> np.uint64(30)
    h *= _M2
    h ^= h >> np.uint64(27)
    h *= _M3
    h ^= h >> np.uint64(31)
    return h


def from_numpy(values: np.ndarray) -> pa.Array:
    """A 1-D numeric or boolean numpy array as an Arrow array (numeric: without a copy)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def strings(values: Sequence[str | None]) -> pa.Array:
    """A ``string`` array from Python strings (None is null)."""
    import pyarrow as pa

    n = len(values)
    nulls = values.count(None) if isinstance(values, list) else sum(v is None for v in values)
    texts: Sequence[str] = (values if not nulls else [""] * n if nulls == n  # type: ignore[assignment]
                            else ["" if v is None else v for v in values])
    text = "".join(texts)
    data = text.encode("utf-8")
    offsets = np.zeros(n + 1, dtype=np.int64)
    if len(data) == len(text):  # ASCII: a string's bytes are its characters
        np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=n), out=offsets[1:])
    else:
        np.cumsum(np.fromiter((len(t.encode("utf-8")) for t in texts), dtype=np.int64, count=n), out=offsets[1:])
    large = offsets[-1] >= 2**31
    buffers = [None, pa.py_buffer(offsets if large else offsets.astype(np.int32)), pa.py_buffer(data)]
    if nulls:
        valid = np.zeros(n, dtype=bool) if nulls == n else np.fromiter((v is not None for v in values), bool, n)
        buffers[0] = pa.py_buffer(np.packbits(valid, bitorder="little"))
    array = pa.Array.from_buffers(pa.large_string() if large else pa.string(), n, buffers, null_count=nulls)
    if not large:
        return array
    from ragauge.core import compute as pc

    return pc.cast(array, pa.string())


def to_numpy(values: pa.Array | pa.ChunkedArray, null: float | None = None) -> np.ndarray:
    """A numeric or boolean Arrow array (chunked or not) as numpy; nulls become ``null``
    (an error when it is None). Numeric chunks without nulls are viewed, not copied."""
    import pyarrow as pa

    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = [_chunk_to_numpy(c, null) for c in chunks]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return np.zeros(0, dtype=np.bool_ if pa.types.is_boolean(values.type) else _numpy_dtype(values.type))
    return np.concatenate(parts)


def _bits(buffer: pa.Buffer, offset: int, n: int) -> np.ndarray:
    raw = np.frombuffer(buffer, dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little", count=offset + n)[offset:].astype(bool)


def _numpy_dtype(arrow_type: pa.DataType) -> np.dtype[Any]:
    """The numpy dtype of a numeric Arrow type. Not ``to_pandas_dtype()``, which imports pandas
    (~0.3 s) in pyarrow before 26 whenever pandas is installed (it is with mlflow)."""
    import pyarrow as pa

    if pa.types.is_integer(arrow_type):
        return np.dtype(f"{'u' if pa.types.is_unsigned_integer(arrow_type) else ''}int{arrow_type.bit_width}")
    if pa.types.is_floating(arrow_type):
        return np.dtype(f"float{arrow_type.bit_width}")
    other: np.dtype[Any] = np.dtype(arrow_type.to_pandas_dtype())
    return other


def _chunk_to_numpy(chunk: pa.Array, null: float | None) -> np.ndarray:
    import pyarrow as pa

    n, offset = len(chunk), chunk.offset
    validity, data = chunk.buffers()[:2]
    if pa.types.is_boolean(chunk.type):
        out = _bits(data, offset, n) if n else np.zeros(0, dtype=bool)
    else:
        dtype = _numpy_dtype(chunk.type)
        out = np.frombuffer(data, dtype=dtype, count=n, offset=offset * dtype.itemsize) if n else np.zeros(0, dtype)
    if chunk.null_count:
        if null is None:
            raise ValueError("the array has nulls")
        out = out.astype(np.result_type(out.dtype, np.min_scalar_type(null)), copy=True)
        out[~_bits(validity, offset, n)] = null
    return out


def as_string_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous ``string`` array (chunks combined, large_string cast down)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if values.type != pa.string():
        from ragauge.core import compute as pc

        values = pc.cast(values, pa.string())
    return values


def string_column(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``values`` as ``string``, chunks kept as they are (combining copies every byte)."""
    import pyarrow as pa

    from ragauge.core import compute as pc

    return values if values.type == pa.string() else pc.cast(values, pa.string())


def take(values: pa.Array | pa.ChunkedArray, indices: np.ndarray) -> pa.Array:
    """``values[indices]`` as one array. A chunked column is read chunk by chunk: Arrow's own
    take on a chunked array may first join every chunk, a full copy per call."""
    import pyarrow as pa

    from ragauge.core import compute as pc

    indices = np.asarray(indices, dtype=np.int64)
    if not isinstance(values, pa.ChunkedArray):
        return pc.take(values, from_numpy(indices))
    if values.num_chunks == 1:
        return pc.take(values.chunk(0), from_numpy(indices))
    if len(indices) == 0:
        return values.chunk(0).slice(0, 0) if values.num_chunks else pa.nulls(0, values.type)
    bounds = np.cumsum([0] + [len(c) for c in values.chunks])
    ascending = bool(np.all(indices[1:] >= indices[:-1]))
    order = None if ascending else np.argsort(indices, kind="stable")
    wanted = indices if order is None else indices[order]
    cuts = np.searchsorted(wanted, bounds)
    parts = [pc.take(values.chunk(i), from_numpy(wanted[cuts[i]:cuts[i + 1]] - bounds[i]))
             for i in range(values.num_chunks) if cuts[i + 1] > cuts[i]]
    joined = pa.concat_arrays(parts)
    if order is None:
        return joined
    back = np.empty(len(order), dtype=np.int64)
    back[order] = np.arange(len(order), dtype=np.int64)
    return pc.take(joined, from_numpy(back))


def hash64(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A 64-bit fingerprint per string, equal for equal strings.

    Built from the length and every 8-byte word of the string (mixed between words, not after
    the last: the values are compared and sorted, never bucketed), so distinct strings share
    a fingerprint only by chance; callers confirm candidate equalities exactly. Works chunk by
    chunk and in blocks of strings to keep temporary memory small.
    """
    import pyarrow as pa

    values = string_column(values)
    out = np.empty(len(values), dtype=np.uint64)
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    at = 0
    for chunk in chunks:
        _hash_chunk(chunk, out[at:at + len(chunk)])
        at += len(chunk)
    return out


def _hash_chunk(values: pa.Array, out: np.ndarray) -> None:
    n = len(values)
    if n == 0:
        return
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32, count=n + 1, offset=values.offset * 4)
    data = values.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    end = int(offsets[-1])
    if len(raw) < end + 8:  # room to read 8 bytes at every string start
        raw = np.concatenate([raw[:end], np.zeros(8, np.uint8)])
    windows = np.ndarray(shape=(len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))  # a word at every byte
    for lo in range(0, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        starts = offsets[lo:hi]
        lengths = offsets[lo + 1:hi + 1] - starts
        h = out[lo:hi]  # worked on in place
        with np.errstate(over="ignore"):
            h[...] = lengths
            h *= _M1
            if len(lengths):  # the first word: its bytes past the string's end masked away by a shift
                first = windows[starts]
                first &= _ALL_BITS >> ((8 - np.minimum(lengths, 8)) * 8).astype(np.uint64)  # >> 64 is 0 in numpy
                h ^= first
            for word in range(8, int(lengths.max(initial=0)), 8):  # one pass per further 8 bytes of the longest
                live = np.flatnonzero(lengths > word)
                w = windows[starts[live] + word] & _WORD_MASKS[np.minimum(lengths[live] - word, 8)]
                h[live] = _mix(h[live]) ^ w


def fingerprint_slots(fingerprints: np.ndarray, bits: int) -> np.ndarray:
    """A slot in ``[0, 2**bits)`` per fingerprint (:func:`hash64`), as int64: the top ``bits`` of the
    product with an odd constant (multiplicative hashing), which depend on every bit of the
    fingerprint. Equal fingerprints, equal slots; unequal ones share a slot by chance (1 in 2**bits)."""
    slots: np.ndarray = np.asarray(fingerprints, dtype=np.uint64) * _M1
    slots >>= np.uint64(64 - bits)
    return slots.view(np.int64)


def group_starts(values: pa.Array) -> np.ndarray:
    """Indices where a new run of equal adjacent values starts (always includes 0 when non-empty)."""
    from ragauge.core import compute as pc

    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    change = to_numpy(pc.not_equal(values[1:], values[:-1]))
    return np.concatenate([[0], np.flatnonzero(change) + 1]).astype(np.int64)


def find_sorted(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each value, ``np.searchsorted(keys, value)`` and whether ``keys`` (sorted) holds it
    there: ``keys[at[found]] == values[found]``."""
    at = np.searchsorted(keys, values)
    found = np.zeros(len(at), dtype=bool)
    inside = at < len(keys)
    found[inside] = keys[at[inside]] == np.asarray(values)[inside]
    return at, found


def ragged_arange(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``range(s, s + n)`` for each start/length pair, without a Python loop."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    new_starts = np.cumsum(lengths) - lengths
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - new_starts, lengths)
    return np.asarray(np.arange(total, dtype=np.int64) + shift)
