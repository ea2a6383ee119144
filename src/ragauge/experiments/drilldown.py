"""Each configuration of a sweep scored as its own evaluation: what its drill-down report shows and
what a tracker logs per configuration."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation
    from ragauge.experiments.result import ConfigRow, SweepResult


def configuration_evaluations(r: SweepResult, golden: Any,
                              folder: str | Path) -> Iterator[tuple[ConfigRow, Evaluation]]:
    """Each row of ``r`` with the evaluation ``ragauge eval GOLDEN --run RUN --metrics ... --fetch F``
    gives for its run in ``folder`` (the sweep's folder, which holds its runs), with ``--corpus`` and
    ``--tokenizer`` when its span labels or budgets need them, over every question it answered (so a
    configuration successive halving dropped is scored on its sample only, as its row is). One at a
    time, in the rows' order; the corpus is read once for all of them."""
    from ragauge.data.golden import GoldenSet
    from ragauge.evaluation.evaluate import evaluate_run
    from ragauge.evaluation.spans import has_spans
    from ragauge.formats.corpus import read_corpus_texts
    from ragauge.formats.golden import as_golden
    from ragauge.formats.runs import read_run
    from ragauge.models.tokens import WORDS

    golden_set = as_golden(golden)
    tokenizer = r.meta.get("tokenizer", WORDS)  # as the sweep file named it (the contract names its content)
    texts = has_spans(golden_set) or tokenizer != WORDS  # read the corpus as the sweep did
    path = r.meta.get("corpus", {}).get("path")
    corpus = read_corpus_texts(path) if texts and path else None  # read once for every configuration
    for row in r.rows:
        run = read_run(Path(folder) / row.run)
        asked = golden_set
        if row.dropped is not None:
            answered = set(run.queries)
            asked = GoldenSet.from_queries([q for q in golden_set if q.id in answered], golden_set.source)
        yield row, evaluate_run(asked, run, metrics=list(r.metrics), fetch=r.meta.get("fetch"), corpus=corpus,
                                tokenizer=tokenizer)
