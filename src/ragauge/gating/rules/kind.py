"""The shape of a gate rule kind (``gating.rules.registry`` lists them): the ``[gate]`` keys it owns,
how it reads them into ``GateRules`` fields, how it checks an evaluation against the baseline, and
how a change of its settings lets through what the stored rules would fail."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation
    from ragauge.gating.baseline import Baseline
    from ragauge.gating.config import GateRules
    from ragauge.gating.outcome import RuleOutcome


@dataclass(frozen=True)
class Context:
    """What every rule checks: the evaluation, the baseline, the rules, and the rows' question ids."""

    evaluation: Evaluation
    baseline: Baseline
    rules: GateRules

    @cached_property
    def ids(self) -> list[str]:
        """Each row's question id (the rules read the columns, not the rows: a fresh evaluation makes a
        row each time one is read)."""
        return self.evaluation.row_ids

    @cached_property
    def tag_rows(self) -> dict[str, list[int]]:
        """Tag -> the numbers of its rows."""
        from ragauge.evaluation.tags import group_by_tag

        return group_by_tag(range(len(self.ids)), self.evaluation.row_tags.__getitem__)


@dataclass(frozen=True)
class RuleKind:
    """One kind of gate rule.

    ``keys`` are the ``[gate]`` keys it owns; ``read(table, path)`` returns the ``GateRules`` fields
    it sets from them (InputError naming the key's line for a bad value), ``check(context)`` its
    outcomes, and ``loosened(now, stored)`` how ``now`` lets through what ``stored`` would fail, in
    words (empty: as strict or stricter)."""

    name: str
    keys: tuple[str, ...]
    read: Callable[[Mapping[str, Any], Path], dict[str, Any]]
    check: Callable[[Context], Sequence[RuleOutcome]]
    loosened: Callable[[GateRules, GateRules], list[str]]
