"""Which questions a sweep tunes on and which it holds out, so the chosen configuration is measured
on questions it was not chosen on.

- ``fraction`` (e.g. 0.3): a question is held out when the first 8 bytes of
  SHA-256("ragauge-holdout:" + its id), read as an unsigned integer over 2**64, fall below the
  fraction. Deterministic, the same on every machine, and a question's side never depends on the
  other questions: adding questions to the golden set leaves the earlier ones where they were. The
  held-out share is the fraction only on average (a binomial draw).
- ``tag``: the questions carrying the tag are held out (a split made by hand, or by time).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ragauge.core.numbers import PROBABILITY, check_number
from ragauge.data.golden import GoldenSet
from ragauge.errors import InputError, flag


@dataclass(frozen=True)
class Split:
    """The held-out question ids, and the rule in words."""

    held_out: frozenset[str]
    rule: str

    def tunes_on(self, qid: str) -> bool:
        return qid not in self.held_out


def held_out_by_hash(qid: str, fraction: float) -> bool:
    """Whether question ``qid`` is held out at ``fraction`` (see the module docstring)."""
    digest = hashlib.sha256(f"ragauge-holdout:{qid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64 < fraction


def split_questions(golden: GoldenSet, fraction: float | None = None, tag: str | None = None) -> Split | None:
    """The split asked for (None when neither ``fraction`` nor ``tag`` is given). InputError for
    both at once, a fraction outside (0, 1), a tag no question carries, or a split that leaves one
    side without questions."""
    if fraction is None and tag is None:
        return None
    if fraction is not None and tag is not None:
        raise InputError("give a holdout fraction or a holdout tag, not both",
                         hint=f"{flag('holdout', '0.3')} splits by question id; {flag('holdout_tag', 'TAG')} holds out "
                              "the tagged questions")
    if tag is not None:
        held = frozenset(q.id for q in golden if tag in q.tags)
        if not held:
            raise InputError(f"no question carries the holdout tag {tag!r}", hint="check the tag's spelling")
        rule = f"questions tagged {tag!r} held out"
    else:
        fraction = check_number(fraction, "the holdout fraction", PROBABILITY, hint="e.g. " + flag("holdout", "0.3"))
        held = frozenset(q.id for q in golden if held_out_by_hash(q.id, fraction))
        rule = f"{fraction:g} of the questions held out by a hash of their id"
    if len(held) == len(golden) or not held:
        side = "no question to tune on" if held else "no question to hold out"
        raise InputError(f"the holdout ({rule}) leaves {side}",
                         hint="use a fraction between 0 and 1 that leaves questions on both sides, or another tag")
    return Split(held, rule)
