"""Process-wide settings for the evaluation commands of the CLI (never applied on ``import ragauge``)."""

from __future__ import annotations

import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
GC_OBJECTS = 100_000
"""New container objects between two runs of the cyclic garbage collector (Python's default: 700)."""


def tune_for_batch() -> None:
    """Settings that suit one short-lived process working through large arrays.

    Fresh memory is what a large evaluation mostly pays for (on a VM, first-touch page faults
    cost more than the arithmetic), so the process keeps what it freed and reuses it:

    - glibc's malloc serves every array above 32 MB with its own ``mmap`` and unmaps it when
      freed, so each temporary of a 7M-row run faults in anew. ``M_MMAP_MAX=0`` keeps large
      arrays on the heap and a high ``M_TRIM_THRESHOLD`` keeps freed heap for reuse.
    - numpy asks for transparent huge pages on large arrays; where the kernel then compacts
      memory synchronously (``defrag=madvise``) each new array stalls. The documented switch
      ``NUMPY_MADVISE_HUGEPAGE=0`` turns that off (numpy reads it when first imported, which
      the CLI does lazily, after this runs); a value the user set is kept.

    - Python's cyclic garbage collector runs after every 700 new container objects, and each
      run of an older generation walks every object alive. An evaluation makes hundreds of
      thousands of short-lived tuples and dicts (the per-question rows, the report) and no
      cycles worth collecting early: a collection every 100,000 objects cut ``ragauge eval``'s
      CPU time on a 7,000-question run by ~0.3 s (issue 17), with no more memory.

    Together the first two took ``ragauge trec-eval`` on a 7M-row run from about 3.4 s to 2.3 s of
    wall time (benchmarks/README.md). Elsewhere than glibc the malloc part is skipped.
    """
    tune_collector()
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        if hasattr(libc, "gnu_get_libc_version"):
            libc.mallopt(_M_MMAP_MAX, 0)
            libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    except (OSError, AttributeError):  # not glibc
        pass


def tune_collector() -> None:
    """The cyclic garbage collector's part of ``tune_for_batch`` alone, for ``ragauge run``: it keeps
    every answer it records (a Hit, its dict and a tuple per hit, with no cycles among them), so each
    collection of an older generation walks tens of thousands more objects as the run goes on. At
    every ``GC_OBJECTS`` new containers instead of 700, a run against a loopback HTTP retriever used
    5 % fewer instructions a question (callgrind, 2,500 questions, issue 17)."""
    import gc

    gc.set_threshold(GC_OBJECTS, *gc.get_threshold()[1:])
