"""The baseline file: the numbers a gate defends, and who lowered them and why."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragauge._version import __version__
from ragauge.errors import InputError
from ragauge.evaluation.result import Evaluation
from ragauge.gate.config import GateRules
from ragauge.gitinfo import git

BASELINE_VERSION = 1


@dataclass(frozen=True)
class Baseline:
    """A stored evaluation summary with the per-question values the gate pairs against."""

    data: dict[str, Any]
    path: Path

    @property
    def golden_hash(self) -> str:
        return str(self.data["golden_hash"])

    @property
    def metrics(self) -> dict[str, float]:
        return dict(self.data["metrics"])

    @property
    def contract(self) -> dict[str, Any]:
        return dict(self.data["contract"])

    @property
    def queries(self) -> dict[str, dict[str, float]]:
        return dict(self.data.get("queries", {}))

    @property
    def by_tag(self) -> dict[str, dict[str, float]]:
        return dict(self.data.get("by_tag", {}))


def history_path(baseline_path: Path) -> Path:
    """``eval/baseline.json`` -> ``eval/baseline.history.jsonl``."""
    return baseline_path.with_name(baseline_path.stem + ".history.jsonl")


def read_baseline(path: Path) -> Baseline:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("baseline file not found", where=str(path),
                         hint="create it with: ragauge baseline update GOLDEN --run RUN --baseline PATH --reason '...'") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"baseline is not valid JSON: {exc}", where=str(path)) from None
    if not isinstance(data, dict) or data.get("ragauge_baseline") != BASELINE_VERSION:
        raise InputError("not a ragauge baseline file", where=str(path))
    return Baseline(data, path)


def make_record(evaluation: Evaluation, rules: GateRules, reason: str, accepted_drops: dict[str, Any],
                now: datetime | None = None) -> dict[str, Any]:
    """The baseline record for ``evaluation`` (pure apart from the git lookups)."""
    return {
        "ragauge_baseline": BASELINE_VERSION,
        "golden_hash": evaluation.meta["golden"]["hash"],
        "golden_path": evaluation.meta["golden"]["path"],
        "run": {"path": evaluation.meta["run"]["path"], "hash": evaluation.meta["run"]["hash"]},
        "contract": evaluation.meta["contract"],
        "metrics": evaluation.summary,
        "by_tag": evaluation.by_tag,
        "queries": {q.id: {**q.values, "first_relevant_rank": q.first_relevant_rank} for q in evaluation.queries},
        "rules": rules.to_dict(),
        "ragauge_version": __version__,
        "created": (now or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
        "git": {"commit": git("rev-parse", "HEAD"), "user": git("config", "user.name"),
                "email": git("config", "user.email")},
        "reason": reason,
        "accepted_drops": accepted_drops,
    }


def update_baseline(path: Path, evaluation: Evaluation, rules: GateRules, *, reason: str | None,
                    accept_drop: bool = False) -> dict[str, Any]:
    """Write a new baseline atomically and append it to the history; return the record.

    Refused without a non-empty ``reason``; refused when any metric is lower than in the
    current baseline unless ``accept_drop`` (the drops are then written into the record).
    """
    if not reason or not reason.strip():
        raise InputError("a baseline update needs a reason", hint='add --reason "why these numbers are the new bar"')
    drops: dict[str, Any] = {}
    previous = read_baseline(path) if path.exists() else None
    if previous is not None:
        for m, old in previous.metrics.items():
            new = evaluation.summary.get(m)
            if new is not None and new < old - 1e-12:
                drops[m] = {"from": old, "to": new, "diff": new - old}
        if drops and not accept_drop:
            listed = ", ".join(f"{m} {d['from']:.4f} -> {d['to']:.4f}" for m, d in drops.items())
            raise InputError(f"refused: the new baseline is lower than the current one ({listed})",
                             where=str(path), hint="if this drop is intended, add --accept-drop; it is recorded")
    record = make_record(evaluation, rules, reason.strip(), drops)
    if previous is not None and previous.golden_hash != record["golden_hash"]:
        record["golden_changed_from"] = previous.golden_hash
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    summary = {k: record[k] for k in ("created", "golden_hash", "metrics", "reason", "accepted_drops", "git",
                                      "ragauge_version")}
    with open(history_path(path), "a", encoding="utf-8") as fh:
        fh.write(json.dumps(summary, ensure_ascii=False) + "\n")
    return record
