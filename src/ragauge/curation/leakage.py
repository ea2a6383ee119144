"""Leakage: a drafted question that copies its source text, so that any lexical retriever finds
the section by the copied words and the question measures nothing a user would ask.

**The rule.** Both texts are cut into words as ``ragauge.curation.similarity`` normalises them
(Unicode NFKC, case-folded, every run of non-word characters a separator). The *copied run* is the
longest sequence of consecutive question words that also appears, consecutively and in the same
order, in the source text (the section's title or its body). A question is flagged as copied when
that run is at least ``LEAK_RUN`` (8) words long, or at least ``LEAK_SHORT_RUN`` (5) words that
make up at least ``LEAK_SHARE`` (half) of the question's words.

So "What happens during a lockout you cannot log in to the laptop?" against "During a lockout you
cannot log in to the laptop, email or ..." is flagged (a 10-word run); "How long does an account
stay locked after wrong passwords?" against "Your account is locked for 15 minutes after 10 wrong
password attempts" is not (no two words in a row are shared: "passwords" is not "password").
Shorter shared phrases (a product name, an error code, a few words of a heading) are how users ask,
and are not flagged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragauge.curation.similarity import normalise

LEAK_RUN = 8
LEAK_SHORT_RUN = 5
LEAK_SHARE = 0.5


@dataclass(frozen=True)
class Leakage:
    """How much of a question is copied from its source: ``run`` words in a row (``copied``, as
    normalised words), ``share`` of the question's ``words``, and whether that is ``flagged``."""

    run: int
    words: int
    copied: str

    @property
    def share(self) -> float:
        return self.run / self.words if self.words else 0.0

    @property
    def flagged(self) -> bool:
        return self.run >= LEAK_RUN or (self.run >= LEAK_SHORT_RUN and self.share >= LEAK_SHARE)

    def to_dict(self) -> dict[str, Any]:
        return {"copied": self.flagged, "run": self.run, "share": round(self.share, 3),
                **({"phrase": self.copied} if self.run else {})}


def words(text: str) -> list[str]:
    """The normalised words of ``text``."""
    return normalise(text).split()


def longest_run(question: list[str], source: list[str]) -> tuple[int, int]:
    """``(length, start in question)`` of the longest run of consecutive ``question`` words found
    consecutively in ``source`` (0, 0 when they share no word). The first such run on ties."""
    at: dict[str, list[int]] = {}
    for j, w in enumerate(source):
        at.setdefault(w, []).append(j)
    best, start = 0, 0
    previous: dict[int, int] = {}  # end position in source -> run length ending at the previous question word
    for i, w in enumerate(question):
        current = {j: previous.get(j - 1, 0) + 1 for j in at.get(w, ())}
        for length in current.values():
            if length > best:
                best, start = length, i - length + 1
        previous = current
    return best, start


def leakage(question: str, *sources: str) -> Leakage:
    """The leakage of ``question`` against each of ``sources`` (e.g. a section's title and body):
    the longest copied run found in any of them."""
    asked = words(question)
    best, start = 0, 0
    for source in sources:
        run, at = longest_run(asked, words(source))
        if run > best:
            best, start = run, at
    return Leakage(best, len(asked), " ".join(asked[start:start + best]))
