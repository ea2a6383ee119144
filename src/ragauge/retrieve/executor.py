"""Run a retriever over a golden set: bounded concurrency, retries with backoff, streamed and
resumable output."""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from ragauge._version import __version__
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.run import QueryResult, Run, read_run_jsonl
from ragauge.errors import InputError, RagaugeError
from ragauge.redact import redact, redact_value
from ragauge.retrieve.base import Retriever, RetryableError

ON_ERROR = ("zero", "skip", "fail")


@dataclass(frozen=True)
class ExecutorOptions:
    """``fetch`` hits per call; ``concurrency`` calls in flight; ``retries`` extra attempts for
    transient failures with exponential backoff (``backoff`` seconds, doubled each time, with
    full jitter, capped at ``max_backoff``)."""

    fetch: int = 20
    concurrency: int = 8
    retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 10.0
    on_error: str = "zero"
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.fetch < 1 or self.concurrency < 1 or self.retries < 0:
            raise InputError("--fetch and --concurrency must be >= 1 and --retries >= 0")
        if self.on_error not in ON_ERROR:
            raise InputError(f"--on-error must be one of {', '.join(ON_ERROR)}")


@dataclass
class Progress:
    """Counts the executor reports; ``on_result`` is called from the main thread only."""

    total: int = 0
    done: int = 0
    errors: int = 0
    retried: int = 0
    resumed: int = 0
    on_result: Callable[["Progress"], None] | None = field(default=None, repr=False)


class RunAborted(RagaugeError):
    """The run stopped (on_error=fail, or a fatal retriever error); the partial file is valid."""


def _call(retriever: Retriever, q: GoldenQuery, opts: ExecutorOptions, rng: random.Random,
          progress: Progress, lock: threading.Lock) -> QueryResult:
    attempt = 0
    while True:
        start = time.perf_counter()
        try:
            got = retriever.search(q.query, opts.fetch)
            latency = (time.perf_counter() - start) * 1000.0
            return QueryResult(q.id, tuple(got.hits), round(latency, 3), got.cost)
        except RagaugeError:
            raise  # a fatal, user-correctable problem (bad URL, 401, malformed response): stop the run
        except (RetryableError, TimeoutError, ConnectionError) as exc:
            if attempt >= opts.retries:
                return QueryResult(q.id, (), round((time.perf_counter() - start) * 1000.0, 3), None,
                                   redact(f"{type(exc).__name__}: {exc} (after {attempt + 1} attempts)"))
            with lock:
                progress.retried += 1
            delay = min(opts.max_backoff, opts.backoff * 2 ** attempt)
            time.sleep(rng.uniform(0, delay))
            attempt += 1
        except Exception as exc:  # the retriever is user code: record the failure, keep going
            return QueryResult(q.id, (), round((time.perf_counter() - start) * 1000.0, 3), None,
                               redact(f"{type(exc).__name__}: {exc}"))


def _completed(path: Path) -> tuple[list[QueryResult], dict[str, Any]]:
    """Successful results of an earlier (maybe interrupted) run; a torn last line is dropped."""
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        raw = raw[: raw.rfind(b"\n") + 1]
        path.write_bytes(raw)
    if not raw.strip():
        return [], {}
    run = read_run_jsonl(path)
    return [r for r in run.results() if r.error is None], dict(run.meta)


def run_retriever(
    golden: GoldenSet,
    retriever: Retriever,
    output: Path | None,
    options: ExecutorOptions,
    *,
    resume: bool = False,
    progress: Progress | None = None,
) -> Run:
    """Call ``retriever`` for every golden question and return the run.

    With ``output``, each finished question is appended and flushed at once, so an interrupted
    run leaves a valid file; ``resume`` keeps its successful questions and calls only the rest
    (failed ones are tried again). A question that still fails after the retries is recorded
    with its error; with ``on_error="fail"`` the run stops there (evaluation applies "zero" or
    "skip").
    """
    progress = progress or Progress()
    done: list[QueryResult] = []
    meta: dict[str, Any] = {}
    if output is not None and resume and output.exists():
        done, meta = _completed(output)
        if meta.get("golden_hash") not in (None, golden.content_hash):
            raise InputError("the run to resume was made for another golden set", where=str(output),
                             hint="resume only with the same golden set, or start a new run file")
    finished = {r.id for r in done}
    todo = [q for q in golden if q.id not in finished]
    progress.total, progress.done, progress.resumed = len(golden), len(done), len(done)
    if not meta:
        meta = {"retriever": redact(retriever.spec),  # adapters hide their secrets; redact() again anyway
                "settings": redact_value(retriever.describe()),
                "fingerprint": retriever.fingerprint(), "ragauge_version": __version__,
                "golden_hash": golden.content_hash, "fetch": options.fetch, "concurrency": options.concurrency,
                "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    handle: IO[str] | None = None
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        tmp = output.with_name(f".{output.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:  # header + kept results, swapped in atomically
            fh.write(json.dumps({"_meta": meta}, ensure_ascii=False) + "\n")
            for r in done:
                fh.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
        os.replace(tmp, output)
        handle = open(output, "a", encoding="utf-8")
    rng = random.Random(options.seed)
    lock = threading.Lock()
    results = list(done)
    workers = min(options.concurrency, getattr(retriever, "max_concurrency", options.concurrency))
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragauge-retrieve")
    try:
        pending: set[Future[QueryResult]] = set()
        queue = iter(todo)
        for q in _take(queue, workers * 2):
            pending.add(pool.submit(_call, retriever, q, options, rng, progress, lock))
        while pending:
            finished_now, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished_now:
                result = future.result()
                results.append(result)
                progress.done += 1
                if result.error is not None:
                    progress.errors += 1
                if handle is not None:
                    handle.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
                    handle.flush()
                if progress.on_result:
                    progress.on_result(progress)
                if result.error is not None and options.on_error == "fail":
                    raise RunAborted(f"question {result.id!r} failed: {result.error}",
                                     hint="fix the retriever, then continue with --resume")
                for q in _take(queue, 1):
                    pending.add(pool.submit(_call, retriever, q, options, rng, progress, lock))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        if handle is not None:
            handle.close()
    pool.shutdown(wait=True)
    if output is not None:
        ended = {**meta, "ended": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "questions": len(results), "errors": progress.errors}
        sidecar = output.with_name(output.name + ".meta.json")
        sidecar.write_text(json.dumps(ended, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    order = {q.id: i for i, q in enumerate(golden)}
    results.sort(key=lambda r: order.get(r.id, len(order)))
    return Run.from_results(results, meta=meta, source=str(output) if output else None)


def _take(it: Iterable[GoldenQuery], n: int) -> list[GoldenQuery]:
    out = []
    for q in it:
        out.append(q)
        if len(out) >= n:
            break
    return out


def terminal_progress(label: str) -> Callable[[Progress], None] | None:
    """A one-line progress display with rate and ETA on a terminal; None when not a TTY (CI)."""
    if not sys.stderr.isatty() or os.environ.get("CI"):
        return None
    start = time.monotonic()

    def show(p: Progress) -> None:
        elapsed = max(time.monotonic() - start, 1e-9)
        rate = (p.done - p.resumed) / elapsed
        eta = (p.total - p.done) / rate if rate > 0 else float("inf")
        eta_text = f"{eta:5.0f}s" if eta != float("inf") else "    ?"
        sys.stderr.write(f"\r{label}: {p.done}/{p.total}  {rate:6.1f} q/s  eta {eta_text}  errors {p.errors}  ")
        if p.done == p.total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show
