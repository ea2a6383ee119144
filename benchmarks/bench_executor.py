"""Executor and BM25 benchmarks (issue 6).

1. A local HTTP retriever that sleeps 50 ms per call; 1,000 questions at concurrency 32 through
   `ragauge run` machinery. The ideal is 1000 x 50 ms / 32 = 1.5625 s; we report the ratio and
   the peak RSS growth of this process (streaming writes keep memory flat).
2. BM25 (bm25s) on the bundled SciFact corpus: index build time and query throughput.
3. With Ray installed (``ragauge[ray]``): the same loopback run through ``--executor ray`` (a local
   Ray, 2 actors) beside the threaded executor in the same process, and the overhead: Ray's start-up
   apart, then the run itself.

Usage:  python benchmarks/bench_executor.py      (loopback only; ~30 s, ~45 s with Ray)
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import tempfile
import time
from pathlib import Path

from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.formats.golden import load_golden
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.registry import open_retriever
from ragauge.runner.executor import ExecutorOptions, run_retriever

ROOT = Path(__file__).resolve().parents[1]
SLEEP, N, CONCURRENCY = 0.050, 1000, 32


_BODY = json.dumps({"hits": [{"doc_id": f"d{i}", "score": 1.0 / (i + 1)} for i in range(20)]}).encode()
_RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
             + str(len(_BODY)).encode() + b"\r\n\r\n" + _BODY)


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sleep: float = SLEEP) -> None:
    """A minimal HTTP/1.1 keep-alive responder: read a request, sleep ``sleep`` s (none at 0), answer 20 hits."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length:
                await reader.readexactly(length)
            if sleep:
                await asyncio.sleep(sleep)
            writer.write(_RESPONSE)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def serve(port_pipe: object, sleep: float = SLEEP) -> None:
    """The slow retriever (an asyncio server, so it is not the bottleneck), in its own process."""
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _handle(reader, writer, sleep)

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=256)
        port_pipe.send(server.sockets[0].getsockname()[1])  # type: ignore[attr-defined]
        await server.serve_forever()
    asyncio.run(main())


def bench_http() -> dict[str, float]:
    import multiprocessing as mp

    parent, child = mp.Pipe()
    proc = mp.get_context("fork").Process(target=serve, args=(child,), daemon=True)
    proc.start()
    url = f"http://127.0.0.1:{parent.recv()}/search"
    golden = GoldenSet.from_queries([GoldenQuery(f"q{i}", f"question {i}", {"d0": 1}) for i in range(N)])
    retriever = open_retriever(url, RetrieverOptions(timeout=10))
    warm = GoldenSet.from_queries(list(golden)[:CONCURRENCY])
    run_retriever(warm, retriever, None, ExecutorOptions(concurrency=CONCURRENCY))  # open the connections
    before = rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run = run_retriever(golden, retriever, Path(tmp) / "run.jsonl",
                            ExecutorOptions(concurrency=CONCURRENCY, fetch=20))
        elapsed = time.perf_counter() - start
    retriever.close()
    proc.terminate()
    ideal = N * SLEEP / CONCURRENCY
    return {"questions": len(run.queries), "errors": len(run.errors), "seconds": elapsed, "ideal": ideal,
            "ratio": elapsed / ideal, "rss_growth_mb": rss_mb() - before}


def bench_ray() -> dict[str, float] | None:
    """Threads vs Ray actors on the same slow loopback retriever and questions."""
    import multiprocessing as mp

    try:
        import ray
    except ImportError:
        return None
    from ragauge.runner.ray_workers import RaySetup

    parent, child = mp.Pipe()
    proc = mp.get_context("fork").Process(target=serve, args=(child,), daemon=True)
    proc.start()
    url = f"http://127.0.0.1:{parent.recv()}/search"
    golden = GoldenSet.from_queries([GoldenQuery(f"q{i}", f"question {i}", {"d0": 1}) for i in range(N)])
    options = RetrieverOptions(timeout=10)
    retriever = open_retriever(url, options)
    executor = ExecutorOptions(concurrency=CONCURRENCY, fetch=20)
    start = time.perf_counter()
    run_retriever(golden, retriever, None, executor)
    threads = time.perf_counter() - start
    start = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, configure_logging=False)
    startup = time.perf_counter() - start
    start = time.perf_counter()
    run = run_retriever(golden, retriever, None, executor, ray=(url, options, RaySetup(workers=2)))
    on_ray = time.perf_counter() - start
    ray.shutdown()
    retriever.close()
    proc.terminate()
    ideal = N * SLEEP / CONCURRENCY
    return {"questions": len(run.queries), "errors": len(run.errors), "ideal_s": ideal, "threads_s": threads,
            "ray_startup_s": startup, "ray_run_s": on_ray, "ray_over_threads": on_ray / threads}


def bench_bm25() -> dict[str, float]:
    import os

    with tempfile.TemporaryDirectory() as cache:
        os.environ["RAGAUGE_CACHE"] = cache
        start = time.perf_counter()
        retriever = open_retriever(f"bm25:{ROOT / 'examples/scifact/corpus.jsonl.gz'}")
        build = time.perf_counter() - start
        start = time.perf_counter()
        open_retriever(f"bm25:{ROOT / 'examples/scifact/corpus.jsonl.gz'}")
        load = time.perf_counter() - start
    golden = load_golden(ROOT / "examples/scifact/golden.jsonl")
    start = time.perf_counter()
    for q in golden:
        retriever.search(q.query, 100)
    qps = len(golden) / (time.perf_counter() - start)
    return {"documents": 5183, "index_build_s": build, "index_load_s": load, "queries_per_s_1_thread": qps}


if __name__ == "__main__":
    print(json.dumps({"http_executor": bench_http(), "bm25_scifact": bench_bm25(), "ray_vs_threads": bench_ray()},
                     indent=2))
