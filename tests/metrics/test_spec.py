from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.errors import InputError
from ragauge.metrics.registry import METRICS
from ragauge.metrics.spec import MetricSpec, default_metrics, parse_metric, parse_metrics

specs = st.one_of(
    st.builds(MetricSpec, st.sampled_from([n for n, f in METRICS.items() if f.cutoff != "none"]),
              st.integers(min_value=1, max_value=10_000)),
    st.builds(MetricSpec, st.sampled_from([n for n, f in METRICS.items() if f.cutoff != "required"])),
)


@given(specs)
def test_text_form_parses_back_to_an_equal_hashable_value(spec: MetricSpec) -> None:
    again = parse_metric(str(spec))
    assert again == spec and hash(again) == hash(spec)
    assert str(again) == str(spec)


@pytest.mark.parametrize(("text", "canonical"), [
    ("nDCG@10", "ndcg@10"), ("Success@5", "hit@5"), ("P@5", "precision@5"), ("R@100", "recall@100"),
    ("RR", "mrr"), ("recip_rank", "mrr"), ("AP@10", "map@10"), (" mrr@10 ", "mrr@10"), ("Rprec", "rprec"),
])
def test_aliases_and_case(text: str, canonical: str) -> None:
    assert str(parse_metric(text)) == canonical


@pytest.mark.parametrize(("text", "message"), [
    ("ndgc@10", "did you mean ndcg"), ("recal@5", "did you mean recall"), ("hit", "needs a cutoff"),
    ("rprec@5", "takes no cutoff"), ("ndcg@0", "an integer from 1 to"), ("ndcg@x", "an integer from 1 to"),
    ("ndcg@²", "an integer from 1 to"), ("@5", "cannot parse"),
])
def test_bad_specs_explain(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_metric(text)
    assert message in str(info.value)


def test_lists_and_defaults() -> None:
    assert [str(s) for s in parse_metrics("hit@1, recall@10,mrr,hit@1")] == ["hit@1", "recall@10", "mrr"]
    assert [str(s) for s in default_metrics([5])] == ["hit@5", "recall@5", "mrr", "ndcg@5"]


def test_every_family_documents_its_formula() -> None:
    for family in METRICS.values():
        assert len(family.doc) > 40, family.name
