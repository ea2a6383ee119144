"""What a gate says: each rule's outcome (``RuleOutcome``) and the verdict (``GateResult``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

GATE_VERSION = 1


@dataclass(frozen=True)
class RuleOutcome:
    """One rule: what it demands, whether it held, the numbers, and the questions behind a failure."""

    kind: str
    rule: str
    passed: bool
    message: str
    questions: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "rule": self.rule, "passed": self.passed, "message": self.message,
                "questions": self.questions}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RuleOutcome:
        return cls(str(d["kind"]), str(d["rule"]), bool(d["passed"]), str(d["message"]), list(d.get("questions", [])))


@dataclass(frozen=True)
class GateResult:
    outcomes: list[RuleOutcome]
    meta: dict[str, Any]

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def failures(self) -> list[RuleOutcome]:
        return [o for o in self.outcomes if not o.passed]

    def to_dict(self) -> dict[str, Any]:
        return {"ragauge_gate": GATE_VERSION, "passed": self.passed,
                "outcomes": [o.to_dict() for o in self.outcomes], "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GateResult:
        """The inverse of ``to_dict``; InputError for another version."""
        if d.get("ragauge_gate") != GATE_VERSION:
            from ragauge.errors import InputError

            raise InputError(f"not a ragauge gate result (version {d.get('ragauge_gate')!r})")
        return cls([RuleOutcome.from_dict(o) for o in d["outcomes"]], dict(d["meta"]))
