"""The leakage rule: the longest run of consecutive words a question shares with its source text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.curation.leakage import LEAK_RUN, LEAK_SHORT_RUN, leakage, longest_run

TEXT = ("Your account is locked for 15 minutes after 10 wrong password attempts in a row. During a lockout you "
        "cannot log in to the laptop, email or any single sign-on application, even with the right password.")


@pytest.mark.parametrize(("question", "run", "copied"), [
    ("What happens during a lockout you cannot log in to the laptop?", 10, True),   # the module's example
    ("How long does an account stay locked after wrong passwords?", 1, False),       # "passwords" != "password"
    ("YOUR ACCOUNT is locked, for 15... minutes?", 7, True),                         # case and punctuation ignored
    ("why is it locked for 15 minutes after all", 5, True),                          # 5 of 9 words: half or more
    ("why would the system tell me it is locked for 15 minutes this morning", 5, False),  # 5 of 14 words
    ("since this morning my laptop email or any single sign on application keeps refusing me after I typed it",
     8, True),                                                                       # 8 in a row (of 19)
    ("since this morning my laptop email or any single sign on thing keeps refusing me after I typed it",
     7, False),                                                                      # 7 of 19
    ("", 0, False), ("VPN-809 on the guest wifi", 1, False),
])
def test_the_rule(question: str, run: int, copied: bool) -> None:
    leak = leakage(question, TEXT)
    assert (leak.run, leak.flagged) == (run, copied)
    assert leak.to_dict()["copied"] is copied


def test_the_longest_source_counts_and_the_phrase_is_reported() -> None:
    leak = leakage("Locked-out accounts: what to do when it keeps locking again?", "Locked-out accounts", TEXT)
    assert leak.run == 3 and leak.copied == "locked out accounts" and not leak.flagged
    assert leak.to_dict() == {"copied": False, "run": 3, "share": 0.273, "phrase": "locked out accounts"}


def test_the_thresholds_are_the_documented_ones() -> None:
    assert (LEAK_RUN, LEAK_SHORT_RUN) == (8, 5)


@given(st.lists(st.sampled_from("a b c d e".split()), max_size=12), st.lists(st.sampled_from("a b c d e".split()),
                                                                                max_size=30))
def test_longest_run_is_the_longest_common_substring(question: list[str], source: list[str]) -> None:
    def brute() -> int:
        best = 0
        for i in range(len(question)):
            for j in range(i + 1, len(question) + 1):
                piece = question[i:j]
                if any(source[k:k + len(piece)] == piece for k in range(len(source) - len(piece) + 1)):
                    best = max(best, len(piece))
        return best

    run, start = longest_run(question, source)
    assert run == brute()
    if run:
        piece = question[start:start + run]
        assert any(source[k:k + run] == piece for k in range(len(source) - run + 1))
