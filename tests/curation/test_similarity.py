from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.curation.similarity import jaccard, near_duplicate_pairs, normalise

WORDS = st.sampled_from(["reset", "vpn", "password", "printer", "e-301", "how", "do", "i", "my", "the", "on", "mac"])


def brute_force(texts: list[str], threshold: float) -> list[tuple[int, int, float]]:
    sets = [frozenset(normalise(t).split()) for t in texts]
    return [(i, j, jaccard(sets[i], sets[j])) for i, j in combinations(range(len(texts)), 2)
            if sets[i] and sets[j] and jaccard(sets[i], sets[j]) >= threshold - 1e-9]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=9).map(" ".join), max_size=25),
       st.sampled_from([0.5, 0.6, 0.75, 0.8, 0.9, 1.0]))
def test_prefix_filtering_finds_exactly_the_pairs_brute_force_finds(texts: list[str], threshold: float) -> None:
    assert near_duplicate_pairs(texts, threshold) == brute_force(texts, threshold)


def test_normalise_and_examples() -> None:
    assert normalise("  How do I reset my VPN-password?? ") == "how do i reset my vpn password"
    pairs = near_duplicate_pairs([
        "How do I reset my VPN password?",          # 0
        "reset my VPN password, how do I",          # 1: same words, other order
        "How do I reset my VPN password on a Mac",  # 2: 2 words added to 7 -> 7/9 = 0.78, not flagged
        "Printer shows E-301",                      # 3
        "Printer shows E-302",                      # 4: one code differs -> 3/5, not flagged
        "How can I reset my VPN password today?",   # 5: 6/9, a paraphrase, not flagged
    ])
    assert [(i, j) for i, j, _ in pairs] == [(0, 1)]


def test_thousands_of_questions_are_fast() -> None:
    import time

    texts = [f"question {i} about topic {i % 97} and item {i * 7919 % 10007}" for i in range(5000)]
    start = time.perf_counter()
    near_duplicate_pairs(texts)
    assert time.perf_counter() - start < 10
