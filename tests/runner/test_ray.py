"""``ragauge run --executor ray``: the same run as local threads, from Ray actors on a local Ray."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.runner.ray_workers import RaySetup

ray = pytest.importorskip("ray")

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"
GOLDEN = str(HELPDESK / "golden.jsonl")
SPEC = f"bm25:{HELPDESK / 'sections.jsonl'}"


def hits(path: Path) -> dict[str, list[str]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return {r["id"]: [h["doc_id"] if isinstance(h, dict) else h for h in r["hits"]] for r in lines}


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """One local Ray of 2 CPUs for the module (the executor uses a Ray that is already running,
    and leaves it running)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             configure_logging=False)
    yield
    ray.shutdown()


def test_ray_answers_as_threads_do_and_resumes(tmp_path: Path) -> None:
    local, on_ray = tmp_path / "threads.jsonl", tmp_path / "ray.jsonl"
    ragauge.run_retriever(GOLDEN, SPEC, local)
    r = CliRunner().invoke(cli, ["run", GOLDEN, "--retriever", SPEC, "-o", str(on_ray), "--executor", "ray",
                                 "--ray-workers", "2", "--concurrency", "4"])
    assert r.exit_code == 0, r.output
    assert hits(on_ray) == hits(local)
    meta = json.loads(on_ray.read_text().splitlines()[0])["_meta"]
    assert meta["retriever"] == SPEC and meta["golden_hash"]
    # a cut-short file continues on Ray like any other
    lines = on_ray.read_text().splitlines()
    on_ray.write_text("\n".join(lines[:10]) + "\n")
    again = ragauge.run_retriever(GOLDEN, SPEC, on_ray, resume=True, ray=RaySetup(workers=1))
    assert len(again.queries) == 45 and hits(on_ray) == hits(local)


def test_errors_from_the_actors_reach_the_user(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["run", GOLDEN, "--retriever", f"bm25:{tmp_path / 'nope.jsonl'}", "-o",
                                 str(tmp_path / "x.jsonl"), "--executor", "ray", "--ray-workers", "1"])
    assert r.exit_code == 2 and "Traceback" not in r.output  # the driver opens the spec first and refuses it
    with pytest.raises(InputError, match="spec string"):
        ragauge.run_retriever(GOLDEN, lambda q, n: ["a"], ray=RaySetup())
    bad = CliRunner().invoke(cli, ["run", GOLDEN, "--retriever", SPEC, "-o", str(tmp_path / "y.jsonl"),
                                   "--ray-workers", "2"])
    assert bad.exit_code == 2 and "need --executor ray" in bad.stderr
