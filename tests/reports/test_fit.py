"""Fitting text reports to a terminal (reports/fit.py): unfitted tables are core.table's byte for byte,
fitted ones never pass the width, and no cell is lost on the way."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.core.table import text_table
from ragauge.reports.fit import fit_table, glue, wrap

WORD = st.text(st.sampled_from("abcxyz0123456789+-.[],=/_#"), min_size=1, max_size=30)
CELL = st.lists(WORD, min_size=0, max_size=4).map(" ".join)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    n = draw(st.integers(1, 9))
    header = draw(st.lists(st.text(st.sampled_from("abc @%"), min_size=1, max_size=12), min_size=n, max_size=n))
    rows = draw(st.lists(st.lists(CELL, min_size=n, max_size=n), max_size=6))
    return header, rows


def _words(lines: list[str]) -> list[str]:
    return "".join(line.replace(" ", "") for line in lines if not set(line) <= {"-", " "}).split()


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(40, 160), st.integers(1, 2), st.lists(st.integers(1, 3), max_size=4))
def test_a_fitted_table_never_passes_the_width_and_keeps_every_character(
        table: tuple[list[str], list[list[str]]], width: int, keep: int, groups: list[int]) -> None:
    header, rows = table
    assert fit_table(header, rows, None, keep=keep, groups=groups) == text_table(header, rows)
    lines = fit_table(header, rows, width, keep=keep, groups=groups)
    assert all(len(line) <= width for line in lines), (width, lines)
    if sum(max(len(c) for c in col) for col in zip(header, *rows)) + 2 * (len(header) - 1) <= width:
        assert lines == text_table(header, rows)  # a table that fits is left alone
    shown = "".join(lines).replace(" ", "").replace("-", "")
    for cell in [*header, *(c for r in rows for c in r)]:
        for ch in cell.replace(" ", "").replace("-", ""):
            assert ch in shown  # every cell's text is there (wrapped onto more lines at worst)


def test_a_wide_table_comes_in_blocks_each_with_its_key_and_groups_together() -> None:
    header = ["configuration", *(x for m in ("ndcg@5", "recall@5", "mrr") for x in (m, "diff [95% CI]")), "p50 ms"]
    rows = [["bm25 chunk_size=50 chunk_overlap=10", *("0.588", "+0.029 [-0.097, +0.150]") * 3, "0.2"],
            ["hybrid", *("0.445", "-0.114 [-0.251, +0.028]*") * 3, "0.9"]]
    lines = fit_table(header, rows, 80, groups=[2, 2, 2])
    assert max(map(len, lines)) <= 80
    heads = [line for line in lines if line.startswith("configuration")]
    assert len(heads) == 3 and all("diff [95% CI]" in h for h in heads[:3])
    assert heads[0].split()[1] == "ndcg@5" and heads[1].split()[1] == "recall@5"  # each metric beside its diff
    assert sum(line.startswith("bm25 chunk_size=50 chunk_overlap=10") for line in lines) == 3


def test_a_long_name_goes_on_over_more_lines_rather_than_being_cut() -> None:
    spec = "bm25:/work/main/examples/helpdesk/sections.jsonl?chunk_size=50&chunk_overlap=10"
    lines = fit_table(["index", "passages", "build s", "opened s", "size MB", "cached", "used by"],
                      [[spec, "696", "0.0", "0.0", "0.27", "no", "1"]], 80)
    assert max(map(len, lines)) <= 80 and "…" not in "".join(lines)
    first = [line for line in lines if line.startswith("bm25:")][0]
    block = lines[:lines.index("") if "" in lines else len(lines)]
    assert "".join(line[:len(first.split()[0]) + 2].strip() for line in block[2:]) == spec


def test_wrap_splits_only_what_cannot_fit_and_keeps_glued_words_together() -> None:
    ids = ["networking/dns-troubleshooting#laptop-uses-the-wrong-dns-server", "software/web#a"]
    lines = wrap(", ".join(ids), 80, "    now above it: ", " " * 18, split=True)
    assert all(len(line) <= 80 for line in lines)
    assert lines[0] == "    now above it:"  # the id moves to the next line, whole
    assert "".join(lines).replace(" ", "").endswith(", ".join(ids).replace(" ", ""))
    drops = ", ".join(glue(f"{m} -0.5000") for m in ("hit@1", "recall@10", "ndcg@10") * 4)
    for line in wrap(drops, 40, "  ", "    ", split=True):
        assert len(line) <= 40 and not line.rstrip().endswith(("hit@1", "recall@10", "ndcg@10"))
    assert wrap("a b", None, "  ") == ["  a b"] and wrap(glue("a b"), None) == ["a b"]
