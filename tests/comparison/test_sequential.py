"""The sequential comparison: anytime-valid under continuous monitoring, early on real differences,
and the library call and the CLI over two real retrievers (python: callables)."""

from __future__ import annotations

import math

import numpy as np
from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.comparison.sequential import compare_sequential
from ragauge.stats.power import Differences, required_questions
from ragauge.stats.sequential import crossing, sequential_test
from tests.stats.populations import exchangeable, population


def _tilted(d: np.ndarray, target: float) -> np.ndarray:
    lo, hi = -50.0, 50.0
    for _ in range(100):
        mid = (lo + hi) / 2
        w = np.exp(mid * (d - d.max()))
        lo, hi = (mid, hi) if (w * d).sum() / w.sum() < target else (lo, mid)
    w = np.exp(lo * (d - d.max()))
    return np.asarray(w / w.sum())


def test_a_stream_of_no_change_never_decides_and_a_clear_one_does_early() -> None:
    assert crossing(np.zeros(500)) == (None, None)
    stop, direction = crossing(np.full(200, 0.5))
    assert direction == "better" and stop is not None and stop < 40
    assert crossing(np.full(200, -0.5))[1] == "worse"
    t = sequential_test(np.zeros(300))
    assert t.decided is None and t.ci[0] < 0 < t.ci[1] and t.asked == 300


def test_continuous_monitoring_keeps_the_error_rate() -> None:
    """A change of equal quality, looked at after every one of 400 questions: decided in at most
    5 % of runs (+2 Monte-Carlo s.e.), for a skewed null too."""
    rng = np.random.default_rng(3)
    for b, n in (exchangeable("ndcg"), population("skewed null")):
        d = (n - b)[:50_000]
        runs = 300
        wrong = sum(sequential_test(d[rng.integers(0, len(d), 400)]).decided is not None for _ in range(runs))
        assert wrong / runs <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / runs), wrong / runs


def test_a_real_difference_is_found_with_a_fraction_of_the_questions() -> None:
    """True difference 0.05: the right verdict in >= 80 % of runs, stopping (median) before 60 % of
    the questions a fixed-size test planned for 0.02 at 80 % power needs."""
    b, n = population("ndcg")
    d = (n - b)[:20_000]
    planned = required_questions(Differences.observed(d[:4000]), 0.02)
    assert planned is not None
    w = _tilted(d, 0.05)
    rng = np.random.default_rng(5)
    tests = [sequential_test(d[rng.choice(len(d), planned, p=w)]) for _ in range(100)]
    assert sum(t.decided == "better" for t in tests) >= 80
    assert np.median([t.stopped_at or planned for t in tests]) <= 0.6 * planned


def good(query: str, n: int) -> list[str]:
    return [f"d{query[1:]}", "x", "y"][:n]


def bad(query: str, n: int) -> list[str]:
    return ["x", "y", f"d{query[1:]}"][:n] if int(query[1:]) % 5 else ["x", "y", "z"][:n]


GOLDEN = [{"id": f"q{i}", "query": f"q{i}", "relevant": [f"d{i}"]} for i in range(400)]


def test_compare_sequential_calls_both_retrievers_until_the_verdict() -> None:
    found = compare_sequential(GOLDEN, bad, good, metric="mrr", batch=10)
    assert found.test.decided == "better" and found.test.stopped_at is not None
    assert found.test.asked < 400 and found.calls == 2 * 10 * math.ceil(found.test.asked / 10)
    assert found.verdict.startswith("better (certain at alpha 0.05) after")
    assert found.to_dict()["calls"] == found.calls and found.base["spec"] == "function"
    same = compare_sequential(GOLDEN[:50], good, good, metric="mrr")
    assert same.test.decided is None and same.calls == 100 and same.verdict.startswith("no difference shown")


def test_the_cli_refuses_a_sequential_comparison_without_two_retrievers(tmp_path: object) -> None:
    r = CliRunner().invoke(cli, ["compare", "--sequential", "--golden", "g.jsonl"])
    assert r.exit_code == 2 and "--retriever twice" in r.stderr and "Traceback" not in r.output
    r = CliRunner().invoke(cli, ["compare", "--golden", "g.jsonl", "--retriever", "bm25:x"])
    assert r.exit_code == 2 and "--retriever twice" in r.stderr


def test_the_cli_compares_two_retrievers_sequentially(tmp_path: object) -> None:
    import json
    from pathlib import Path

    folder = Path(str(tmp_path))
    golden = folder / "g.jsonl"
    golden.write_text("".join(json.dumps(q) + "\n" for q in GOLDEN))
    here = Path(__file__).resolve()
    args = ["compare", "--golden", str(golden), "--retriever", f"python:{here}:bad", "--retriever",
            f"python:{here}:good", "--sequential", "--metric", "mrr"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert "verdict" in r.stdout and "better (certain at alpha 0.05) after" in r.stdout
    data = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).stdout)
    assert data["decided"] == "better" and data["asked"] < 400 and data["ragauge_sequential"] == 1
    fixed = CliRunner().invoke(cli, args[:-3] + ["--metrics", "mrr"])
    assert fixed.exit_code == 0 and "better (significant)" in fixed.stdout, fixed.output
