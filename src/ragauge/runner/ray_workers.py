"""The executor's worker pool on Ray (``ragauge run --executor ray``): the same submit/get/stop
contract as ``workers.Workers``, with the questions answered by Ray actors, each holding its own
retriever built once from the spec.

``concurrency`` calls are in flight across ``workers`` actors (default: one per CPU Ray reports),
each actor taking up to ceil(concurrency / workers) at once. The driver keeps everything else:
the run file, resume, progress and retries' outcome (retries happen inside the actors, so the
driver's count of retried calls stays 0). With no ``address`` a local Ray is started for the run
and stopped after it; with ``address`` (``auto`` or ``ray://host:port``) an existing cluster is
used, whose workers need ragauge and the retriever's dependencies installed.
"""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass
from typing import Any

from ragauge.data.golden import GoldenQuery
from ragauge.data.hits import QueryResult
from ragauge.errors import InputError, MissingExtra, flag
from ragauge.retrieve.base import RetrieverOptions


@dataclass(frozen=True)
class RaySetup:
    """Where and how wide: ``address`` of a cluster (None: start a local one) and the number of
    actors (None: one per CPU the cluster reports)."""

    address: str | None = None
    workers: int | None = None


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtra("ray", "ray", flag("ray", cli="--executor ray")) from None
    return ray


def _actor_class(ray: Any) -> Any:
    from ragauge.runner.calls import Progress, call

    class RetrieverActor:
        """One retriever, opened once from its spec, answering questions with the executor's own
        call (timeouts, retries with backoff, error capture)."""

        def __init__(self, spec: str, retriever_options: RetrieverOptions, options: Any) -> None:
            from ragauge.retrieve.registry import open_retriever

            self.retriever = open_retriever(spec, retriever_options)
            self.options = options
            self.rng = random.Random(options.seed)
            self.progress = Progress()
            self.lock = threading.Lock()
            self.halted = threading.Event()  # an actor's retries end with the driver's stop, not its Ctrl-C

        def call(self, q: GoldenQuery) -> QueryResult:
            return call(self.retriever, q, self.options, self.rng, self.progress, self.lock, self.halted)

        def close(self) -> None:
            self.retriever.close()

    return ray.remote(RetrieverActor)


class RayWorkers:
    """``workers.Workers`` on Ray actors (see the module docstring)."""

    def __init__(self, spec: str, retriever_options: RetrieverOptions, options: Any, setup: RaySetup) -> None:
        if setup.workers is not None and setup.workers < 1:
            raise InputError(f"{flag('workers', cli='--ray-workers')} must be at least 1, got {setup.workers}")
        ray = self._ray = _ray()
        self._started = not ray.is_initialized()
        if self._started:
            ray.init(address=setup.address, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                     configure_logging=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        count = max(1, min(setup.workers or cpus, options.concurrency))
        per_actor = math.ceil(options.concurrency / count)
        actor = _actor_class(ray).options(max_concurrency=per_actor, num_cpus=0)
        self._actors = [actor.remote(spec, retriever_options, options) for _ in range(count)]
        self._pending: dict[Any, int] = {}
        self._load = [0] * count
        self.slots = count * per_actor

    def submit(self, items: list[GoldenQuery]) -> None:
        for item in items:
            i = min(range(len(self._actors)), key=self._load.__getitem__)
            self._load[i] += 1
            self._pending[self._actors[i].call.remote(item)] = i

    def ready(self) -> list[QueryResult | BaseException]:
        """Nothing: ``get`` returns each answer as it comes."""
        return []

    def get(self, timeout: float | None = None) -> QueryResult | BaseException:
        """The next answer in completion order, or the exception its call raised (a Ray task
        error is unwrapped to the retriever's own); ``queue.Empty`` after ``timeout`` seconds."""
        import queue

        ray = self._ray
        waited = 0.0
        while True:
            step = 0.1 if timeout is None else max(0.0, min(0.1, timeout - waited))
            ready, _ = ray.wait(list(self._pending), num_returns=1, timeout=step)
            if ready:
                ref = ready[0]
                self._load[self._pending.pop(ref)] -= 1
                try:
                    result: QueryResult = ray.get(ref)
                    return result
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    return cause if isinstance(cause, BaseException) else exc
                except ray.exceptions.RayError as exc:  # the actor died: the run cannot go on
                    died: BaseException = exc
                    return died
            waited += step
            if timeout is not None and waited >= timeout:
                raise queue.Empty

    def stop(self) -> None:
        """Close the actors' retrievers and end them; stop the local Ray this pool started."""
        ray = self._ray
        try:
            ray.get([a.close.remote() for a in self._actors], timeout=30)
        except Exception:  # noqa: BLE001 - an actor that died cannot close; ending it is enough
            pass
        for a in self._actors:
            ray.kill(a)
        if self._started:
            ray.shutdown()
