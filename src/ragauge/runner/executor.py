"""Run a retriever over a golden set: bounded concurrency, retries with backoff, streamed and
resumable output, a clean stop on Ctrl-C."""

from __future__ import annotations

import os
import queue
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge._version import __version__
from ragauge.core.files import Appender, atomic_write, atomic_writer, is_stream
from ragauge.core.jsonl import dumps
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.hits import QueryResult
from ragauge.errors import InputError, flag
from ragauge.errors import RetrieverDown as RetrieverDown  # the error classes live in ragauge.errors
from ragauge.errors import RunAborted as RunAborted
from ragauge.errors import RunInterrupted as RunInterrupted
from ragauge.formats.run_lines import jsonl_answers, run_line
from ragauge.retrieve.base import Retriever, RetrieverOptions
from ragauge.runner.calls import Abandoned, Progress, acall, call
from ragauge.runner.options import GRACE as GRACE
from ragauge.runner.options import ON_ERROR as ON_ERROR
from ragauge.runner.options import ExecutorOptions as ExecutorOptions
from ragauge.runner.resume import check_resumable, identity
from ragauge.runner.workers import LoopWorkers, Workers

if TYPE_CHECKING:
    from ragauge.data.run import Run
    from ragauge.runner.ray_workers import RaySetup, RayWorkers

@dataclass(frozen=True, eq=False)
class Answered:
    """What ``answer_all`` collected: every answer in the golden set's order, the run's ``_meta``
    header and the file it was written to (None without one). ``run``, the columnar ``Run``
    (numpy, pyarrow), is built on first use: ``ragauge run`` never needs it."""

    results: tuple[QueryResult, ...] = field(repr=False)
    meta: Mapping[str, Any] = field(repr=False)
    source: str | None = None

    @cached_property
    def run(self) -> Run:
        from ragauge.data.run import Run

        return Run.from_results(self.results, meta=self.meta, source=self.source)


def _completed(path: Path) -> tuple[list[QueryResult], dict[str, Any]]:
    """Successful results of an earlier (maybe interrupted) run and its metadata; a torn last
    line is ignored (the header rewrite drops it)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the run to resume: {exc.strerror}", where=str(path)) from None
    if not raw.strip():
        return [], {}
    if not raw.endswith(b"\n"):
        raw = raw[: raw.rfind(b"\n") + 1]
        with atomic_writer(path, what="run", mode="wb") as fh:
            fh.write(raw)
    meta: dict[str, Any] = {}
    return [r for r in jsonl_answers(path, meta) if r.error is None], meta


class _CtrlC:
    """Ctrl-C during a run, while it runs in the main thread with Python's default handler: the
    first one sets ``halted`` (no call starts, none is retried) and is raised by the main loop at
    its next safe point (every answer taken from the workers written and counted), within 0.1 s;
    a second one is raised at once. Elsewhere (another thread, a handler of the caller's) Ctrl-C
    is left as it is."""

    def __init__(self) -> None:
        self.count = 0
        self.halted = threading.Event()
        self._before: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.count += 1
        self.halted.set()
        if self.count > 1:
            raise KeyboardInterrupt

    def check(self) -> None:
        """KeyboardInterrupt if Ctrl-C was pressed: called where nothing is held."""
        if self.count:
            raise KeyboardInterrupt

    def __enter__(self) -> _CtrlC:
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._before = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._before is not None:
            signal.signal(signal.SIGINT, self._before)


def answer_all(
    golden: GoldenSet,
    retriever: Retriever,
    output: Path | None,
    options: ExecutorOptions,
    *,
    resume: bool = False,
    progress: Progress | None = None,
    shard: Mapping[str, Any] | None = None,
    ray: tuple[str, RetrieverOptions, RaySetup] | None = None,
    prepare_run: bool = True,
) -> Answered:
    """Call ``retriever`` for every golden question and return the answers.

    With ``output``, the header (``_meta``) is written atomically, then each finished question
    is appended and flushed at once, so an interrupted run leaves a valid file. ``resume`` keeps
    the file's successful questions and calls only the rest (failed ones are tried again); it
    raises InputError naming each difference when the file was made with another retriever,
    settings, ``fetch``, golden set or index. A question that still fails after the retries is
    recorded with its error and no latency; with ``on_error="fail"`` the run stops there.

    ``shard`` (``data.shard.Shard.describe``) says that ``golden`` is one shard of a larger set;
    it is recorded in ``_meta`` and is part of what ``resume`` must match. ``ray`` (the spec, its
    options and the Ray setup) answers the questions on Ray actors instead of local threads
    (``ray_workers``); everything else stays here. With ``prepare_run`` (the caller will read
    ``Answered.run``) numpy and pyarrow are imported while the first calls are in flight, not after
    the last; ``ragauge run``, which never builds the Run, passes False.

    Raises RetrieverDown (after writing the file) when every question failed, RunInterrupted on
    Ctrl-C (after waiting ``options.grace`` seconds for calls in flight; a second Ctrl-C stops at
    once), and InputError when the file cannot be written (a full disk: the answers written so
    far stay, no temporary file is left).
    """
    progress = progress or Progress()
    now = identity(retriever.spec, retriever.describe(), retriever.fingerprint(), golden.content_hash,
                   options.fetch)
    if shard is not None:
        now["shard"] = dict(shard)
    done: list[QueryResult] = []
    meta: dict[str, Any] = {}
    if output is not None and resume and output.exists():
        done, meta = _completed(output)
        check_resumable(meta, now, str(output))
    finished = {r.id for r in done}
    todo = [q for q in golden if q.id not in finished]
    progress.total, progress.done, progress.resumed = len(golden), len(done), len(done)
    if not meta:
        meta = {**now, "ragauge_version": __version__, "concurrency": options.concurrency,
                "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    lines: Appender | None = None
    if output is not None:
        with atomic_writer(output, what="run") as fh:  # header + kept results, swapped in at once
            fh.write(run_line(meta))
            for r in done:
                fh.write(run_line(r))
        lines = Appender(output, what="run")
    results = list(done)
    fresh: list[QueryResult] = []

    def record(answers: list[QueryResult]) -> None:
        """Write the answers' lines (one write), then count them."""
        if lines is not None and answers:
            lines.write("".join(map(run_line, answers)).encode("utf-8"))
        results.extend(answers)
        fresh.extend(answers)
        for result in answers:
            progress.done += 1
            progress.errors += result.error is not None
            if progress.on_result:
                progress.on_result(progress)

    rng = random.Random(options.seed)
    lock = threading.Lock()
    ctrl_c = _CtrlC()
    halted = ctrl_c.halted
    workers: Workers[GoldenQuery, QueryResult] | LoopWorkers[GoldenQuery, QueryResult] | RayWorkers
    if ray is not None:
        from ragauge.runner.ray_workers import RayWorkers

        workers = RayWorkers(*ray[:2], options, ray[2])
        n_workers = workers.slots
    elif hasattr(retriever, "asearch"):  # many calls in flight on one event loop, not one thread each
        n_workers = options.concurrency
        workers = LoopWorkers(n_workers, lambda q: acall(retriever, q, options, rng, progress, lock, halted),
                              closing=getattr(retriever, "aclose", None), halted=halted)
    else:
        n_workers = max(1, min(options.concurrency, getattr(retriever, "max_concurrency", options.concurrency)))
        workers = Workers(n_workers, lambda q: call(retriever, q, options, rng, progress, lock, halted))
    queue_ = iter(todo)
    in_flight = 0
    gave_up = 0  # retries not made after Ctrl-C
    try:
        with ctrl_c:
            try:
                # a pool with a backlog gets a second round of questions ahead: a finished call starts
                # the next one on the loop at once, without waiting for this thread to hand it over
                starting = _take(queue_, 2 * n_workers if getattr(workers, "backlog", False) else n_workers)
                in_flight += len(starting)
                workers.submit(starting)
                while in_flight:
                    items = _wait(workers, ctrl_c)  # every answer there: one write, one wake-up
                    in_flight -= len(items)
                    answers = [item for item in items if isinstance(item, QueryResult)]
                    gave_up += sum(isinstance(item, Abandoned) for item in items)
                    stop = next((item for item in items if isinstance(item, BaseException)
                                 and not isinstance(item, Abandoned)), None)
                    failed = next((a for a in answers if a.error is not None), None)
                    if stop is None and failed is not None and options.on_error == "fail":
                        stop = RunAborted(f"question {failed.id!r} failed: {failed.error}",
                                          hint=f"fix the retriever, then continue with {flag('resume')}")
                    record(answers)  # all of them, even past a failure: nothing answered is lost
                    if stop is not None:
                        raise stop
                    ctrl_c.check()  # before more calls start
                    if prepare_run:  # the first answers are in and the loop is running: import now
                        prepare_run = False
                        import pyarrow  # noqa: F401
                    more = _take(queue_, len(items))
                    if more:
                        in_flight += len(more)
                        workers.submit(more)
            except KeyboardInterrupt:
                halted.set()
                if getattr(workers, "backlog", False):
                    in_flight -= workers.halt()  # type: ignore[union-attr]
                abandoned, at_once = _grace(workers, in_flight, options.grace, record)
                raise RunInterrupted(progress, abandoned + gave_up, output, at_once=at_once) from None
    finally:
        workers.stop()
        if lines is not None:
            lines.close()
    ended = {**meta, "ended": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "questions": len(results), "errors": progress.errors}
    if output is not None and not is_stream(output):  # no sidecar beside a device, a pipe, /dev/stdout
        atomic_write(output.with_name(output.name + ".meta.json"), dumps(ended, indent=2) + "\n", what="run metadata")
    order = {q.id: i for i, q in enumerate(golden)}
    results.sort(key=lambda r: order.get(r.id, len(order)))
    answered = Answered(tuple(results), meta, str(output) if output else None)
    _check_not_all_failed(answered, fresh, output)
    return answered


def run_retriever(golden: GoldenSet, retriever: Retriever, output: Path | None, options: ExecutorOptions, *,
                  resume: bool = False, progress: Progress | None = None, shard: Mapping[str, Any] | None = None,
                  ray: tuple[str, RetrieverOptions, RaySetup] | None = None) -> Run:
    """``answer_all``'s answers as a ``Run``."""
    return answer_all(golden, retriever, output, options, resume=resume, progress=progress, shard=shard,
                      ray=ray).run


def _grace(workers: Workers[GoldenQuery, QueryResult] | LoopWorkers[GoldenQuery, QueryResult] | RayWorkers,
           in_flight: int, grace: float,
           record: Callable[[list[QueryResult]], None]) -> tuple[int, bool]:
    """After the first Ctrl-C: record the answers of calls in flight that finish within ``grace``
    seconds. Returns how many calls were still running, and whether a second Ctrl-C cut it short."""
    deadline = time.monotonic() + grace
    lost = 0
    try:
        while in_flight and (left := deadline - time.monotonic()) > 0:
            try:
                item = workers.get(timeout=left)
            except queue.Empty:
                break
            in_flight -= 1
            if isinstance(item, QueryResult):
                record([item])
            else:  # a retry not made, or an error: no answer to keep
                lost += 1
    except KeyboardInterrupt:
        return in_flight + lost, True
    return in_flight + lost, False


def _check_not_all_failed(answered: Answered, fresh: list[QueryResult], output: Path | None) -> None:
    """RetrieverDown when questions were asked and not one answer came back."""
    if not fresh or any(r.error is None for r in answered.results):
        return
    first = fresh[0]
    where = f"; every error is recorded in {output}" if output is not None else ""
    raise RetrieverDown(
        f"every call to the retriever failed ({len(fresh)} of {len(fresh)} questions); the first error, "
        f"for question {first.id!r}: {first.error}",
        hint=f"check that the retriever is running and reachable (its URL or DSN, credentials, {flag('timeout')}), "
             f"then run again{where}", answered=answered)


def _wait(workers: Workers[GoldenQuery, QueryResult] | LoopWorkers[GoldenQuery, QueryResult] | RayWorkers,
          ctrl_c: _CtrlC) -> list[QueryResult | BaseException]:
    """The next answer and every one ready with it; KeyboardInterrupt (``ctrl_c.check``) only while
    none is taken, so an answer taken is never dropped."""
    while True:
        ctrl_c.check()
        try:
            first = workers.get(timeout=0.1)
        except queue.Empty:
            continue
        return [first, *workers.ready()]


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
