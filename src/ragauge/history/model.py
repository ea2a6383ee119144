"""One recorded evaluation: the value that the history stores and every history report reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ragauge.evaluation.result import Evaluation

RECORD_VERSION = 1


@dataclass(frozen=True)
class QuestionPoint:
    """One answerable question's values in one recorded evaluation."""

    id: str
    query: str
    tags: tuple[str, ...]
    values: dict[str, float]
    first_relevant_rank: int | None
    status: str = "ok"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "query": self.query, "tags": list(self.tags), "values": self.values,
                "first_relevant_rank": self.first_relevant_rank, "status": self.status}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> QuestionPoint:
        return cls(d["id"], d.get("query", ""), tuple(d.get("tags", [])), dict(d["values"]),
                   d.get("first_relevant_rank"), d.get("status", "ok"))


@dataclass(frozen=True)
class Entry:
    """A recorded evaluation: when, what (golden set, run, retriever, contract), the numbers.

    ``id`` is None until the store assigns one. ``recorded_at`` is ISO 8601 in UTC. ``questions`` is
    empty when the store was asked for the summaries only.
    """

    id: int | None
    recorded_at: str
    label: str | None
    golden_hash: str
    golden_path: str | None
    golden_questions: int | None
    run_path: str | None
    run_hash: str | None
    retriever: str | None
    fingerprint: str | None
    git_commit: str | None
    ragauge_version: str | None
    metrics: tuple[str, ...]
    contract: dict[str, Any]
    summary: dict[str, float]
    by_tag: dict[str, dict[str, float]]
    counts: dict[str, Any] = field(default_factory=dict)
    run_meta: dict[str, Any] = field(default_factory=dict)
    questions: tuple[QuestionPoint, ...] = ()

    def to_dict(self, *, questions: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"ragauge_history_entry": RECORD_VERSION, "id": self.id,
                               "recorded_at": self.recorded_at, "label": self.label,
                               "golden": {"hash": self.golden_hash, "path": self.golden_path,
                                          "questions": self.golden_questions},
                               "run": {"path": self.run_path, "hash": self.run_hash, "retriever": self.retriever,
                                       "fingerprint": self.fingerprint, "meta": self.run_meta},
                               "git_commit": self.git_commit, "ragauge_version": self.ragauge_version,
                               "metrics": list(self.metrics), "contract": self.contract, "summary": self.summary,
                               "by_tag": self.by_tag, "counts": self.counts}
        if questions:
            out["questions"] = [q.to_dict() for q in self.questions]
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Entry:
        golden, run = d.get("golden", {}), d.get("run", {})
        return cls(d.get("id"), d["recorded_at"], d.get("label"), golden["hash"], golden.get("path"),
                   golden.get("questions"), run.get("path"), run.get("hash"), run.get("retriever"),
                   run.get("fingerprint"), d.get("git_commit"), d.get("ragauge_version"), tuple(d["metrics"]),
                   dict(d.get("contract", {})), dict(d["summary"]), dict(d.get("by_tag", {})),
                   dict(d.get("counts", {})), dict(run.get("meta", {})),
                   tuple(QuestionPoint.from_dict(q) for q in d.get("questions", [])))


def utc_text(moment: datetime) -> str:
    """``moment`` as ISO 8601 in UTC to the second (a naive datetime is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


def entry_from_evaluation(evaluation: Evaluation, *, recorded_at: datetime, label: str | None = None,
                          git_commit: str | None = None) -> Entry:
    """The history entry for ``evaluation`` (pure: the time and the commit are passed in).

    The retriever spec and corpus fingerprint come from the run's own metadata when it has them
    (``meta["run"]["meta"]["retriever"]`` and ``["fingerprint"]``, as ``ragauge run`` writes them).
    """
    meta = evaluation.meta
    golden, run = meta.get("golden", {}), meta.get("run", {})
    run_meta = dict(run.get("meta") or {})
    retriever = run_meta.get("retriever")
    fingerprint = run_meta.get("fingerprint")
    questions = tuple(QuestionPoint(q.id, q.query, q.tags, dict(q.values), q.first_relevant_rank, q.status)
                      for q in evaluation.queries)
    return Entry(
        None, utc_text(recorded_at), label.strip() if label and label.strip() else None, str(golden.get("hash", "")),
        golden.get("path"), golden.get("questions"), run.get("path"), run.get("hash"),
        None if retriever is None else str(retriever), None if fingerprint is None else str(fingerprint),
        git_commit, meta.get("ragauge_version"), tuple(evaluation.metrics), dict(meta.get("contract", {})),
        dict(evaluation.summary), {t: dict(v) for t, v in evaluation.by_tag.items()}, dict(meta.get("counts", {})),
        run_meta, questions,
    )
