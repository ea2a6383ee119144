"""``ragauge run --shard I/N`` and ``ragauge run merge``: deterministic parts of one run, joined only
when they are exactly one run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.shard import Shard, parse_shard
from ragauge.errors import InputError

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"
GOLDEN = str(HELPDESK / "golden.jsonl")
SPEC = f"bm25:{HELPDESK / 'sections.jsonl'}"


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


def test_shards_partition_the_questions_whatever_the_order() -> None:
    ids = [f"q{i}" for i in range(1000)]
    owners = [[s for s in range(1, 5) if Shard(s, 4).holds(i)] for i in ids]
    assert all(len(o) == 1 for o in owners)
    sizes = [sum(o == [s] for o in owners) for s in range(1, 5)]
    assert min(sizes) > 200  # roughly even
    golden = GoldenSet.from_queries([GoldenQuery(i, "x", {"d": 1}) for i in ids])
    backwards = GoldenSet.from_queries(list(golden)[::-1])
    assert {q.id for q in Shard(2, 4).select(golden)} == {q.id for q in Shard(2, 4).select(backwards)}
    assert parse_shard("3/8") == Shard(3, 8)
    for bad in ("0/4", "5/4", "1", "a/b", "1/0"):
        with pytest.raises(InputError):
            parse_shard(bad)


def test_sharded_runs_merge_into_the_unsharded_run(tmp_path: Path) -> None:
    parts = []
    for i in (1, 2, 3):
        out = tmp_path / f"s{i}.jsonl"
        r = invoke("run", GOLDEN, "--retriever", SPEC, "--shard", f"{i}/3", "-o", str(out))
        assert r.exit_code == 0, r.output
        parts.append(str(out))
        assert json.loads(out.read_text().splitlines()[0])["_meta"]["shard"]["count"] == 3
    r = invoke("run", "merge", *parts, "-o", str(tmp_path / "all.jsonl"))
    assert r.exit_code == 0, r.output
    assert "wrote 45 questions from 3 shards" in r.stderr
    whole = ragauge.evaluate(GOLDEN, SPEC, k=5)
    merged = ragauge.evaluate_run(GOLDEN, tmp_path / "all.jsonl", k=5)
    assert merged.summary == whole.summary and not any("missing" in w for w in merged.warnings)
    one = ragauge.evaluate_run(GOLDEN, parts[0], k=5)
    assert any(w.startswith("NOTE: this run is shard 1/3") for w in one.warnings)
    answers = sorted(line for p in parts for line in Path(p).read_text().splitlines()[1:])
    assert sorted((tmp_path / "all.jsonl").read_text().splitlines()[1:]) == answers  # the shards' lines, as written


def test_merging_keeps_every_line_as_the_shards_wrote_it(tmp_path: Path) -> None:
    """The merged file holds the shards' answers as read, not as a columnar Run gives them back (which
    dropped a failed call's latency, and took 6.5 s for 400,000 hits against 2.7 s now)."""
    from ragauge.runner.shards import merge_shards

    parts = []
    for i in (1, 2):
        meta = {"retriever": "x", "shard": {"index": i, "count": 2, "golden_hash": "h", "golden_questions": 2}}
        answer = ({"id": "a", "hits": [{"doc_id": "d1", "score": 0.5}], "latency_ms": 3.0} if i == 1 else
                  {"id": "b", "hits": [], "latency_ms": 30000.0, "error": "timed out after 30 s"})
        path = tmp_path / f"s{i}.jsonl"
        path.write_text(json.dumps({"_meta": meta}) + "\n" + json.dumps(answer) + "\n")
        parts.append(path)
    merged = merge_shards(parts, tmp_path / "all.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "all.jsonl").read_text().splitlines()]
    assert lines[0]["_meta"] == {"retriever": "x", "golden_hash": "h", "merged_from": [str(p) for p in parts]}
    assert lines[1:] == [json.loads(p.read_text().splitlines()[1]) for p in parts]
    assert merged.errors == {"b": "timed out after 30 s"} and merged.latency_ms == {"a": 3.0}


@pytest.mark.parametrize("case", ["missing", "twice", "other run", "not a shard", "other golden"])
def test_merge_refuses_anything_but_one_whole_run(tmp_path: Path, case: str) -> None:
    def shard(i: int, n: int = 3, spec: str = SPEC, golden: str = GOLDEN, name: str = "") -> str:
        out = tmp_path / f"{name or 's'}{i}-{n}.jsonl"
        ragauge.run_retriever(golden, spec, out, shard=f"{i}/{n}")
        return str(out)

    files = [shard(1), shard(2)]
    if case == "missing":
        error = "shard(s) 3/3 missing"
    elif case == "twice":
        files += [files[0]]
        error = "shard 1/3 is also"
    elif case == "other run":
        files += [shard(3, spec=SPEC + "?k1=0.9", name="k")]
        error = "made differently"
    elif case == "not a shard":
        plain = tmp_path / "plain.jsonl"
        ragauge.run_retriever(GOLDEN, SPEC, plain)
        files += [str(plain)]
        error = "no 'shard' record"
    else:
        other = tmp_path / "g.jsonl"
        other.write_text("".join(line + "\n" for line in Path(GOLDEN).read_text().splitlines()[:-1]))
        files += [shard(3, golden=str(other), name="o")]
        error = "does not belong with"
    r = invoke("run", "merge", *files, "-o", str(tmp_path / "out.jsonl"))
    assert r.exit_code == 2 and error in r.stderr and "Traceback" not in r.output, r.output
    assert not (tmp_path / "out.jsonl").exists()


def test_resume_keeps_to_its_shard(tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    assert invoke("run", GOLDEN, "--retriever", SPEC, "--shard", "1/3", "-o", str(out)).exit_code == 0
    r = invoke("run", GOLDEN, "--retriever", SPEC, "--shard", "2/3", "-o", str(out), "--resume")
    assert r.exit_code == 2 and "--shard: 1/3 in the file, 2/3 now" in r.stderr
    assert invoke("run", GOLDEN, "--retriever", SPEC, "--shard", "1/3", "-o", str(out), "--resume").exit_code == 0
