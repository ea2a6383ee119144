"""The gate's rule kinds, in the order their outcomes are listed. A new kind is one module beside these
(its ``KIND``: keys, read, check, loosened), its ``GateRules`` field and one line here."""

from __future__ import annotations

from ragauge.gating.rules import critical, metric, tag_floor
from ragauge.gating.rules.kind import RuleKind

RULE_KINDS: tuple[RuleKind, ...] = (metric.KIND, tag_floor.KIND, critical.KIND)

KNOWN: tuple[str, ...] = tuple(key for kind in RULE_KINDS for key in kind.keys)
"""Every ``[gate]`` key some rule kind owns."""
