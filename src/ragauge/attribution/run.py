"""Attribution end to end: evaluate the run, optionally judge the unjudged answers, link the two."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragauge.attribution.cells import attribute_evaluation
from ragauge.attribution.judge import HttpJudge, Judge, JudgeOptions, judge_answers
from ragauge.attribution.result import Attribution
from ragauge.core.numbers import COUNT, check_number
from ragauge.data.answers import Answers, AnswerVerdict
from ragauge.errors import InputError, flag
from ragauge.evaluation.evaluate import MAX_SHOWN, score_run
from ragauge.evaluation.options import EvalOptions
from ragauge.formats.answers import as_answers
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import as_run
from ragauge.metrics.spec import DEFAULT_K


def attribute(
    golden: Any,
    run: Any,
    answers: Answers | str | Path | Mapping[str, Any] | Iterable[AnswerVerdict | Mapping[str, Any]],
    *,
    k: int = DEFAULT_K,
    threshold: float | None = None,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    judge: JudgeOptions | Judge | None = None,
    corpus: str | Path | Mapping[str, str | tuple[str, str]] | None = None,
) -> Attribution:
    """Link each golden question's retrieval outcome (its relevant document in the top ``k`` of
    ``run``, or not) to the verdict on the answer the assistant gave (``answers``), and return the
    2 × 2 table overall, per tag, and for no-answer questions (see ``attribute_evaluation``).

    ``golden`` and ``run`` are what ``evaluate_run`` takes (``fetch``, ``doc_id_sep`` and
    ``doc_id_pattern`` as there); ``answers`` an answers file, an Answers, lines as dicts, or
    ``{question_id: "good" | "bad" | score}``. ``threshold`` turns scores into verdicts (score >=
    threshold is good).

    ``judge`` (optional; ragauge never needs an LLM) fills in a verdict for each answerable
    question whose answer line has text and neither verdict nor score: ``JudgeOptions`` for an
    OpenAI-compatible endpoint, or a function ``judge(question, answer, documents)`` returning
    "good", "bad", a bool or None. It sees the question's top-k documents, whose texts come from
    ``corpus`` (a corpus file or folder, as the built-in retrievers read, or ``{doc_id: text}``).
    """
    k = int(check_number(k, f"{flag('k', cli='-k')} (the cutoff of 'found')", COUNT))
    if judge is not None:
        if corpus is None:
            raise InputError("the judge needs the corpus to show it the retrieved documents' texts",
                             hint=f"pass {flag('corpus', 'PATH')}: the JSONL or folder the run's retriever searched")
        if k > MAX_SHOWN:
            raise InputError(f"with a judge, {flag('k', cli='-k')} is at most {MAX_SHOWN} (the documents kept per "
                             f"question), got {k}")
    golden_set, answer_set = as_golden(golden), as_answers(answers)
    if threshold is not None:
        threshold = check_number(threshold, "threshold")
    answer_set.resolve(threshold)  # a score without a threshold is refused before any judge call
    evaluation = score_run(golden_set, as_run(run), EvalOptions(k=k, fetch=fetch, doc_id_sep=doc_id_sep,
                                                                doc_id_pattern=doc_id_pattern))
    if judge is None or corpus is None:
        return attribute_evaluation(evaluation, answer_set, k=k, threshold=threshold)
    texts = _corpus(corpus)
    if isinstance(judge, JudgeOptions):
        http = HttpJudge(judge)
        try:
            judged = judge_answers(answer_set, evaluation, http, texts, k=k, name=judge.model)
        finally:
            http.close()
        described = judge.describe()
    else:
        name = getattr(judge, "__name__", type(judge).__name__)
        judged = judge_answers(answer_set, evaluation, judge, texts, k=k, name=name)
        described = {"callable": name}
    result = attribute_evaluation(evaluation, judged.answers, k=k, threshold=threshold,
                                  why_unjudged=judged.why_unjudged,
                                  meta={"judge": {**described, **judged.meta["judge"]}})
    return replace(result, notes=result.notes + judged.notes)


def _corpus(corpus: str | Path | Mapping[str, str | tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """``doc_id -> (title, text)`` from a corpus path or a mapping of texts (or (title, text) pairs)."""
    if isinstance(corpus, (str, Path)):
        from ragauge.retrieve.corpus import read_documents

        return {doc_id: (title, text) for doc_id, title, text in read_documents(corpus)}
    return {str(d): ("", v) if isinstance(v, str) else (str(v[0]), str(v[1])) for d, v in corpus.items()}
