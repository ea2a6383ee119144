"""What an evaluation is asked to do (``EvalOptions``) and the rules its numbers obey (``Contract``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ragauge.core.numbers import COUNT, check_number
from ragauge.data.relevance import RELEVANCE_LEVEL
from ragauge.errors import InputError, flag
from ragauge.metrics.judged import UNJUDGED, Unjudged
from ragauge.metrics.spec import DEFAULT_K, MetricSpec, default_metrics, parse_metrics
from ragauge.models.tokens import WORDS

if TYPE_CHECKING:
    from ragauge.formats.corpus import CorpusTexts
    from ragauge.models.tokens import Tokenizer

DEDUP_RULE = "chunk hits folded into their document, first occurrence kept, in retriever order"
OnError = Literal["zero", "skip"]
MEAN_OVER = "answerable questions"
MEAN_OVER_REAL = "answerable questions not written by an LLM (synthetic ones apart)"
MEAN_OVER_MIXED = "answerable questions, real and synthetic mixed"


@dataclass(frozen=True)
class EvalOptions:
    """How to score a run. ``metrics`` (specs such as ``"ndcg@10"``) default to hit@k, recall@k,
    mrr and ndcg@k for each cutoff in ``k``; ``fetch`` keeps each question's first N raw hits
    before deduplication (None: all); ``doc_id_sep``/``doc_id_pattern`` map chunk ids to documents;
    ``on_error`` scores failed questions 0 ("zero") or leaves them out of every mean ("skip");
    ``known_documents`` (an index's ids) turns on stale-label checking; ``unjudged`` says how a
    document the golden set does not label counts: "non-relevant" (trec_eval's rule) or "unknown"
    (left out of each ranking before scoring: condensed lists); ``corpus`` (a corpus file or folder
    the built-in retrievers read, or ``{doc_id: text}``) gives the texts the failure patterns
    exact-term and vocabulary-gap need, and its ids are the index's documents unless
    ``known_documents`` is given; ``mix_synthetic`` averages questions an LLM wrote (``"source":
    "synthetic"``) together with the others instead of scoring them apart (see ``score_run``);
    ``tokenizer`` counts token budgets (``recall@2000t``) in its tokens instead of the run's word
    lengths, from the corpus text each hit covers (``ragauge.models.tokens``)."""

    metrics: Sequence[str | MetricSpec] | str | None = None
    k: int | Sequence[int] = DEFAULT_K
    fetch: int | None = None
    doc_id_sep: str | None = None
    doc_id_pattern: str | None = None
    on_error: OnError = "zero"
    known_documents: Set[str] | None = None
    unjudged: Unjudged = "non-relevant"
    corpus: str | Path | Mapping[str, str] | CorpusTexts | None = None
    mix_synthetic: bool = False
    tokenizer: str | Tokenizer | None = None
    grades: str | Mapping[float, float] | None = None
    """A grade mapping (``"1:3,2:2,3:1,4:0,-1:0"``, ``evaluation.grades``) applied to the golden set's
    labels before scoring; part of the contract."""

    def specs(self) -> tuple[MetricSpec, ...]:
        """The metric specs asked for; InputError for a bad spec or cutoff."""
        if self.metrics is not None:  # an empty list is an error, not the defaults
            if isinstance(self.metrics, str):
                return parse_metrics(self.metrics)
            return tuple(dict.fromkeys(m if isinstance(m, MetricSpec) else parse_metrics(m)[0] for m in self.metrics))
        ks = [self.k] if isinstance(self.k, int) else list(self.k)
        if not ks or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in ks):
            raise InputError(f"cutoffs must be positive integers, got {self.k!r}", hint="e.g. -k 5 or -k 1,5,10")
        return default_metrics(ks)

    def checked_fetch(self) -> int | None:
        if self.fetch is None:
            return None
        return int(check_number(self.fetch, f"{flag('fetch')} (hits kept per question)", COUNT))

    def checked_on_error(self) -> OnError:
        if self.on_error not in ("zero", "skip"):
            raise InputError(f"on_error must be 'zero' or 'skip', got {self.on_error!r}")
        return self.on_error

    def checked_unjudged(self) -> Unjudged:
        if self.unjudged not in UNJUDGED:
            raise InputError(f"unjudged must be {' or '.join(map(repr, UNJUDGED))}, got {self.unjudged!r}",
                             hint=f"{flag('unjudged', 'non-relevant')} (the default, as trec_eval) or "
                                  f"{flag('unjudged', 'unknown')}")
        return self.unjudged


LABELS_AS_GIVEN = "as given"


@dataclass(frozen=True)
class Contract:
    """The rules behind a result's numbers. Two results are comparable when their ``COMPARABLE``
    fields agree (the metric list and cutoffs may differ: each metric is compared on its own)."""

    metrics: tuple[str, ...]
    k: tuple[int, ...]
    fetch: int | None
    doc_id: str
    dedup: str = DEDUP_RULE
    relevance: str = f"grade >= {RELEVANCE_LEVEL}"
    mean_over: str = MEAN_OVER
    unjudged: Unjudged = "non-relevant"
    budget: str = WORDS
    """What a token budget counts: ``words`` (the run's lengths) or a tokenizer's name."""
    labels: str = LABELS_AS_GIVEN
    grades: str = LABELS_AS_GIVEN
    """The grade mapping applied to the labels (``evaluation.grades.describe``), or ``as given``."""
    """The labels the numbers were scored against: ``as given`` (the golden set's), or, when a corpus or
    an index changed them (stale labels dropped, span labels resolved in its text), ``effective`` and the
    hash of the labels that remained: the same golden set scored with another corpus is not comparable."""

    COMPARABLE = ("fetch", "dedup", "doc_id", "relevance", "unjudged", "mean_over", "budget", "labels", "grades")

    def to_dict(self) -> dict[str, Any]:
        return {"metrics": list(self.metrics), "k": list(self.k), "fetch": self.fetch, "dedup": self.dedup,
                "doc_id": self.doc_id, "relevance": self.relevance, "mean_over": self.mean_over,
                "unjudged": self.unjudged, **({"budget": self.budget} if self.budget != WORDS else {}),
                **({"labels": self.labels} if self.labels != LABELS_AS_GIVEN else {}),
                **({"grades": self.grades} if self.grades != LABELS_AS_GIVEN else {})}


_BEFORE = {"unjudged": "non-relevant", "budget": WORDS, "labels": LABELS_AS_GIVEN, "grades": LABELS_AS_GIVEN}
"""What a contract stored before a field existed meant (results and baselines written earlier)."""


def contract_value(contract: dict[str, Any], key: str) -> Any:
    """A stored contract's field, or what its absence means in a file written before the field."""
    return contract.get(key, _BEFORE.get(key))


def contract_differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The comparable contract fields on which two stored contracts differ (what a token budget
    counts matters only when both hold a budget metric)."""
    keys = [k for k in Contract.COMPARABLE if k != "budget" or (_has_budget(a) and _has_budget(b))]
    return [key for key in keys if contract_value(a, key) != contract_value(b, key)]


def _has_budget(contract: dict[str, Any]) -> bool:
    from ragauge.metrics.spec import parse_metric

    try:
        return any(parse_metric(str(m)).budget is not None for m in contract.get("metrics", []))
    except InputError:  # a metric this version does not know: compare the field
        return True
