"""The pytest plugin: ``pytest --ragauge-golden GOLDEN --ragauge-run RUN --ragauge-baseline BASELINE``
adds one test per gate rule (each metric, tag floor and critical question) to the session, so a
retrieval regression fails like any other test, with the rule's numbers and questions as its
report. Without ``--ragauge-golden`` the plugin adds nothing and imports nothing heavy.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ragauge.gating.check import GateResult, RuleOutcome


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragauge", "retrieval quality gate (ragauge)")
    group.addoption("--ragauge-golden", metavar="GOLDEN", help="Golden set: add one test per ragauge gate rule.")
    group.addoption("--ragauge-run", metavar="RUN", help="Run file to gate (with --ragauge-golden).")
    group.addoption("--ragauge-baseline", metavar="PATH", default="eval/baseline.json",
                    help="Baseline file (default eval/baseline.json).")
    group.addoption("--ragauge-config", metavar="PATH", help="ragauge.toml with [gate] rules (found if omitted).")


class GateRule(pytest.Item):  # type: ignore[misc, unused-ignore]  # Any without pytest installed
    """One rule of the gate; the gate itself runs once per session (the first rule runs it)."""

    def __init__(self, *, outcome_index: int, gate: _Gate, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.outcome_index = outcome_index
        self.gate = gate

    def runtest(self) -> None:
        outcome = self.gate.result().outcomes[self.outcome_index]
        if not outcome.passed:
            raise RuleFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, RuleFailed):
            return excinfo.value.report()
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.gate.golden), 0, f"ragauge gate: {self.name}"


class RuleFailed(Exception):
    def __init__(self, outcome: RuleOutcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome

    def report(self) -> str:
        from ragauge.core.escape import terminal
        from ragauge.reports.gate import question_line

        lines = [terminal(self.outcome.rule), terminal(self.outcome.message)]
        lines += [f"  - {terminal(question_line(q))}" for q in self.outcome.questions]
        return "\n".join(lines)


class _Gate:
    """The gate's inputs and its result, computed on first use."""

    def __init__(self, golden: str, run: str, baseline: str, config: str | None) -> None:
        self.golden, self.run, self.baseline, self.config = golden, run, baseline, config
        self._result: GateResult | None = None

    def result(self) -> GateResult:
        if self._result is None:
            from ragauge.config import find_config
            from ragauge.gating.run import gate

            self._result = gate(self.golden, self.run, self.baseline,
                                rules=self.config if self.config else find_config())
        return self._result


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    golden = config.getoption("ragauge_golden")
    if not golden:
        return
    run = config.getoption("ragauge_run")
    if not run:
        raise pytest.UsageError("--ragauge-golden needs --ragauge-run RUN (the run file to gate)")
    from ragauge.errors import RagaugeError

    gate = _Gate(golden, run, config.getoption("ragauge_baseline"), config.getoption("ragauge_config"))
    try:
        outcomes = gate.result().outcomes  # the rules are known only from the gate's result
    except RagaugeError as exc:
        raise pytest.UsageError(f"ragauge gate: {exc}") from None
    for i, outcome in enumerate(outcomes):
        items.append(GateRule.from_parent(session, name=f"ragauge[{outcome.rule}]", outcome_index=i, gate=gate))
