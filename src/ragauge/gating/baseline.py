"""The baseline file: the numbers a gate defends, and who lowered them and why."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from ragauge._version import __version__
from ragauge.core.files import append_line, atomic_writer
from ragauge.core.gitinfo import git
from ragauge.core.jsonl import dumps, read_json
from ragauge.core.numbers import COUNT, check_number
from ragauge.errors import BaselineEdited, InputError, flag
from ragauge.evaluation.result import Evaluation
from ragauge.gating.config import GateRules
from ragauge.metrics.spec import lower_is_better, value_range

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

    @cached_property
    def queries(self) -> dict[str, dict[str, float]]:
        """Question id -> its stored values: a copy of the record's, made once (the gate's rules read
        it per question; a copy made on every read was quadratic in the golden set)."""
        return dict(self.data.get("queries", {}))

    @property
    def rules(self) -> GateRules | None:
        """The rules recorded with the baseline (None in a record that has none)."""
        raw = self.data.get("rules")
        return GateRules.from_dict(raw, f"{self.path} (the rules recorded in the baseline)") \
            if isinstance(raw, dict) else None

    @property
    def by_tag(self) -> dict[str, dict[str, float]]:
        return dict(self.data.get("by_tag", {}))

    @property
    def auto_labels(self) -> dict[str, Any] | None:
        """The automatic labels a prediction-powered baseline was measured with (None for a plain one):
        their ``assessor``, ``identity`` (``AutoLabels.identity``), ``golden`` questions hash and
        ``path``, the ``unlabelled`` questions and every question's ``automatic`` values."""
        raw = self.data.get("auto_labels")
        return dict(raw) if isinstance(raw, dict) else None

    def to_dict(self) -> dict[str, Any]:
        """The record as stored (``ragauge_baseline`` is its version)."""
        return dict(self.data)

    @classmethod
    def from_dict(cls, data: Any, path: str | Path = "<baseline>") -> Baseline:
        """A baseline from its stored record, every field checked (InputError naming ``path`` and the
        field for a missing key, a wrong type, or a value outside its range)."""
        check_record(data, str(path))
        return cls(dict(data), Path(path))


def history_path(baseline_path: Path) -> Path:
    """``eval/baseline.json`` -> ``eval/baseline.history.jsonl``."""
    return baseline_path.with_name(baseline_path.stem + ".history.jsonl")


def read_baseline(path: Path) -> Baseline:
    """The baseline in ``path``, every field checked (see ``Baseline.from_dict``) and checked for
    consistency (``check_consistent``)."""
    if not path.exists():
        raise InputError("baseline file not found", where=str(path),
                         hint="create it with: ragauge baseline update GOLDEN --run RUN --baseline PATH --reason '...'")
    found = Baseline.from_dict(read_json(path, what="baseline"), path)
    check_consistent(found, history_path(path))
    return found


def digest(record: dict[str, Any]) -> str:
    """sha256 of the record's canonical JSON, without its own ``digest`` field."""
    body = {k: v for k, v in record.items() if k != "digest"}
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def check_consistent(found: Baseline, history: Path) -> None:
    """InputError (exit 2) naming what disagrees when a baseline was edited by hand: a stored mean
    that does not follow from its per-question values, a ``digest`` missing or not matching the
    record, a history file missing or empty (``baseline update`` writes both files: without the
    history the record can be rewritten consistently, digest and all, with nothing to show it), or a
    record that is not the last one its history file holds (same creation time, means and digest).
    A baseline written by ``baseline update`` and kept with its history always passes."""
    where = str(found.path)
    hint = ("a baseline is changed only by: ragauge baseline update GOLDEN --run RUN --baseline PATH --reason '...' "
            "(restore the file from version control)")
    rows = list(found.queries.values())
    for m, mean in found.metrics.items():
        values = [row[m] for row in rows if m in row]
        if rows and len(values) == len(rows) and abs(math.fsum(values) / len(values) - mean) > 1e-9:
            raise BaselineEdited(f"the baseline's {m} = {mean:.6f} does not follow from its per-question values "
                             f"(their mean is {math.fsum(values) / len(values):.6f}): the file was edited",
                             where=where, hint=hint)
    stored = found.data.get("digest")
    if stored is None:
        raise BaselineEdited("the baseline has no digest: it was not written by ragauge baseline update, or the "
                             "digest was removed", where=where,
                             hint=hint + "; a baseline from a ragauge that wrote no digest is replaced by removing it "
                             "and running baseline update (its history file is kept and continued)")
    if stored != digest(found.data):
        raise BaselineEdited("the baseline's digest does not match its content: the file was edited", where=where,
                         hint=hint)
    kept = history.exists()
    last = _last_line(history) if kept else None
    if last is None:
        state = "empty" if kept else "missing"
        raise BaselineEdited(f"the baseline's history ({history.name}) is {state}: "
                             "a baseline is checked against the last entry of the history baseline update writes "
                             "beside it", where=where, hint="keep (and commit) the history file beside the baseline, "
                             "or restore both from version control; a new pair is written by: ragauge baseline update "
                             "GOLDEN --run RUN --baseline PATH --reason '...'")
    for key in ("created", "metrics", "digest"):
        if key in last and last[key] != found.data.get(key):
            raise BaselineEdited(f"the baseline's {key} differs from the last entry of its history "
                             f"({history.name}): the file was edited or the two were not updated together",
                             where=where, hint=hint)


def _last_line(history: Path) -> dict[str, Any] | None:
    lines = [line for line in history.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines:
        return None
    try:
        value = json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise InputError(f"the last line of the baseline history is not JSON ({e.msg})", where=str(history),
                         hint="restore the file from version control") from None
    return value if isinstance(value, dict) else None


def check_record(data: Any, where: str) -> None:
    """InputError naming ``where`` and the field for a baseline record that is not one: another
    version, a missing key, a wrong type, a metric value outside its range, a bad rank or count."""
    if not isinstance(data, dict) or data.get("ragauge_baseline") != BASELINE_VERSION:
        raise InputError("not a ragauge baseline file", where=where,
                         hint="a baseline is written by: ragauge baseline update ...")
    hint = "restore the file from version control, or write a new one with: ragauge baseline update ..."

    def need(key: str, kind: type) -> Any:
        if not isinstance(data.get(key), kind):
            raise InputError(f"baseline field '{key}' is missing or not a{'n object' if kind is dict else ' string'}",
                             where=where, hint=hint)
        return data[key]

    def values(table: Any, what: str) -> None:
        if not isinstance(table, dict):
            raise InputError(f"baseline field '{what}' must be an object", where=where, hint=hint)
        for name, value in table.items():
            if name == "first_relevant_rank" and value is None:
                continue
            allowed = COUNT if name in ("first_relevant_rank", "n") else value_range(name)
            check_number(value, f"baseline value {what}.{name}", allowed, where=where, hint=hint)

    need("golden_hash", str)
    need("contract", dict)
    values(need("metrics", dict), "metrics")
    for key in ("queries", "by_tag"):
        table = data.get(key, {})
        if not isinstance(table, dict):
            raise InputError(f"baseline field '{key}' must be an object", where=where, hint=hint)
        for name, row in table.items():
            values(row, f"{key}.{name}")
    if "auto_labels" in data:
        _check_auto_labels(data["auto_labels"], where, hint)


def _check_auto_labels(labels: Any, where: str, hint: str) -> None:
    """The ``auto_labels`` field of a prediction-powered baseline (``make_record``)."""
    if not isinstance(labels, dict) or not all(isinstance(labels.get(k), str) for k in ("assessor", "identity")):
        raise InputError("baseline field 'auto_labels' must be an object with the assessor and identity of the "
                         "automatic labels", where=where, hint=hint)
    unlabelled, automatic = labels.get("unlabelled"), labels.get("automatic")
    if not isinstance(unlabelled, list) or not all(isinstance(q, str) for q in unlabelled):
        raise InputError("baseline field 'auto_labels.unlabelled' must be a list of question ids", where=where,
                         hint=hint)
    if not isinstance(automatic, dict):
        raise InputError("baseline field 'auto_labels.automatic' must be an object", where=where, hint=hint)
    for qid, row in automatic.items():
        if not isinstance(row, dict):
            raise InputError(f"baseline field 'auto_labels.automatic.{qid}' must be an object", where=where,
                             hint=hint)
        for name, value in row.items():
            check_number(value, f"baseline value auto_labels.automatic.{qid}.{name}", value_range(name),
                         where=where, hint=hint)


def make_record(evaluation: Evaluation, rules: GateRules, reason: str, accepted_drops: dict[str, Any],
                now: datetime | None = None) -> dict[str, Any]:
    """The baseline record for ``evaluation`` (pure apart from the git lookups); for a prediction-powered
    evaluation (``--auto-labels``) with ``auto_labels``: which labels, the unlabelled questions and
    every question's automatic values, what a gate pairs the new run's against."""
    record: dict[str, Any] = {
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
    ppi = evaluation.meta.get("ppi")
    if isinstance(ppi, dict):
        labels = ppi["auto_labels"]
        record["auto_labels"] = {"assessor": labels["assessor"], "identity": labels["identity"],
                                 "golden": labels.get("golden"), "path": labels.get("path"),
                                 "unassessed": (ppi.get("coverage") or {}).get("unassessed"),
                                 "unlabelled": list(ppi["unlabelled"]), "automatic": ppi["automatic"]}
    return record


def _worsened(m: str, drop: dict[str, Any]) -> str:
    """One metric of a refused update in words: which way it moved by its direction ("rose" for a count
    where lower is better, ``lower_is_better``), from and to; removed, or n/a for a value that is not finite."""
    if drop.get("removed"):
        return f"{m} {drop['from']:.4f} -> removed from the gated metrics"
    if drop["to"] is None:
        return f"{m} {drop['from']:.4f} -> n/a"
    return f"{m} {'rose' if lower_is_better(m) else 'fell'} {drop['from']:.4f} -> {drop['to']:.4f}"


def write_baseline(path: Path, evaluation: Evaluation, rules: GateRules, *, reason: str | None,
                   previous: Baseline | None, accept_drop: bool = False) -> dict[str, Any]:
    """Write a new baseline atomically and append it to the history; return the record.

    ``previous`` is the baseline now at ``path`` as ``read_baseline`` read it (None: there is none),
    read once by the caller, who needs its rules first. Refused without a non-empty ``reason``;
    refused when any metric is worse than in ``previous`` (lower; higher for a count where lower is
    better, ``lower_is_better``), or the rules looser than its, unless ``accept_drop`` (the drops are
    then written into the record).
    """
    if not reason or not reason.strip():
        raise InputError("a baseline update needs a reason",
                         hint="add " + flag("reason", '"why these numbers are the new bar"'))
    drops: dict[str, Any] = {}
    if previous is not None:
        for m, old in previous.metrics.items():
            new = evaluation.summary.get(m)
            if new is None:
                drops[m] = {"from": old, "to": None, "diff": None, "removed": True}
            elif not math.isfinite(new) or (new > old + 1e-12 if lower_is_better(m) else new < old - 1e-12):
                drops[m] = {"from": old, "to": new if math.isfinite(new) else None,
                            "diff": new - old if math.isfinite(new) else None}
        if drops and not accept_drop:
            listed = ", ".join(_worsened(m, d) for m, d in drops.items())
            raise InputError(f"refused: the new baseline is worse than the current one ({listed})",
                             where=str(path),
                             hint=f"if this drop is intended, add {flag('accept_drop')}; it is recorded")
    not_finite = [m for m, v in evaluation.summary.items() if not math.isfinite(v)]
    if not_finite:
        raise InputError(f"refused: {', '.join(not_finite)} has no value (no answerable question), so it cannot "
                         "be a baseline", where=str(path), hint="add answerable questions to the golden set")
    loosened = rules.loosened_from(previous.rules) if previous is not None and previous.rules else []
    if loosened and not accept_drop:
        raise InputError(f"refused: the new rules are looser than the baseline's ({'; '.join(loosened)})",
                         where=str(path), hint=f"if this is intended, add {flag('accept_drop')}; it is recorded")
    record = make_record(evaluation, rules, reason.strip(), drops)
    if loosened:
        record["accepted_rule_changes"] = loosened
    if previous is not None and previous.golden_hash != record["golden_hash"]:
        record["golden_changed_from"] = previous.golden_hash
    record["digest"] = digest(record)
    summary = {k: record[k] for k in ("created", "golden_hash", "metrics", "reason", "accepted_drops", "git",
                                      "ragauge_version", "digest")}
    if "auto_labels" in record:
        summary["auto_labels"] = {k: record["auto_labels"][k] for k in ("assessor", "identity")}
    if loosened:
        summary["accepted_rule_changes"] = loosened
    _write_with_history(path, record, summary)
    return record


def _write_with_history(path: Path, record: dict[str, Any], summary: dict[str, Any]) -> None:
    """Replace the baseline and append its history line as one unit: the history line is
    appended while the new baseline waits in its temporary file, so a failed append leaves the old
    baseline in place, and a failed replace takes the appended line back."""
    history = history_path(path)
    size = history.stat().st_size if history.exists() else None
    try:
        with atomic_writer(path, what="baseline") as fh:
            fh.write(dumps(record, indent=2) + "\n")
            append_line(history, dumps(summary), what="baseline history")
    except BaseException:
        if history.exists() and (size is None or history.stat().st_size > size):
            with open(history, "r+b") as fh:
                fh.truncate(size or 0)
        raise
