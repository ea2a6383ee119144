"""``ragauge run`` is never silently wrong: one retriever per run file, numbers checked where they
enter, a retriever that is down is an error, timeouts hold for python: retrievers, Ctrl-C keeps
what it can and never leaves a traceback, and a full disk is a message."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.formats.runs import read_run
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.registry import open_retriever
from ragauge.runner.executor import ExecutorOptions, RetrieverDown, run_retriever

from .test_executor import GOLDEN, Fake

SRC = Path(__file__).parents[2] / "src"


def _golden(folder: Path, n: int = 4) -> Path:
    path = folder / "golden.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "query": f"question {i}", "relevant": {f"d{i}": 1}}) + "\n"
                            for i in range(1, n + 1)))
    return path


def _module(folder: Path, body: str, name: str = "searchmod.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


def _run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["run", *args])


# -- A. a run file is one retriever --------------------------------------------------------------

class Other(Fake):
    def __init__(self, spec: str = "fake:", settings: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.spec, self.settings = spec, settings or {"fake": True}

    def describe(self) -> dict[str, Any]:
        return self.settings


def test_resume_refuses_another_retriever_settings_fetch_or_golden_set_and_says_what_differs(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_retriever(GOLDEN, Other("fake:a", {"k1": 1.2, "nested": {"x": [1, 2]}}), out, ExecutorOptions(fetch=2))
    before = out.read_bytes()
    cases = [(Other("fake:b", {"k1": 1.2, "nested": {"x": [1, 2]}}), 2,
              "retriever: 'fake:a' in the file, 'fake:b' now"),
             (Other("fake:a", {"k1": 1.5, "nested": {"x": [1, 2]}}), 2, "settings.k1: 1.2 in the file, 1.5 now"),
             (Other("fake:a", {"k1": 1.2, "nested": {"x": [1, 3]}}), 2,
              "settings.nested.x: [1, 2] in the file, [1, 3] now"),
             (Other("fake:a", {"k1": 1.2, "nested": {"x": (1, 2)}}), 5, "fetch=: 2 in the file, 5 now")]
    for retriever, fetch, message in cases:
        with pytest.raises(InputError) as info:
            run_retriever(GOLDEN, retriever, out, ExecutorOptions(fetch=fetch), resume=True)
        assert message in str(info.value) and "a new run file" in str(info.value)
        assert out.read_bytes() == before  # nothing appended
    calls: list[str] = []
    same = Other("fake:a", {"k1": 1.2, "nested": {"x": (1, 2)}})  # a tuple reads back as a list: the same
    same.calls = calls
    run_retriever(GOLDEN, same, out, ExecutorOptions(fetch=2), resume=True)
    assert calls == []


def test_cli_resume_with_another_bm25_setting_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": f"question {i} text"}) + "\n" for i in range(1, 5)))
    golden, out = _golden(tmp_path), tmp_path / "run.jsonl"
    assert _run(str(golden), "--retriever", f"bm25:{corpus}?k1=1.2", "-o", str(out)).exit_code == 0
    result = _run(str(golden), "--retriever", f"bm25:{corpus}?k1=0.9", "-o", str(out), "--resume")
    assert result.exit_code == 2 and "settings.k1: 1.2 in the file, 0.9 now" in result.stderr, result.output
    assert "retriever: " in result.stderr
    result = _run(str(golden), "--retriever", f"bm25:{corpus}?k1=1.2", "-o", str(out), "--resume", "--fetch", "3")
    assert result.exit_code == 2 and "--fetch: 20 in the file, 3 now" in result.stderr
    assert len(read_run(out).queries) == 4


# -- D. numbers, answers, a retriever that is down ----------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--timeout", "nan"], "--timeout must be a finite number in (0, 1e+06], got nan"),
    (["--timeout", "inf"], "--timeout must be"),
    (["--timeout", "0"], "--timeout must be"),
    (["--timeout", "-1"], "--timeout must be"),
    (["--fetch", "0"], "--fetch must be an integer >= 1"),
    (["--concurrency", "0"], "--concurrency must be an integer >= 1"),
    (["--retries", "-1"], "--retries must be an integer >= 0"),
])
def test_run_options_are_checked_where_they_enter(tmp_path: Path, args: list[str], message: str) -> None:
    result = _run(str(_golden(tmp_path)), "--retriever", "bm25:x.jsonl", "-o", str(tmp_path / "r.jsonl"), *args)
    assert result.exit_code == 2 and message in result.stderr, result.output


@pytest.mark.parametrize("options, message", [
    ("k1=nan", "option k1 must be a finite number > 0"), ("k1=0", "option k1 must be"), ("k1=inf", "option k1"),
    ("b=1.5", "option b must be a finite number in [0, 1]"), ("b=-0.1", "option b must be"),
    ("chunk_size=5&chunk_overlap=5", "chunk_overlap must be smaller than chunk_size"),
    ("chunk_size=-3", "option chunk_size must be an integer >= 0"), ("chunk_overlap=4", "needs a chunk_size"),
])
def test_bm25_numbers(tmp_path: Path, options: str, message: str) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "d1", "text": "t"}\n')
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("(", r"\(")):
        open_retriever(f"bm25:{corpus}?{options}")


@pytest.mark.parametrize("options, message", [("rrf_k=nan", "option rrf_k must be a finite number >= 0"),
                                              ("rrf_k=-inf", "option rrf_k"),
                                              ("depth=0", "option depth must be an integer >= 1"),
                                              ("depth=2.5", "option depth")])
def test_hybrid_numbers(tmp_path: Path, options: str, message: str) -> None:
    from ragauge.retrieve import hybrid

    with pytest.raises(InputError, match=message):
        hybrid._route(dict([options.split("=")]), f"hybrid:c.jsonl?{options}")
    with pytest.raises(InputError, match="rrf_k must be"):
        hybrid.rrf([["a"]], float("nan"))


@pytest.mark.parametrize("args, message", [(["--batch-size", "0"], "--batch-size must be an integer >= 1"),
                                           (["--chunk-overlap", "-1"], "chunk_overlap must be an integer >= 0"),
                                           (["--chunk-size", "10", "--chunk-overlap", "10"],
                                            "smaller than chunk_size")])
def test_index_numbers(tmp_path: Path, args: list[str], message: str) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "d1", "text": "t"}\n')
    result = CliRunner().invoke(cli, ["index", "pgvector", str(corpus), "postgresql://me@127.0.0.1:1/db", *args])
    assert result.exit_code == 2 and message in result.stderr, result.output


@pytest.mark.parametrize("returned, message", [
    ('[("d1", float("nan"))]', "a score of nan (rank 1, document 'd1') for question 'q1'"),
    ('[("d1", 1.0), ("d2", float("-inf"))]', "a score of -inf (rank 2"),
])
def test_a_non_finite_score_names_the_question(tmp_path: Path, returned: str, message: str) -> None:
    mod = _module(tmp_path, f"def search(query, n):\n    return {returned}\n")
    result = _run(str(_golden(tmp_path)), "--retriever", f"python:{mod}:search", "--concurrency", "1",
                  "-o", str(tmp_path / "r.jsonl"))
    assert result.exit_code == 2 and message in result.stderr, result.output


def test_a_retriever_that_is_down_exits_2_with_the_first_error(tmp_path: Path) -> None:
    mod = _module(tmp_path, "def search(query, n):\n    raise ConnectionRefusedError('nobody listens on 8080')\n")
    out = tmp_path / "r.jsonl"
    result = _run(str(_golden(tmp_path)), "--retriever", f"python:{mod}:search", "--retries", "0", "-o", str(out))
    assert result.exit_code == 2, result.output
    assert "every call to the retriever failed (4 of 4 questions)" in result.stderr
    assert "nobody listens on 8080" in result.stderr and "check that the retriever is running" in result.stderr
    assert "Traceback" not in result.output
    run = read_run(out)  # the file it names exists and records the errors, without latencies
    assert len(run.errors) == 4 and not run.latency_ms
    with pytest.raises(RetrieverDown) as down:  # without a file the message names none
        run_retriever(GOLDEN, Fake(fail={q.query for q in GOLDEN}), None, ExecutorOptions(retries=0))
    assert "recorded in" not in str(down.value)


def test_failed_calls_record_no_latency(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run = run_retriever(GOLDEN, Fake(fail={"printer jam"}), out, ExecutorOptions(retries=0))
    assert "q2" not in run.latency_ms and set(run.latency_ms) == {"q1", "q3", "q4"}
    line = next(json.loads(x) for x in out.read_text().splitlines() if '"q2"' in x)
    assert "latency_ms" not in line and line["error"] == "ValueError: boom"


@pytest.mark.parametrize("spec, message", [
    ("cmd:python 'search.py", "balance the quotes"),
    ("cmd:python search.py \\", "balance the quotes"),
])
def test_cmd_with_an_unbalanced_quote(tmp_path: Path, spec: str, message: str) -> None:
    result = _run(str(_golden(tmp_path)), "--retriever", spec, "-o", str(tmp_path / "r.jsonl"))
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output, result.output


@pytest.mark.parametrize("body, message", [
    ("raise RuntimeError('no API key configured')\n", "raised RuntimeError: no API key configured (at "),
    ("def search(query, n)\n    return []\n", "raised SyntaxError"),
    ("import sys\nsys.exit(3)\n", "raised SystemExit"),
])
def test_a_python_module_that_raises_at_import(tmp_path: Path, body: str, message: str) -> None:
    mod = _module(tmp_path, body, "broken.py")
    result = _run(str(_golden(tmp_path)), "--retriever", f"python:{mod}:search", "-o", str(tmp_path / "r.jsonl"))
    assert result.exit_code == 2 and message in result.stderr, result.output


# -- C. timeouts and interrupts -------------------------------------------------------------------

def test_timeout_holds_for_a_blocking_python_retriever(tmp_path: Path) -> None:
    mod = _module(tmp_path, """
        import threading
        RELEASE = threading.Event()
        def search(query, n):
            if query == "printer jam":
                RELEASE.wait(60)
            return ["kb-vpn"]
    """)
    retriever = open_retriever(f"python:{mod}:search", RetrieverOptions(timeout=0.3))
    start = time.monotonic()
    try:
        run = run_retriever(GOLDEN, retriever, tmp_path / "r.jsonl", ExecutorOptions(retries=1, backoff=0.01))
        elapsed = time.monotonic() - start
        assert elapsed < 5, elapsed
        assert "TimeoutError" in run.errors["q2"] and "after 2 attempts" in run.errors["q2"]  # retried once
        assert run.result("q1").hits and retriever.abandoned == 2  # type: ignore[attr-defined]
    finally:
        retriever.fn.__globals__["RELEASE"].set()  # type: ignore[attr-defined]
        retriever.close()


def test_cli_mentions_abandoned_calls(tmp_path: Path) -> None:
    mod = _module(tmp_path, """
        import time
        def search(query, n):
            if query == "question 2":
                time.sleep(3)
            return ["d1"]
    """)
    result = _run(str(_golden(tmp_path)), "--retriever", f"python:{mod}:search", "--timeout", "0.2",
                  "--retries", "0", "-o", str(tmp_path / "r.jsonl"))
    assert result.exit_code == 0, result.output
    assert "1 call(s) overran --timeout 0.2 s and were abandoned" in result.stderr


SLOW_MODULE = """
    import os, pathlib, time
    MARKS = pathlib.Path(os.environ["MARKS"])
    def search(query, n):
        i = int(query.split()[1])
        (MARKS / f"started-{i}").touch()
        time.sleep({sleep})
        return [f"d{i}"]
"""


def _start(tmp_path: Path, sleep: str, n: int = 6) -> tuple[subprocess.Popen[str], Path, Path]:
    marks = tmp_path / "marks"
    marks.mkdir()
    mod = _module(tmp_path, SLOW_MODULE.replace("{sleep}", sleep), "slow.py")
    out = tmp_path / "run.jsonl"
    env = {**os.environ, "PYTHONPATH": str(SRC), "MARKS": str(marks)}
    env.pop("CI", None)
    proc = subprocess.Popen([sys.executable, "-m", "ragauge", "run", str(_golden(tmp_path, n)), "--retriever",
                             f"python:{mod}:search", "--concurrency", "2", "--timeout", "600", "-o", str(out)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, marks, out


@pytest.fixture
def processes() -> Any:
    """Started processes, killed at the end of the test whatever happened (by their own handle)."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _wait_for(marks: Path, *names: str, limit: float = 20.0) -> None:
    end = time.monotonic() + limit
    while not all((marks / name).exists() for name in names):
        assert time.monotonic() < end, f"the retriever never started {names}"
        time.sleep(0.02)


def test_first_ctrl_c_keeps_the_answers_of_calls_in_flight_and_says_how_to_resume(tmp_path: Path,
                                                                                  processes: list[Any]) -> None:
    # q1 and q2 answer at once, later calls take 0.8 s: interrupt while q3 and q4 are in flight
    proc, marks, out = _start(tmp_path, "0.8 if i > 2 else 0")
    processes.append(proc)
    _wait_for(marks, "started-3", "started-4")
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert time.monotonic() - start < 2.0  # the calls in flight finished within the grace period
    assert "--resume" in err and str(out) in err
    run = read_run(out)
    assert sorted(run.queries) == ["q1", "q2", "q3", "q4"] and not run.errors
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_a_call_that_never_returns_is_abandoned_after_the_grace_period(tmp_path: Path, processes: list[Any]) -> None:
    proc, marks, out = _start(tmp_path, "600 if i > 2 else 0")
    processes.append(proc)
    _wait_for(marks, "started-3", "started-4")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert "2 call(s) in flight abandoned" in err and "--resume" in err
    assert sorted(read_run(out).queries) == ["q1", "q2"]


def test_second_ctrl_c_exits_at_once_leaving_a_valid_run_file(tmp_path: Path, processes: list[Any]) -> None:
    proc, marks, out = _start(tmp_path, "600")
    processes.append(proc)
    _wait_for(marks, "started-1", "started-2")
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert time.monotonic() - start < 1.5
    assert proc.returncode == 130 and "Traceback" not in err and "stopped at once" in err, err
    run = read_run(out)  # the header alone: a valid, empty run
    assert run.queries == () and run.meta["retriever"].startswith("python:")


# -- a full disk ------------------------------------------------------------------------------------

def _no_space(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_while_writing_the_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden, out = _golden(tmp_path), tmp_path / "runs" / "r.jsonl"
    mod = _module(tmp_path, "def search(query, n):\n    return ['d1']\n")
    monkeypatch.setattr(os, "replace", _no_space)
    result = _run(str(golden), "--retriever", f"python:{mod}:search", "-o", str(out))
    assert (result.exit_code == 2 and "No space left on device" in result.stderr
            and "free some disk space" in result.stderr)
    assert "Traceback" not in result.output and not out.exists() and not list(out.parent.iterdir())


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_full_disk_while_appending_answers_keeps_those_written(tmp_path: Path) -> None:
    """A real limit on the file's size (``ulimit -f``): the write that crosses it stores part of a
    line, then fails; that part is cut off again, so the run stays whole lines, and resumes."""
    import resource

    golden, out = _golden(tmp_path, 60), tmp_path / "r.jsonl"
    mod = _module(tmp_path, "def search(query, n):\n    return ['d1', 'd2', 'd3']\n")
    limit = 2000  # the header and some answers fit, not all 60

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run([sys.executable, "-m", "ragauge", "run", str(golden), "--retriever", f"python:{mod}:search",
                           "--concurrency", "1", "-o", str(out)], capture_output=True, text=True, timeout=120,
                          preexec_fn=limited, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert proc.returncode == 2 and "cannot write run: File too large" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert out.read_bytes().endswith(b"\n") and out.stat().st_size < limit
    run = read_run(out)  # valid: whole lines only, the torn one cut off
    assert 1 <= len(run.queries) < 60 and run.meta["retriever"].startswith("python:")
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    again = _run(str(golden), "--retriever", f"python:{mod}:search", "-o", str(out), "--resume")
    assert again.exit_code == 0 and len(read_run(out).queries) == 60, again.output


# -- Ctrl-C wherever it lands ---------------------------------------------------------------------

class _Interrupting(Fake):
    """Answers at once, except call ``at``: it sends this process Ctrl-C, then holds its thread
    for a moment, in which the main thread handles the signal. ``started`` and ``returned`` list
    the questions in the order their calls started and returned."""

    def __init__(self, at: int, hold: float = 0.2) -> None:
        super().__init__()
        self.at, self.hold = at, hold
        self.started: list[str] = []
        self.returned: list[str] = []

    def _one(self, query: str) -> Any:
        self.started.append(query)
        if len(self.started) == self.at:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(self.hold)
        got = Fake.search(self, query, 3)
        self.returned.append(query)
        return got

    def search(self, query: str, n: int) -> Any:
        return self._one(query)


class _AsyncInterrupting(_Interrupting):
    async def asearch(self, query: str, n: int) -> Any:
        return self._one(query)


MANY_Q = [f"question {i}" for i in range(300)]


@pytest.mark.parametrize("kind", [_Interrupting, _AsyncInterrupting])
def test_ctrl_c_keeps_every_answer_taken_and_counts_what_is_in_the_file(tmp_path: Path, kind: type) -> None:
    """The first Ctrl-C is acted on between batches of answers, so no answer already back is
    dropped, the message counts the lines in the file, and no call starts after it."""
    from ragauge.data.golden import GoldenQuery, GoldenSet
    from ragauge.runner.executor import RunInterrupted

    golden = GoldenSet.from_queries([GoldenQuery(f"q{i}", q, {"d": 1}) for i, q in enumerate(MANY_Q)])
    out = tmp_path / "r.jsonl"
    retriever = kind(at=60)
    with pytest.raises(RunInterrupted) as stopped:
        run_retriever(golden, retriever, out, ExecutorOptions(concurrency=8, grace=5))
    written = [json.loads(line)["id"] for line in out.read_text().splitlines()[1:]]
    assert sorted(written) == sorted(f"q{MANY_Q.index(q)}" for q in retriever.returned)
    assert len(written) == len(set(written)) == stopped.value.progress.done
    assert f"after {len(written)} of 300 questions" in str(stopped.value)
    assert "abandoned" not in str(stopped.value)  # every call in flight came back within the grace
    # none starts once Ctrl-C is handled: only the calls handed out with the 60th (one round of 8)
    assert len(retriever.started) <= 60 + 8


def test_no_retry_starts_after_ctrl_c(tmp_path: Path) -> None:
    """A call waiting to be retried when Ctrl-C comes is not retried: it counts as abandoned."""
    import asyncio

    from ragauge.data.golden import GoldenQuery, GoldenSet
    from ragauge.retrieve.base import Retrieved, RetryableError
    from ragauge.runner.executor import RunInterrupted

    attempts: list[float] = []

    class Flaky(Fake):
        async def asearch(self, query: str, n: int) -> Any:
            if query == "question 0":
                attempts.append(time.monotonic())
                if len(attempts) == 2:
                    os.kill(os.getpid(), signal.SIGINT)
                raise RetryableError("busy")
            await asyncio.sleep(0.01)
            return Retrieved(())

    golden = GoldenSet.from_queries([GoldenQuery(f"q{i}", f"question {i}", {"d": 1}) for i in range(3)])
    start = time.monotonic()
    with pytest.raises(RunInterrupted, match=r"1 call\(s\) in flight abandoned"):
        run_retriever(golden, Flaky(), tmp_path / "r.jsonl",
                      ExecutorOptions(concurrency=2, retries=5, backoff=0.3, max_backoff=0.3, seed=1, grace=3))
    assert len(attempts) == 2 and time.monotonic() - start < 2.5  # no third attempt, no wait for it


def test_ctrl_c_while_a_pipe_is_full_leaves_whole_lines(tmp_path: Path) -> None:
    """``ragauge run -o /dev/stdout | slow-reader``: a Ctrl-C while a write waits for the reader
    lets that write finish; what follows is whole lines (the run can be read back)."""
    mod = _module(tmp_path, "def search(query, n):\n    return [f'doc-{i:04d}-' + 'x' * 60 for i in range(400)]\n",
                  "big.py")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("CI", None)
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "ragauge", "run", str(_golden(tmp_path, 200)), "--retriever",
                             f"python:{mod}:search", "--fetch", "400", "--concurrency", "4", "-o", "/dev/stdout"],
                            env=env, stdout=write_end, stderr=subprocess.PIPE, text=True)
    os.close(write_end)
    try:
        time.sleep(3)  # the 64 KB pipe is full long before: the run waits in a write
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        with os.fdopen(read_end, "rb") as reader:
            data = reader.read()
        err = proc.stderr.read() if proc.stderr else ""
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "Traceback" not in err, err
    lines = data.decode().splitlines()
    assert data.endswith(b"\n") and all(json.loads(line) for line in lines)
    assert 1 < len(lines) < 201


def test_a_hand_built_hit_with_an_id_that_is_not_a_string_is_refused(tmp_path: Path) -> None:
    from ragauge.data.hits import Hit
    from ragauge.retrieve.base import Retrieved

    class Odd(Fake):
        def __init__(self, hit: Hit) -> None:
            super().__init__()
            self.hit = hit

        def search(self, query: str, n: int) -> Any:
            return Retrieved((self.hit,))

    for hit, says in ((Hit(5), "document id of 5 (int"), (Hit(None, 7), "chunk id of 7"),  # type: ignore[arg-type]
                      (Hit("d", score=True), "score of True")):
        with pytest.raises(InputError, match=re.escape(says)):
            run_retriever(GOLDEN, Odd(hit), tmp_path / "r.jsonl", ExecutorOptions())
