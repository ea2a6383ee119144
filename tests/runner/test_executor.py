from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.formats.runs import read_run
from ragauge.retrieve.base import Retrieved, RetrieverOptions
from ragauge.retrieve.registry import open_retriever
from ragauge.runner.calls import Progress
from ragauge.runner.executor import ExecutorOptions, RetrieverDown, RunAborted, run_retriever
from tests.retrieve.servers import search_server

GOLDEN = GoldenSet.from_queries([
    GoldenQuery("q1", "vpn broken", {"kb-vpn": 1}, ("net",)),
    GoldenQuery("q2", "printer jam", {"kb-printer": 1}, ("hw",)),
    GoldenQuery("q3", "reset password", {"kb-pass": 1}, ("acct",)),
    GoldenQuery("q4", "coffee machine", {}, ()),
])


class Fake:
    """A retriever that fails on chosen questions, to drive the executor."""

    spec = "fake:"

    def __init__(self, fail: set[str] | None = None, calls: list[str] | None = None) -> None:
        self.fail = fail or set()
        self.calls = calls if calls is not None else []

    def search(self, query: str, n: int) -> Retrieved:
        self.calls.append(query)
        if query in self.fail:
            raise ValueError("boom")
        return Retrieved((Hit("kb-vpn"), Hit("kb-printer"), Hit("kb-pass"))[:n])

    def describe(self) -> dict[str, object]:
        return {"fake": True}

    def fingerprint(self) -> None:
        return None

    def documents(self) -> None:
        return None

    def close(self) -> None:
        pass


def test_writes_meta_first_streams_every_question_and_a_sidecar(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "fake.jsonl"
    run = run_retriever(GOLDEN, Fake(), out, ExecutorOptions(fetch=2, concurrency=3))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["_meta"]["golden_hash"] == GOLDEN.content_hash and lines[0]["_meta"]["fetch"] == 2
    assert sorted(line["id"] for line in lines[1:]) == ["q1", "q2", "q3", "q4"]
    assert all(len(line["hits"]) == 2 and line["latency_ms"] >= 0 for line in lines[1:])
    assert json.loads((tmp_path / "runs" / "fake.jsonl.meta.json").read_text())["questions"] == 4
    assert run.queries == ("q1", "q2", "q3", "q4")


def test_a_failing_question_is_recorded_and_the_rest_go_on(tmp_path: Path) -> None:
    progress = Progress()
    run = run_retriever(GOLDEN, Fake(fail={"printer jam"}), tmp_path / "r.jsonl", ExecutorOptions(retries=0),
                        progress=progress)
    assert progress.errors == 1 and run.errors["q2"] == "ValueError: boom"
    with pytest.raises(RunAborted, match="question 'q2' failed"):
        run_retriever(GOLDEN, Fake(fail={"printer jam"}), tmp_path / "r2.jsonl",
                      ExecutorOptions(concurrency=1, on_error="fail"))


def test_resume_calls_only_unfinished_and_failed_questions(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_retriever(GOLDEN, Fake(fail={"printer jam"}), out, ExecutorOptions(retries=0))
    with open(out, "a") as fh:
        fh.write('{"id": "q9", "hits": [')  # a torn last line, as a killed run leaves
    calls: list[str] = []
    run = run_retriever(GOLDEN, Fake(calls=calls), out, ExecutorOptions(), resume=True)
    assert calls == ["printer jam"]
    assert not run.errors and len(read_run(out).queries) == 4
    other = GoldenSet.from_queries([GoldenQuery("z", "z", {"a": 1})])
    with pytest.raises(InputError, match="another golden set"):
        run_retriever(other, Fake(), out, ExecutorOptions(), resume=True)


def test_http_adapter_retries_transient_failures() -> None:
    with search_server("flaky", fail_times=2) as server:
        retriever = open_retriever(server["url"], RetrieverOptions(timeout=5))
        progress = Progress()
        run = run_retriever(GOLDEN, retriever, None, ExecutorOptions(retries=3, backoff=0.01, seed=1),
                            progress=progress)
    assert not run.errors and progress.retried == 8
    assert [h.doc_id for h in run.result("q1").hits] == ["kb-vpn", "kb-net"]
    assert run.cost["q1"] == 0.001


def test_http_gives_up_after_retries_with_a_clear_error() -> None:
    with search_server("flaky", fail_times=10) as server:
        with pytest.raises(RetrieverDown, match="every call to the retriever failed") as down:
            run_retriever(GOLDEN, open_retriever(server["url"]), None, ExecutorOptions(retries=1, backoff=0.01))
    run = down.value.run
    assert "503" in run.errors["q1"] and "after 2 attempts" in run.errors["q1"]


def test_http_401_stops_the_run_and_says_what_to_check() -> None:
    with search_server("unauthorized") as server:
        with pytest.raises(InputError) as info:
            run_retriever(GOLDEN, open_retriever(server["url"]), None, ExecutorOptions())
    assert "401" in info.value.message and "credentials" in (info.value.hint or "")


def test_http_config_headers_from_environment_body_template_and_hits_path(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    monkeypatch.setenv("SEARCH_TOKEN", "s3cret")
    config = {"http": {"headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}, "body": {"q": "{query}", "top_k": "{k}"},
                       "hits_path": "data.results"}}
    with search_server("nested") as server:
        retriever = open_retriever(server["url"], RetrieverOptions(config=config))
        out = tmp_path / "r.jsonl"
        run_retriever(GOLDEN, retriever, out, ExecutorOptions(fetch=7))
        assert server["bodies"][0]["top_k"] == 7 and "q" in server["bodies"][0]
    assert "s3cret" not in out.read_text() and "s3cret" not in json.dumps(retriever.describe())


def test_http_body_sends_a_question_holding_a_placeholder_as_written() -> None:
    """The body template is filled in one pass: ``{k}`` or ``{query}`` inside a question is its text,
    not a placeholder (a second replace used to turn "{k}" in the question into the number)."""
    question = "what do {k} and {query} mean in a template?"
    golden = GoldenSet.from_queries([GoldenQuery("q1", question, {"kb-vpn": 1}, ())])
    config = {"http": {"body": {"q": "{query}", "n": "{k}", "note": "top {k} for {query}", "fixed": [1, "x"]}}}
    with search_server() as server:
        run_retriever(golden, open_retriever(server["url"], RetrieverOptions(config=config)), None,
                      ExecutorOptions(fetch=3))
        assert server["bodies"] == [{"q": question, "n": 3, "note": f"top 3 for {question}", "fixed": [1, "x"]}]


def test_http_connection_refused_and_malformed() -> None:
    with pytest.raises(RetrieverDown) as down:
        run_retriever(GOLDEN, open_retriever("http://127.0.0.1:9/search", RetrieverOptions(timeout=1)), None,
                      ExecutorOptions(retries=0))
    run = down.value.run
    assert "cannot connect" in run.errors["q1"] and "is the server running" in run.errors["q1"]
    assert run.errors["q1"].endswith("(after 1 attempt)")
    with search_server("malformed") as server:
        with pytest.raises(InputError, match="did not answer JSON"):
            run_retriever(GOLDEN, open_retriever(server["url"]), None, ExecutorOptions())


def test_cmd_adapter(tmp_path: Path) -> None:
    script = tmp_path / "search.py"
    script.write_text(textwrap.dedent("""
        import json, os, sys
        q = sys.stdin.read()
        k = int(os.environ["RAGAUGE_K"])
        print(json.dumps([{"doc_id": "kb-vpn", "score": 2.0}, "kb-printer"][:k] if "vpn" in q else []))
    """))
    retriever = open_retriever(f"cmd:{sys.executable} {script}")
    run = run_retriever(GOLDEN, retriever, None, ExecutorOptions(fetch=1))
    assert [h.doc_id for h in run.result("q1").hits] == ["kb-vpn"] and run.result("q2").hits == ()


def test_python_adapter_sync_async_and_framework_objects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mysearch.py").write_text(textwrap.dedent("""
        class Doc:
            def __init__(self, source):
                self.metadata = {"source": source}
                self.page_content = "..."
        def lc(query, n):
            return [(Doc("kb-vpn"), 0.9), (Doc("kb-net"), 0.5)][:n]
        async def aio(query, n):
            return ["kb-printer"]
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    run = run_retriever(GOLDEN, open_retriever("python:mysearch:lc", RetrieverOptions(doc_id_key="source")), None,
                        ExecutorOptions())
    assert [(h.doc_id, h.score) for h in run.result("q1").hits] == [("kb-vpn", 0.9), ("kb-net", 0.5)]
    run = run_retriever(GOLDEN, open_retriever("python:mysearch.py:aio"), None, ExecutorOptions())
    assert run.result("q2").hits == (Hit("kb-printer"),)
    with pytest.raises(InputError, match="cannot import"):
        open_retriever("python:nope_module:f")


def test_cli_run_then_eval(tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps(q.to_dict()) + "\n" for q in GOLDEN))
    with search_server() as server:
        out = tmp_path / "run.jsonl"
        r = CliRunner().invoke(cli, ["run", str(golden), "--retriever", server["url"], "-o", str(out)])
        assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(out), "-k", "1", "--format", "json"])
    data = json.loads(r.stdout)
    assert data["summary"]["hit@1"] == 1.0 and data["meta"]["latency_ms"]["p50"] > 0
    r = CliRunner().invoke(cli, ["run", str(golden), "--retriever", "nope:x", "-o", str(out)])
    assert r.exit_code == 2 and "unknown retriever spec" in r.stderr


def test_bm25_chunks_carry_doc_ids_and_the_index_is_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "kb"
    (folder / "net").mkdir(parents=True)
    (folder / "net" / "vpn.md").write_text("# VPN\n" + "The VPN gateway certificate expires yearly. " * 30)
    (folder / "printers.txt").write_text("Printer jam: open tray two and remove the paper. " * 5)
    (folder / "page.html").write_text("<html><title>Passwords</title><script>x=1</script>"
                                      "<p>Reset password here</p></html>")
    spec = f"bm25:{folder}?chunk_size=40&chunk_overlap=10"
    first = open_retriever(spec)
    assert not first.cached and open_retriever(spec).cached
    hits = first.search("vpn certificate", 5).hits
    assert hits[0].doc_id == "net/vpn.md" and hits[0].chunk_id.startswith("net/vpn.md#")
    assert first.search("reset password", 1).hits[0].doc_id == "page.html"
    assert first.documents() == {"net/vpn.md", "printers.txt", "page.html"}
    with pytest.raises(InputError, match="unknown bm25 option"):
        open_retriever(f"bm25:{folder}?chunksize=3")


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_the_async_and_blocking_http_transports_send_and_read_the_same(method: str) -> None:
    """The executor calls ``asearch`` (aiohttp, one event loop); a direct call uses ``search``
    (httpx): one request, one answer, whichever path, including a URL's user:password."""
    import asyncio

    from ragauge.retrieve.base import RetrieverOptions
    from ragauge.retrieve.http import HttpRetriever
    from tests.retrieve.servers import search_server

    with search_server() as server:
        url = server["url"].replace("http://", "http://svc:p%C3%A4ss@")
        options = RetrieverOptions(config={"http": {"method": method, "body": {"query": "{query}", "k": "{k}",
                                                                               "debug": True}}})
        retriever = HttpRetriever(url, options)

        async def both() -> object:
            try:
                return await retriever.asearch("vpn certificate", 5)
            finally:
                await retriever.aclose()

        blocking = retriever.search("vpn certificate", 5)
        looped = asyncio.run(both())
        retriever.close()
        assert blocking == looped and blocking.hits
        assert server["bodies"][0] == server["bodies"][1]
        assert server["headers"][0]["Authorization"] == server["headers"][1]["Authorization"] == "Basic c3ZjOnDDpHNz"


@pytest.mark.parametrize("damage", ["foreign key", "torn index", "not json"])
def test_a_bm25_cache_entry_that_does_not_match_is_rebuilt(tmp_path: Path, damage: str) -> None:
    from ragauge.retrieve import bm25

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": f"word{i} common text"}) + "\n" for i in range(5)))
    spec = f"bm25:{corpus}?k1=1.2"
    first = bm25.open(spec, RetrieverOptions(), cache=tmp_path / "mine")
    assert not first.cached and first.index_dir.parent == tmp_path / "mine" / "bm25"
    assert first.build_seconds is not None and bm25.open(spec, RetrieverOptions(), cache=tmp_path / "mine").cached
    meta = first.index_dir / "passages.json"
    if damage == "foreign key":  # an entry built for other settings under this name must not be used
        meta.write_text(json.dumps({**json.loads(meta.read_text()), "key": "sha256:other"}))
    elif damage == "torn index":
        next(first.index_dir.glob("*.npy")).write_bytes(b"torn")
    else:
        meta.write_text("{")
    again = bm25.open(spec, RetrieverOptions(), cache=tmp_path / "mine")
    assert not again.cached
    assert again.search("word3", 2).hits == first.search("word3", 2).hits
    assert bm25.open(spec, RetrieverOptions(), cache=tmp_path / "mine").cached  # the rebuilt entry replaced it


class Together(Fake):
    """An async retriever whose calls all answer at the same moment, once ``n`` are in flight:
    the executor then finds many answers ready at once and records them as one batch."""

    def __init__(self, n: int, fail: set[str] | None = None) -> None:
        super().__init__(fail)
        self.n = n
        self.waiting = 0
        self.most = 0
        self.event: Any = None

    async def asearch(self, query: str, n: int) -> Retrieved:
        import asyncio

        self.event = self.event or asyncio.Event()
        self.waiting += 1
        self.most = max(self.most, self.waiting)
        if self.waiting >= self.n:
            self.event.set()
        await self.event.wait()
        self.waiting -= 1
        return self.search(query, n)


MANY = GoldenSet.from_queries([GoldenQuery(f"q{i}", f"question {i}", {"d": 1}) for i in range(40)])


def test_answers_ready_together_are_each_recorded_and_counted(tmp_path: Path) -> None:
    seen: list[int] = []
    progress = Progress(on_result=lambda p: seen.append(p.done))
    retriever = Together(8)
    run = run_retriever(MANY, retriever, tmp_path / "r.jsonl", ExecutorOptions(concurrency=8), progress=progress)
    assert retriever.most == 8  # never more calls in flight than the concurrency
    assert seen == list(range(1, 41)) and len(run.queries) == 40
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines[1:]) == sorted(q.id for q in MANY)


def test_on_error_fail_in_a_batch_keeps_every_answer_that_came_with_the_failure(tmp_path: Path) -> None:
    """A failure among answers that arrived together: the run stops, and every answer taken with it
    is written (those after the failed one too: nothing answered is lost, a paid call is not made
    twice); resuming calls exactly the failed question and those never answered. (How many answers
    the main thread finds ready at once depends on the scheduler: on a loaded machine it can take
    the first of the eight before the others are queued, and each answer it takes before the failure
    queues one more question, so neither the batch size nor which questions ran is asserted.)"""
    out = tmp_path / "r.jsonl"
    retriever = Together(8, fail={"question 5"})
    with pytest.raises(RunAborted, match="question 'q5' failed"):
        run_retriever(MANY, retriever, out, ExecutorOptions(concurrency=8, retries=0, on_error="fail"))
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()[1:]]
    assert "q5" in ids and len(ids) == len(set(ids))
    called = {query.replace("question ", "q") for query in retriever.calls}
    assert set(ids) <= called and len(ids) < len(MANY)  # answers of calls made; the run stopped early
    calls: list[str] = []
    run_retriever(MANY, Fake(calls=calls), out, ExecutorOptions(), resume=True)
    assert sorted(calls) == sorted(q.query for q in MANY if q.id not in ids or q.id == "q5")


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="no /dev/fd here")
def test_a_run_streams_to_a_pipe(tmp_path: Path) -> None:
    """``-o /dev/stdout`` piped to another program: the lines are written as to a file (a pipe
    cannot be sought or cut back, and needs neither), no sidecar beside it."""
    import os
    import threading

    read_end, write_end = os.pipe()
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(os.fdopen(read_end, "rb").read()))
    reader.start()
    try:
        run = run_retriever(MANY, Fake(), Path(f"/dev/fd/{write_end}"), ExecutorOptions(concurrency=4))
    finally:
        os.close(write_end)
        reader.join(timeout=10)
    lines = [json.loads(line) for line in received[0].decode().splitlines()]
    assert "_meta" in lines[0] and sorted(line["id"] for line in lines[1:]) == sorted(run.queries)
    assert len(lines) == 41


def test_a_python_file_can_import_a_module_beside_it(tmp_path: Path) -> None:
    """python:file.py:fn could not import a helper module in the same folder (and the hint said to
    run from the folder one was already in)."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "helper_for_ragauge_test.py").write_text("def hits(query):\n    return ['d1', 'd2']\n")
    (app / "search.py").write_text("from helper_for_ragauge_test import hits\n\n"
                                   "def retrieve(query, n):\n    return hits(query)[:n]\n")
    import ragauge

    golden = [{"id": "q1", "query": "x", "relevant": ["d1"]}]
    run = ragauge.run_retriever(golden, f"python:{app / 'search.py'}:retrieve")
    assert [h.doc_id for h in run.results()[0].hits] == ["d1", "d2"]
