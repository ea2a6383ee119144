"""A deterministic shard of a golden set: ``I/N`` holds the questions whose id hashes to I - 1
modulo N, so N machines each running one shard call every question exactly once, whatever the
file order, and a shard keeps its questions when others are added."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ragauge.data.golden import GoldenSet
from ragauge.errors import InputError, flag

MAX_SHARDS = 1_000_000


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not (1 <= self.count <= MAX_SHARDS and 1 <= self.index <= self.count):
            raise InputError(f"a shard is I/N with 1 <= I <= N <= {MAX_SHARDS:,}, got {self.index}/{self.count}",
                             hint=f"e.g. {flag('shard', '1/4')} ... {flag('shard', '4/4')}")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, question_id: str) -> bool:
        """Whether the question belongs here: the first 8 bytes of sha256(id), modulo ``count``."""
        digest = hashlib.sha256(question_id.encode("utf-8", "surrogatepass")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def select(self, golden: GoldenSet) -> GoldenSet:
        """This shard's questions, in golden order."""
        return GoldenSet.from_queries([q for q in golden if self.holds(q.id)], source=golden.source)

    def describe(self, golden: GoldenSet, selected: GoldenSet) -> dict[str, Any]:
        """The ``shard`` record of a run file's ``_meta``: which shard of which whole golden set."""
        return {"index": self.index, "count": self.count, "golden_hash": golden.content_hash,
                "golden_questions": len(golden), "questions": len(selected)}


def parse_shard(text: str) -> Shard:
    """``"2/4"`` -> Shard(2, 4); InputError for anything else."""
    index, sep, count = str(text).partition("/")
    try:
        if not sep:
            raise ValueError
        return Shard(int(index), int(count))
    except ValueError:
        raise InputError(f"{flag('shard')} takes I/N (two whole numbers), got {text!r}",
                         hint="e.g. " + flag("shard", "2/4")) from None
