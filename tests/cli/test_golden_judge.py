"""``golden judge`` and ``golden judge-stats`` from the command line; and the real process, killed
mid-way, losing nothing."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ragauge.cli.main import cli
from ragauge.data.judgements import Judgement
from ragauge.formats.golden import load_golden
from ragauge.formats.judgements import append_judgement
from tests.curation.judging import make


def run(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def judge(log: Path, who: str, q: str, doc: str, grade: int) -> None:
    append_judgement(log, Judgement(q, doc, "grade", who, "2026-11-03T09:00:00Z", grade))


def test_finish_merges_and_says_what_it_did(tmp_path: Path) -> None:
    paths = make(tmp_path)
    judge(paths["log"], "ana", "q1", "kb-vpn2", 2)
    judge(paths["log"], "bo", "q1", "kb-vpn2", 1)
    judge(paths["log"], "ana", "q2", "kb-jam", 1)
    result = run("golden", "judge", paths["pool"], "--finish")
    assert result.exit_code == 0, result.output
    assert "merged 1 label(s) into 1 question(s)" in result.output and "NOT merged: q1/kb-vpn2" in result.output
    result = run("golden", "judge", paths["pool"], "--finish", "--adjudicator", "ana", "--format", "json",
                 "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # kb-jam is in the golden set since the first --finish; kb-vpn2 is settled by the adjudicator now
    assert out["labels_added"] == 1 and out["unresolved"] == [] and out["output"] == str(tmp_path / "out.jsonl")
    assert load_golden(tmp_path / "out.jsonl").by_id["q1"].relevant["kb-vpn2"] == 2


def test_the_page_needs_a_corpus_and_bad_input_exits_2(tmp_path: Path) -> None:
    paths = make(tmp_path)
    result = run("golden", "judge", paths["pool"], "--no-open")
    assert result.exit_code == 2 and "--corpus" in result.output
    result = run("golden", "judge", tmp_path / "none.jsonl", "--corpus", paths["corpus"], "--no-open")
    assert result.exit_code == 2 and "not found" in result.output
    paths["log"].write_text('{"v": 1}\n')
    result = run("golden", "judge", paths["pool"], "--finish")
    assert result.exit_code == 2 and f"{paths['log']}:1" in result.output and "Traceback" not in result.output


def test_judge_stats_text_and_json(tmp_path: Path) -> None:
    paths = make(tmp_path)
    for who, grade in (("ana", 1), ("bo", 2)):
        judge(paths["log"], who, "q1", "kb-vpn2", grade)
    for who in ("ana", "bo"):
        judge(paths["log"], who, "q2", "kb-jam", 0)
    result = run("golden", "judge-stats", paths["log"])
    assert result.exit_code == 0, result.output
    assert "ana ~ bo" in result.output and "q1 / kb-vpn2" in result.output and "UNRESOLVED" in result.output
    result = run("golden", "judge-stats", paths["log"], "--format", "json", "--adjudicator", "bo")
    data = json.loads(result.stdout)
    assert data["pairs"][0]["items"] == 2 and data["disagreements"][0]["how"] == "adjudicator"
    assert run("golden", "judge-stats").exit_code == 2


def _read_line(stream: object, deadline: float) -> str:
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
    while time.monotonic() < deadline:
        if selector.select(timeout=0.2):
            return stream.readline()  # type: ignore[attr-defined, no-any-return]
    raise AssertionError("the judging page did not start in time")


def _start(paths: dict[str, Path]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "ragauge", "golden", "judge", str(paths["pool"]), "--corpus",
                             str(paths["corpus"]), "--annotator", "ana", "--no-open"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    line = _read_line(proc.stderr, time.monotonic() + 30)
    found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", line)
    assert found, line
    return proc, line.split(": ", 1)[1].strip()


def test_a_killed_process_loses_nothing_and_the_next_start_resumes(tmp_path: Path) -> None:
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("starlette", reason="the judge extra")
    paths = make(tmp_path)
    proc, url = _start(paths)
    try:
        base, token = url.split("/?token=")
        headers = {"X-Ragauge-Token": token}
        assert httpx.get(base + "/api/progress").status_code == 403
        r = httpx.post(base + "/api/judge", json={"action": "grade", "grade": 2, "q": 0, "c": 0}, headers=headers)
        assert r.status_code == 200 and r.json()["progress"]["graded"] == 1
        os.kill(proc.pid, signal.SIGKILL)  # no chance to flush or clean up
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert [json.loads(x)["grade"] for x in paths["log"].read_text().splitlines()] == [2]
    proc, url = _start(paths)
    try:
        base, token = url.split("/?token=")
        progress = httpx.get(base + "/api/progress", headers={"X-Ragauge-Token": token}).json()
        assert progress["progress"]["graded"] == 1 and progress["next"] == {"q": 0, "c": 1}
        proc.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop
        assert proc.wait(timeout=15) == 0
        assert "stopped: 1 graded, 0 skipped, 3 left of 4" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
