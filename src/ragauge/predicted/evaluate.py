"""A prediction-powered evaluation: a run scored against a golden set in which only some questions carry
human labels, beside an assessor's automatic labels of every question (``--auto-labels``).

**Two values per question.** Every metric is computed twice (``evaluation.labelsets``): ``Y`` from the
human labels, on the labelled questions, and ``Yhat`` from the automatic labels alone, on every
question, labelled or not (one function of the question on both, as prediction-powered inference
needs). A question the assessor finds nothing relevant for has ``Yhat`` 0: every share metric is 0
when nothing relevant is known.

**What is returned.** The plain evaluation of the labelled questions (its means, rows, tags, failure
table and warnings are the human-only measurement, the same as scoring those questions alone), with
``meta["golden"]`` describing the whole set, the unlabelled questions out of the no-answer section
(counted in ``meta["counts"]["unlabelled"]``), ``meta["judged"]`` split into the shares of the top k
with a human and with an automatic label only, and ``meta["ppi"]`` beside it: per metric, the PPI++
estimate of its mean and its interval (``stats.ppi``, by default the betting interval, valid at every
n), the human-only interval by the same method, the effective number of human labels, and whether
PPI is the wider; the assessor's agreement with the human labels (weighted kappa over every automatic
label of a labelled question, as ``golden agreement`` measures it); what of the run's top k each kind
of label covers; and every question's ``Yhat`` (``automatic``), which a comparison and a baseline pair.

**Assumptions** (``stats.ppi``'s setting): the labelled questions are a random sample of the questions,
chosen independently of the runs and the assessor; an unlabelled question is taken to be answerable (a
question nothing answers says so: ``"relevant": []``, a human label). Nothing is assumed of the
assessor: a bad one costs width, never validity. Its cutoffs were fitted on the human labels
(``golden assess``), which ties ``Yhat`` a little to the labelled sample; with one or two cutoffs
fitted on thousands of pairs, by little.

**Scope.** PPI is computed for the share metrics in [0, 1]; counts of calls (lower is better) and
judged@k are reported human-only. Without any human-labelled answerable question nothing here is a
measurement: the means are empty, and the assessor's figures are reported only as what the assessor
says (``meta["ppi"]["assessor_says"]``), with a loud warning; so are a tag's whose questions carry no
human label.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.core.notes import LOUD
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.relevance import is_relevant
from ragauge.evaluation.diagnose import no_answer_only
from ragauge.evaluation.evaluate import evaluate_run as plain_evaluate_run
from ragauge.evaluation.evaluate import score_run
from ragauge.evaluation.labelsets import Coverage, agreement_pairs, coverage, label_sets
from ragauge.evaluation.options import EvalOptions, OnError
from ragauge.evaluation.result import Evaluation
from ragauge.formats.autolabels import AutoLabels, read_auto_labels
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import RunStream, read_run, scored_run
from ragauge.metrics.spec import DEFAULT_K, MetricSpec, lower_is_better, parse_metric
from ragauge.predicted import METHOD, TARGET_TEXT
from ragauge.stats import DEFAULT_ALPHA

if TYPE_CHECKING:
    import numpy as np

    from ragauge.data.run import Run
    from ragauge.formats.corpus import CorpusTexts
    from ragauge.metrics.judged import Unjudged

PPI_VERSION = 2
"""2: the means are the golden set's own (``TARGET``), their human-only intervals for the same mean."""
TARGET = "golden-set"
"""What an evaluation's prediction-powered means are of (``predicted.TARGET_TEXT``)."""
WIDER = f"{LOUD}the prediction-powered interval is wider than the human-only one for "
"""The start of the warning that a mean's PPI interval is the wider (a gate, deciding on differences,
says it of those instead)."""
METHOD_TEXT = {
    "betting": "PPI++ with the betting interval, valid at every n",
    "clt": "PPI++ with the normal interval (the authors'), valid as n grows",
    "t": "PPI++ with the t interval, valid as n grows",
}


def evaluate_run(
    golden: GoldenSet | str | Path | Iterable[GoldenQuery | Mapping[str, Any]],
    run: Run | RunStream | str | Path | Mapping[str, Any],
    *,
    metrics: Sequence[str | MetricSpec] | str | None = None,
    k: int | Sequence[int] = DEFAULT_K,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    on_error: OnError = "zero",
    known_documents: Set[str] | None = None,
    unjudged: Unjudged = "non-relevant",
    corpus: str | Path | Mapping[str, str] | CorpusTexts | None = None,
    mix_synthetic: bool = False,
    tokenizer: str | None = None,
    grades: str | Mapping[float, float] | None = None,
    auto_labels: str | Path | AutoLabels | None = None,
) -> Evaluation:
    """Score ``run`` against ``golden``: :func:`ragauge.evaluation.evaluate.evaluate_run`, whose options
    these are, and with ``auto_labels`` (an automatic-labels file of ``golden assess``) a golden set in
    which only some questions carry human labels (``"relevant": null`` marks the others) is scored with
    the prediction-powered estimates beside the human-only ones (:func:`score_predicted`)."""
    if auto_labels is None:
        return plain_evaluate_run(golden, run, metrics=metrics, k=k, fetch=fetch, doc_id_sep=doc_id_sep,
                                  doc_id_pattern=doc_id_pattern, on_error=on_error, known_documents=known_documents,
                                  unjudged=unjudged, corpus=corpus, mix_synthetic=mix_synthetic,
                                  tokenizer=tokenizer, grades=grades)
    options = EvalOptions(metrics, k, fetch, doc_id_sep, doc_id_pattern, on_error, known_documents, unjudged, corpus,
                          mix_synthetic, tokenizer, grades)
    return score_predicted(as_golden(golden, unlabelled=True), scored_run(run), options, auto_labels)


def estimable(metric: str) -> bool:
    """Whether PPI estimates ``metric``'s mean: a share in [0, 1], not a count of calls, not judged@k
    (which says how much the labels cover, not how good the run is)."""
    return not lower_is_better(metric) and parse_metric(metric).name != "judged"


def score_predicted(golden: GoldenSet, run: Run | RunStream, options: EvalOptions,
                    auto_labels: str | Path | AutoLabels, *, alpha: float = DEFAULT_ALPHA) -> Evaluation:
    """The prediction-powered evaluation of the module docstring (``auto_labels`` checked against
    ``golden``: ``evaluation.labelsets.check_labels``)."""
    labels = auto_labels if isinstance(auto_labels, AutoLabels) else read_auto_labels(auto_labels)
    sets = label_sets(golden, labels, fill=options.checked_unjudged() == "unknown")
    whole = read_run(run.path, run.format) if isinstance(run, RunStream) else run  # read three times below
    if options.corpus is not None:
        from ragauge.formats.corpus import read_corpus_texts

        options = replace(options, corpus=read_corpus_texts(options.corpus))  # read once for both
    human = score_run(sets.human, whole, options)
    automatic = score_run(sets.automatic, whole, options)
    unlabelled = set(sets.unlabelled)
    in_scope = [q["id"] for q in human.no_answer.get("questions", []) if q["id"] in unlabelled]
    labelled = list(human.row_ids)
    names = [m for m in human.metrics if estimable(m)]
    yhat = {m: (_values(automatic, m, labelled), _values(automatic, m, in_scope)) for m in names}
    k = human.meta.get("judged", {}).get("k") or DEFAULT_K
    cover = coverage(golden, labels, whole, labelled, in_scope, k, fetch=options.checked_fetch(),
                     doc_id_sep=options.doc_id_sep, doc_id_pattern=options.doc_id_pattern, filled=bool(sets.filled))
    agreement = _agreement(golden, labels)
    estimates = {m: _estimate(human.column(m), *yhat[m], alpha) for m in names}
    ppi: dict[str, Any] = {
        "version": PPI_VERSION, "method": METHOD, "method_text": METHOD_TEXT[METHOD], "alpha": alpha,
        "target": TARGET, "target_text": TARGET_TEXT[TARGET],
        "auto_labels": {"path": labels.source, "assessor": labels.assessor, "identity": labels.identity,
                        "golden": labels.golden, "calibration": labels.calibration.to_dict()},
        "questions": {"labelled": len(labelled), "unlabelled": len(in_scope)},
        "agreement": agreement, "coverage": cover.to_dict(), "metrics": estimates,
        "human_only": [m for m in human.metrics if m not in names],
        "automatic": {qid: {m: float(yhat[m][0][i]) for m in names} for i, qid in enumerate(labelled)}
        | {qid: {m: float(yhat[m][1][i]) for m in names} for i, qid in enumerate(in_scope)},
        "unlabelled": in_scope,
    }
    ppi.update(_assessor_says(golden, human, automatic, names, labelled, in_scope))
    scored = (len(sets.human), sum(not q.synthetic for q in sets.human))  # the sizes scoring may have said it of
    warnings = _warnings(ppi, cover, judges_not_relevant(golden))
    return _as_predicted(golden, human, unlabelled, ppi, cover, warnings, scored)


def judges_not_relevant(golden: GoldenSet) -> bool:
    """Whether the golden set lists a document judged not relevant (grade below the relevance level):
    then a document a question does not list was never judged, rather than judged not relevant by
    the convention of sets that list relevant documents only (BEIR's, TREC's qrels as often shipped)."""
    return any(not is_relevant(g) for q in golden for g in q.relevant.values())


def _values(ev: Evaluation, metric: str, ids: Sequence[str]) -> np.ndarray:
    """``metric`` of each of ``ids`` in ``ev``; 0 for a question it has no row of (nothing relevant)."""
    import numpy as np

    column, positions = ev.column(metric), ev.positions
    return np.array([column[positions[q]] if q in positions else 0.0 for q in ids], dtype=np.float64)


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _estimate(y: np.ndarray, labelled: np.ndarray, unlabelled: np.ndarray, alpha: float) -> dict[str, Any]:
    """One metric's figures (``stats.ppi.ppi_mean`` of the golden set's own mean: ``TARGET``), or why there
    are none; the human-only interval is for the same mean (the plain betting one when every question is
    labelled: the mean is then known, and the interval says what the questions show of others)."""
    from ragauge.stats import betting, finite
    from ragauge.stats.ppi import ppi_mean

    n, big = len(y), len(unlabelled)
    out: dict[str, Any] = {"n": n, "unlabelled": big, "human": _finite(float(y.mean())) if n else None,
                           "human_interval": None}  # with an estimate, its own (computed once, below)
    if n < 2 or big < 1:
        if n:
            out["human_interval"] = list(finite.interval(y, n + big, 0.0, 1.0, 1.0 - alpha) if big else
                                         betting.interval(y, 0.0, 1.0, 1.0 - alpha))
        out["reason"] = (f"{n} human-labelled question(s): PPI needs 2 or more" if n < 2 else
                         "every question is human-labelled: nothing for the assessor to add")
        return out
    est = ppi_mean(y, labelled, unlabelled, alpha=alpha, method=METHOD, target=TARGET)
    if n <= finite.WARM_UP:  # the interval bets with lambda 0 throughout: say so beside "effective labels"
        out["interval_note"] = (f"with {n} human-labelled questions the PPI interval uses no automatic value (it "
                                f"learns how far to trust them after the first {finite.WARM_UP}): it is the "
                                "human-only interval; the estimate and the effective labels are PPI++'s")
    out.update({"estimate": est.estimate, "interval": list(est.interval),
                "human_interval": list(est.classical_interval), "effective_n": _finite(est.effective_n),
                "lambda": est.lam, "width_ratio": _finite(est.width_ratio), "wider": bool(est.width_ratio > 1.0)})
    return out


def _agreement(golden: GoldenSet, labels: AutoLabels) -> dict[str, Any]:
    """Weighted kappa of every automatic label of a labelled question against its human grade, as
    ``golden agreement`` computes it (its bootstrap interval: run that command)."""
    from ragauge.stats.kappa import weighted_kappa

    pairs, _ = agreement_pairs(golden, labels)
    flat = [p for ps in pairs.values() for p in ps]
    human, auto = [h for h, _ in flat], [a for _, a in flat]
    kappa = weighted_kappa(human, auto, sorted(set(human) | set(auto) | set(labels.calibration.grades)))
    return {"kappa": kappa.value, "pairs": len(flat), "questions": len(pairs), "undefined": kappa.reason,
            "weights": "linear"}


def _assessor_says(golden: GoldenSet, human: Evaluation, automatic: Evaluation, names: Sequence[str],
                   labelled: Sequence[str], unlabelled: Sequence[str]) -> dict[str, Any]:
    """What the assessor says where no human label measures: every metric's mean over the unlabelled
    questions when no question is human-labelled, and each tag's whose questions none is."""
    out: dict[str, Any] = {}
    if not unlabelled or not names:
        return out
    values = {m: _values(automatic, m, unlabelled) for m in names}
    if not labelled:
        out["assessor_says"] = {"n": len(unlabelled), **{m: float(v.mean()) for m, v in values.items()}}
        return out
    measured = {t for tags in human.row_tags for t in tags}
    tags: dict[str, list[int]] = {}
    for i, qid in enumerate(unlabelled):
        for tag in golden.by_id[qid].tags:
            if tag not in measured:
                tags.setdefault(tag, []).append(i)
    if tags:
        out["assessor_says_by_tag"] = {t: {"n": len(at), **{m: float(values[m][at].mean()) for m in names}}
                                       for t, at in sorted(tags.items())}
    return out


def _warnings(ppi: Mapping[str, Any], cover: Coverage, judges_not_relevant: bool) -> list[str]:
    """What changes how these numbers read: no human label, a PPI interval wider than the human-only
    one, tags only the assessor speaks for, holes in the labelled questions' top k (loud when the
    golden set records documents judged not relevant, so that one it does not list was never judged,
    and the assessor calls some relevant), documents of the unlabelled questions' top k the assessor
    never saw."""
    out: list[str] = []
    assessor = ppi["auto_labels"]["assessor"]
    says = ppi.get("assessor_says")
    if says is not None:
        figures = ", ".join(f"{m} {v:.4f}" for m, v in says.items() if m != "n")
        out.append(f"{LOUD}no question carries a human label, so nothing here is a measurement: the means are empty. "
                   f"The assessor {assessor} says {figures} over {says['n']} question(s); that is its opinion, not "
                   "a measurement (its errors are unknown until people label some questions: golden pool, golden "
                   "judge)")
    elif not ppi["questions"]["labelled"]:
        out.append(f"{LOUD}no question carries a human label and a relevant document, so nothing here is a "
                   "measurement: the means are empty")
    wider = [m for m, e in ppi["metrics"].items() if e.get("wider")]
    if wider:
        n = ppi["questions"]["labelled"]
        kappa = ppi["agreement"]["kappa"]
        out.append(f"{WIDER}{', '.join(wider)} "
                   f"({n} human-labelled question(s)): there, read the human-only interval; at this n the "
                   f"assessor ({'weighted kappa ' + format(kappa, '.3f') if kappa is not None else 'kappa n/a'}) "
                   "does not pay for the uncertainty its own mean adds (docs/statistics.md)")
    by_tag = ppi.get("assessor_says_by_tag")
    if by_tag:
        out.append(f"{LOUD}{len(by_tag)} tag(s) have no human-labelled question ({', '.join(by_tag)}): what is shown "
                   "for them is what the assessor says, not a measurement")
    k = cover.k
    if cover.holes and cover.filled:
        out.append(f"{LOUD}{cover.holes} document(s) in the top {k} of {cover.hole_questions} human-labelled "
                   f"question(s) carry no human label and took the assessor's ({cover.holes_relevant} relevant), as "
                   f"--unjudged unknown asks: the human figures rest on automatic labels there (judged@{k}: "
                   f"{cover.human:.1%} human, {cover.automatic:.1%} automatic)")
    elif cover.holes and judges_not_relevant:  # the set records what people judged not relevant: holes are unjudged
        note = (f"{cover.holes} document(s) in the top {k} of {cover.hole_questions} human-labelled question(s) "
                f"carry no human label and count as not relevant (--unjudged non-relevant); the assessor calls "
                f"{cover.holes_relevant} of them relevant: label them (golden pool), or let its labels fill them "
                "(--unjudged unknown)")
        out.append(LOUD + note if cover.holes_relevant else note)
    elif cover.holes:
        out.append(f"{cover.holes} document(s) in the top {k} of the human-labelled questions are not listed and "
                   f"count as not relevant: the golden set lists relevant documents only, so by its convention "
                   f"they were judged so (the assessor calls {cover.holes_relevant} of them relevant; if they "
                   "were never judged, label them, or let its labels fill them: --unjudged unknown)")
    if cover.unassessed:
        share = "" if cover.unlabelled_automatic is None else f" (it saw {cover.unlabelled_automatic:.1%} of them)"
        out.append(f"{cover.unassessed} document(s) in the top {k} of the unlabelled questions were never assessed"
                   f"{share} and count as not relevant in the automatic values: the estimates stay valid, and "
                   "assessing this run's top k too (golden assess --run RUN) can narrow them")
    return out


def _as_predicted(golden: GoldenSet, human: Evaluation, unlabelled: set[str], ppi: dict[str, Any],
                  cover: Coverage, warnings: list[str], scored: Sequence[int]) -> Evaluation:
    """``human`` (the labelled questions scored, the unlabelled ones among its no-answer questions)
    as the prediction-powered evaluation: the whole golden set described, the unlabelled questions
    out of the no-answer section, judged@k split, ``meta["ppi"]`` and the warnings."""
    kept = [q for q in human.no_answer.get("questions", []) if q["id"] not in unlabelled]
    empty = {no_answer_only(range(n), 0) for n in scored}  # "all are no-answer": said better by ours
    meta = dict(human.meta)
    meta["golden"] = {"path": golden.source, "hash": golden.content_hash, "questions": len(golden)}
    meta["counts"] = {**meta["counts"], "no_answer": len(kept), "unlabelled": len(golden.unlabelled)}
    meta["judged"] = {**meta["judged"], "human": cover.human, "automatic": cover.automatic}
    if "synthetic" in meta:
        meta["synthetic"] = {**meta["synthetic"], "no_answer": sum(q.synthetic and q.labelled and not q.answerable
                                                                   for q in golden)}
    meta["ppi"] = ppi
    return replace(human, no_answer={**human.no_answer, "n": len(kept), "questions": kept},
                   warnings=(*warnings, *(w for w in human.warnings if w not in empty)), meta=meta)
