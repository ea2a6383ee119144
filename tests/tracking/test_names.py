"""The keys results are logged under: MLflow's rules hold for any tag or setting name, the mapping is
deterministic, and names that differ stay apart."""

from __future__ import annotations

import posixpath
import re

from hypothesis import given
from hypothesis import strategies as st

from ragauge.tracking.names import MAX_KEY, MAX_VALUE, key, metric_part, part, value

MLFLOW_KEY = re.compile(r"^[A-Za-z0-9_\-. /]*$")  # MLflow's rule (letters, digits, _ - . / space), in ASCII


def valid(text: str) -> bool:
    """What MLflow's validation takes (``mlflow.utils.validation``): its characters, at most 250 of
    them, and no ``/`` that makes the key resolve to another path."""
    norm = posixpath.normpath(text)
    return (bool(MLFLOW_KEY.match(text)) and 0 < len(text) <= MAX_KEY and norm == text
            and not norm.startswith(("..", "/")) and norm != ".")


def test_metric_specs_map_at_to_at_underscore() -> None:
    assert metric_part("hit@5") == "hit_at_5"
    assert metric_part("recall@2000t") == "recall_at_2000t"
    assert metric_part("mrr") == "mrr"
    assert key(metric="ndcg@10") == "ndcg_at_10"
    assert key("tag", "billing", metric="hit@5") == "tag.billing.hit_at_5"
    assert key("diff", metric="hit@5") == "diff.hit_at_5"


def test_clean_names_keep_their_text_and_others_get_a_hash() -> None:
    for name in ("billing", "exact-term", "EU/billing", "multi section", "v1.2"):
        assert part(name) == name
    assert part("café") == "caf_-850f7dc4"  # the module docstring's example
    assert part("café") != part("cafè") and part("a@b") != part("a_b") and part("a@b") != part("a#b")
    assert part("") == "-e3b0c442"  # an empty name is not an empty key


def test_slashes_that_would_resolve_elsewhere_are_replaced() -> None:
    assert valid(key("tag", "a/../b", metric="hit@5"))
    assert "/" not in key("tag", "a//b", metric="hit@5")
    assert key("tag", "EU/billing", metric="hit@5") == "tag.EU/billing.hit_at_5"


def test_a_long_key_is_cut_with_a_hash() -> None:
    long = key("tag", "x" * 300, metric="hit@5")
    assert len(long) == MAX_KEY and valid(long)
    assert long != key("tag", "x" * 301, metric="hit@5")


def test_long_values_are_cut() -> None:
    assert value("v" * MAX_VALUE) == "v" * MAX_VALUE
    cut = value("v" * (MAX_VALUE + 1))
    assert len(cut) == MAX_VALUE and cut.endswith("...")


@given(st.text(), st.sampled_from(["hit@5", "recall@2000t", "mrr", "n"]))
def test_every_tag_gives_a_key_mlflow_takes(tag: str, metric: str) -> None:
    found = key("tag", tag, metric=metric)
    assert valid(found), found
    assert found == key("tag", tag, metric=metric)  # deterministic


@given(st.text(max_size=20), st.text(max_size=20))
def test_different_tags_give_different_keys(a: str, b: str) -> None:
    if a != b:
        assert key("tag", a, metric="hit@5") != key("tag", b, metric="hit@5")
