"""ragauge: measure the retrieval stage of RAG systems.

The public API: every CLI command is one of these calls. Names are loaded on first use, so
``import ragauge`` and ``ragauge --help`` stay fast; no name here is also a subpackage, so
``from ragauge import compare`` is always the function.

    import ragauge
    golden = ragauge.load_golden("golden.jsonl")
    result = ragauge.evaluate(golden, "bm25:corpus.jsonl", k=10)         # ragauge eval --retriever
    result = ragauge.evaluate_run(golden, {"q1": ["doc-3", "doc-1"]}, k=5)  # ragauge eval --run
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ragauge._version import __version__

if TYPE_CHECKING:
    from ragauge.api.evaluate import evaluate, evaluate_run
    from ragauge.api.gate import gate, gate_sequential, load_rules, read_baseline, update_baseline
    from ragauge.api.golden import merge_candidates
    from ragauge.api.index import index
    from ragauge.api.report import render
    from ragauge.api.run import merge_shards, open_retriever, run_retriever
    from ragauge.api.traces import import_traces
    from ragauge.api.tracking import log_mlflow
    from ragauge.attribution.judge import JudgeOptions
    from ragauge.attribution.result import Attribution
    from ragauge.attribution.run import attribute
    from ragauge.comparison.compare import compare
    from ragauge.comparison.power import PowerReport, power
    from ragauge.comparison.result import Comparison, MetricDelta
    from ragauge.comparison.sequential import SequentialComparison, compare_sequential
    from ragauge.curation.agreement import JudgeStats, judge_stats
    from ragauge.curation.assess import AssessReport, assess_golden
    from ragauge.curation.audit import AssessorAudit, assessor_agreement
    from ragauge.curation.draft import DraftOptions, DraftResult, draft_golden
    from ragauge.curation.grow import add_from_log
    from ragauge.curation.importing import ImportResult, import_golden
    from ragauge.curation.judge import judge_pool
    from ragauge.curation.judge_finish import JudgeMerge, merge_judgements
    from ragauge.curation.pool import PoolResult, pool_golden
    from ragauge.curation.scrub import ScrubOptions, ScrubSummary, scrub_golden
    from ragauge.curation.validate import ValidationReport, validate_golden
    from ragauge.data.answers import Answers, AnswerVerdict
    from ragauge.data.golden import GoldenQuery, GoldenSet
    from ragauge.data.hits import Call, Hit, QueryResult
    from ragauge.data.pool import Pool
    from ragauge.data.run import Run
    from ragauge.errors import (
        BaselineEdited,
        ContractMismatch,
        DuplicateDocument,
        GateFailure,
        InputError,
        MissingExtra,
        NotComparable,
        RagaugeError,
        RetrieverDown,
        RunAborted,
        RunInterrupted,
        ServerUnreachable,
    )
    from ragauge.evaluation.load import read_result
    from ragauge.evaluation.options import EvalOptions
    from ragauge.evaluation.result import Evaluation, QueryScore, Returned
    from ragauge.experiments.result import SweepResult
    from ragauge.experiments.sweep import read_sweep, sweep
    from ragauge.formats.answers import read_answers
    from ragauge.formats.beir import import_beir
    from ragauge.formats.golden import as_golden, load_golden, write_golden
    from ragauge.formats.judgements import read_judgements
    from ragauge.formats.pool import read_pool, write_pool
    from ragauge.formats.runs import as_run, read_run, write_run_jsonl
    from ragauge.formats.trace_import import TraceImport
    from ragauge.gating.baseline import Baseline
    from ragauge.gating.check import GateResult, RuleOutcome
    from ragauge.gating.config import GateRules
    from ragauge.history.history import History
    from ragauge.metrics.spec import MetricSpec, parse_metric
    from ragauge.scaffold import init_project
    from ragauge.treceval.runner import TrecEvalOptions, trec_eval

_EXPORTS: dict[str, str] = {
    # data model
    "GoldenQuery": "ragauge.data.golden", "GoldenSet": "ragauge.data.golden",
    "Hit": "ragauge.data.hits", "Call": "ragauge.data.hits", "QueryResult": "ragauge.data.hits",
    "Run": "ragauge.data.run",
    # files
    "load_golden": "ragauge.api.files", "write_golden": "ragauge.api.files",
    "as_golden": "ragauge.api.files",
    "read_run": "ragauge.api.files", "write_run_jsonl": "ragauge.api.files", "as_run": "ragauge.api.files",
    "import_beir": "ragauge.api.files",
    # metrics and evaluation
    "MetricSpec": "ragauge.metrics.spec", "parse_metric": "ragauge.api.evaluate",
    "evaluate_run": "ragauge.api.evaluate", "EvalOptions": "ragauge.evaluation.options",
    "Evaluation": "ragauge.evaluation.result", "QueryScore": "ragauge.evaluation.scores",
    "Returned": "ragauge.evaluation.scores", "read_result": "ragauge.api.report",
    "trec_eval": "ragauge.api.tools", "TrecEvalOptions": "ragauge.treceval.runner",
    # retrievers
    "evaluate": "ragauge.api.evaluate", "run_retriever": "ragauge.api.run", "open_retriever": "ragauge.api.run",
    "merge_shards": "ragauge.api.run", "index": "ragauge.api.index", "render": "ragauge.api.report",
    # traces (OpenTelemetry, OpenInference) as runs
    "import_traces": "ragauge.api.traces", "TraceImport": "ragauge.formats.trace_import",
    # experiment trackers
    "log_mlflow": "ragauge.api.tracking",
    # experiments
    "sweep": "ragauge.api.sweep", "read_sweep": "ragauge.api.sweep",
    "SweepResult": "ragauge.experiments.result",
    # comparison and gate
    "compare": "ragauge.api.compare", "Comparison": "ragauge.comparison.result",
    "MetricDelta": "ragauge.comparison.result",
    "compare_sequential": "ragauge.api.compare", "SequentialComparison": "ragauge.comparison.sequential",
    "power": "ragauge.api.compare", "PowerReport": "ragauge.comparison.power",
    "gate": "ragauge.api.gate", "update_baseline": "ragauge.api.gate",
    "gate_sequential": "ragauge.api.gate",
    "GateResult": "ragauge.gating.check", "RuleOutcome": "ragauge.gating.check",
    "GateRules": "ragauge.gating.config", "load_rules": "ragauge.api.gate",
    "Baseline": "ragauge.gating.baseline", "read_baseline": "ragauge.api.gate",
    # search or model: retrieval linked to answer verdicts
    "attribute": "ragauge.api.attribute", "Attribution": "ragauge.attribution.result",
    "JudgeOptions": "ragauge.attribution.judge", "read_answers": "ragauge.api.attribute",
    "Answers": "ragauge.data.answers", "AnswerVerdict": "ragauge.data.answers",
    # the golden set's upkeep
    "validate_golden": "ragauge.api.golden", "ValidationReport": "ragauge.curation.validate",
    "scrub_golden": "ragauge.api.golden", "ScrubOptions": "ragauge.curation.scrub",
    "ScrubSummary": "ragauge.curation.scrub",
    "pool_golden": "ragauge.api.golden", "PoolResult": "ragauge.curation.pool", "Pool": "ragauge.data.pool",
    "read_pool": "ragauge.api.files", "write_pool": "ragauge.api.files",
    "import_golden": "ragauge.api.golden", "ImportResult": "ragauge.curation.importing",
    "draft_golden": "ragauge.api.golden", "add_from_log": "ragauge.api.golden",
    "merge_candidates": "ragauge.api.golden",
    "DraftOptions": "ragauge.curation.draft",
    "DraftResult": "ragauge.curation.draft",
    "judge_pool": "ragauge.api.golden", "merge_judgements": "ragauge.api.golden",
    "JudgeMerge": "ragauge.curation.judge_finish", "judge_stats": "ragauge.api.golden",
    "JudgeStats": "ragauge.curation.agreement", "read_judgements": "ragauge.api.files",
    "assess_golden": "ragauge.api.golden", "AssessReport": "ragauge.curation.assess",
    "assessor_agreement": "ragauge.api.golden", "AssessorAudit": "ragauge.curation.audit",
    "History": "ragauge.history.history", "init_project": "ragauge.api.tools",
    # errors
    "RagaugeError": "ragauge.errors", "InputError": "ragauge.errors", "GateFailure": "ragauge.errors",
    "MissingExtra": "ragauge.errors", "NotComparable": "ragauge.errors", "ContractMismatch": "ragauge.errors",
    "BaselineEdited": "ragauge.errors", "DuplicateDocument": "ragauge.errors", "RetrieverDown": "ragauge.errors",
    "RunAborted": "ragauge.errors", "RunInterrupted": "ragauge.errors", "ServerUnreachable": "ragauge.errors",
}

__all__ = [
    "AnswerVerdict", "Answers", "Attribution", "JudgeOptions", "attribute", "read_answers",
    "Baseline", "Comparison", "EvalOptions", "Evaluation", "GateFailure", "GateResult", "GateRules",
    "GoldenQuery", "GoldenSet", "History", "Hit", "ImportResult", "InputError", "MetricDelta", "MetricSpec",
    "JudgeMerge", "JudgeStats", "judge_pool", "judge_stats", "merge_judgements", "read_judgements",
    "MissingExtra", "NotComparable", "ContractMismatch", "BaselineEdited", "DuplicateDocument", "RetrieverDown",
    "RunAborted", "RunInterrupted", "ServerUnreachable", "Pool", "PoolResult", "PowerReport", "QueryResult",
    "QueryScore", "RagaugeError",
    "Returned",
    "RuleOutcome", "Run", "ScrubOptions", "SequentialComparison", "compare_sequential", "gate_sequential",
    "ScrubSummary", "SweepResult", "read_sweep", "sweep",
    "TrecEvalOptions", "ValidationReport", "__version__", "as_golden", "as_run", "compare",
    "evaluate", "evaluate_run", "gate", "import_beir", "import_golden", "load_golden", "load_rules",
    "merge_shards", "parse_metric", "pool_golden", "power", "read_baseline", "read_pool", "read_result", "read_run",
    "run_retriever", "scrub_golden", "trec_eval", "update_baseline", "validate_golden", "write_golden", "write_pool",
    "write_run_jsonl",
    "DraftOptions", "DraftResult", "draft_golden", "add_from_log", "init_project", "index", "render",
    "merge_candidates", "log_mlflow", "assess_golden", "AssessReport",
    "import_traces", "TraceImport", "open_retriever", "Call",
    "assessor_agreement", "AssessorAudit",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragauge' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
