"""Duplicate and near-duplicate questions.

Two questions are **duplicates** when their normalised text is equal: Unicode NFKC, case-folded,
every run of non-word characters a single space, trimmed ("How do I reset my VPN password?" ==
"how do i reset my vpn  password").

They are **near-duplicates** when the Jaccard similarity of their sets of normalised words is at
least ``NEAR_DUPLICATE_JACCARD`` (0.8): the same words in another order, or one word added or
dropped in a question of five words or more. Paraphrases with different words are not flagged
(a golden set wants them), and neither are questions differing in one code ("E-301" vs "E-302").

Pairs are found exactly with prefix filtering (the all-pairs similarity join of Bayardo et al.,
2007): words are ordered rarest first, each question indexes only its first
``|x| - ceil(t * |x|) + 1`` words, and two questions with Jaccard >= t must share one of those,
so only questions sharing a rare word are ever compared. That is close to O(n log n) on real
question sets; it degrades towards n^2 only when thousands of questions share all their words.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence

NEAR_DUPLICATE_JACCARD = 0.8

_NON_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """NFKC, case-folded, non-word runs to one space, trimmed."""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b| (1.0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def near_duplicate_pairs(texts: Sequence[str], threshold: float = NEAR_DUPLICATE_JACCARD,
                         ) -> list[tuple[int, int, float]]:
    """Every pair ``(i, j, similarity)`` with i < j whose word-set Jaccard is >= ``threshold``
    (exact: the same pairs as comparing all of them), sorted by i then j. Texts with no words are
    left out."""
    if not 0 < threshold <= 1:
        raise ValueError("threshold must be in (0, 1]")
    sets = [frozenset(normalise(t).split()) for t in texts]
    frequency: dict[str, int] = {}
    for word_set in sets:
        for w in word_set:
            frequency[w] = frequency.get(w, 0) + 1
    order = sorted((i for i, s in enumerate(sets) if s), key=lambda i: (len(sets[i]), i))
    index: dict[str, list[int]] = {}
    pairs: list[tuple[int, int, float]] = []
    for i in order:
        words = sorted(sets[i], key=lambda w: (frequency[w], w))
        size = len(words)
        prefix = size - math.ceil(threshold * size - 1e-9) + 1
        candidates: set[int] = set()
        for w in words[:prefix]:
            candidates.update(index.get(w, ()))
        for j in candidates:
            # j was indexed earlier, so |sets[j]| <= size; the size filter is a cheap exact bound.
            if len(sets[j]) < threshold * size - 1e-9:
                continue
            similarity = jaccard(sets[i], sets[j])
            if similarity >= threshold - 1e-9:
                pairs.append((min(i, j), max(i, j), similarity))
        for w in words[:prefix]:
            index.setdefault(w, []).append(i)
    return sorted(pairs)
