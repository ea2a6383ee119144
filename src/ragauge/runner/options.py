"""How the executor calls a retriever: the one home of the fetch depth, concurrency, retries and
error policy defaults. Light to import: the CLI reads its defaults when it builds ``--help``."""

from __future__ import annotations

from dataclasses import dataclass

from ragauge.core.numbers import COUNT, NON_NEGATIVE, WHOLE, check_number
from ragauge.errors import InputError, flag

ON_ERROR = ("zero", "skip", "fail")
GRACE = 2.0
"""Seconds the first Ctrl-C waits for calls in flight, so their answers are kept."""


@dataclass(frozen=True)
class ExecutorOptions:
    """``fetch`` hits per call; ``concurrency`` calls in flight; ``retries`` extra attempts for
    transient failures with exponential backoff (``backoff`` seconds, doubled each time, with
    full jitter, capped at ``max_backoff``); ``grace`` seconds the first Ctrl-C waits for calls
    in flight. Each number is checked here (InputError with the allowed range)."""

    fetch: int = 20
    concurrency: int = 8
    retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 10.0
    on_error: str = "zero"
    seed: int | None = None
    grace: float = GRACE

    def __post_init__(self) -> None:
        for name, allowed, what in (("fetch", COUNT, flag("fetch")), ("concurrency", COUNT, flag("concurrency")),
                                    ("retries", WHOLE, flag("retries")), ("backoff", NON_NEGATIVE, "backoff"),
                                    ("max_backoff", NON_NEGATIVE, "max_backoff"), ("grace", NON_NEGATIVE, "grace")):
            object.__setattr__(self, name, check_number(getattr(self, name), what, allowed))
        if self.on_error not in ON_ERROR:
            raise InputError(f"{flag('on_error')} must be one of {', '.join(ON_ERROR)}")
