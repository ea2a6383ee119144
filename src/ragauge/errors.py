"""One exception hierarchy; each class carries the exit code the CLI maps it to."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

_COMMAND_LINE: ContextVar[bool] = ContextVar("ragauge_command_line", default=False)
"""True while a ``ragauge`` command runs (``command_line()``): ``flag`` then names options as flags."""


class RagaugeError(Exception):
    """Base of every error ragauge raises on purpose.

    ``message`` says what is wrong, ``where`` where (``file:line``), ``hint`` how to fix it.
    """

    exit_code = 2

    def __init__(self, message: str, *, where: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.hint = hint

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class InputError(RagaugeError):
    """Bad input: a file, a spec or an option the user can correct (exit 2)."""


class NotComparable(InputError):
    """Two results, or a result and a baseline, of different golden sets (exit 2)."""


class ContractMismatch(InputError):
    """Two results measured under different contracts (fetch, doc-id rule, labels, grades, ...):
    their numbers are not comparable (exit 2)."""


class BaselineEdited(InputError):
    """A baseline file that is not what ``baseline update`` wrote: its means do not follow from its
    per-question values, its digest does not match, or its history disagrees (exit 2)."""


class DuplicateDocument(InputError):
    """A query retrieves a document twice where that is an error (``duplicates="error"``);
    ``query`` names the query."""

    def __init__(self, message: str, *, query: str, where: str | None, hint: str) -> None:
        super().__init__(message, where=where, hint=hint)
        self.query = query


class RetrieverDown(InputError):
    """Every call failed: the retriever is down or misconfigured; ``run`` holds the errors (built
    when read: ``ragauge run`` prints the message and never needs it) (exit 2)."""

    def __init__(self, message: str, *, hint: str, answered: Any) -> None:
        super().__init__(message, hint=hint)
        self.answered = answered

    @property
    def run(self) -> Any:
        return self.answered.run


class ServerUnreachable(InputError):
    """A store's or service's server cannot be reached when it is opened, before any question is
    asked: nothing is written, and the hint says what to check (exit 2). Once a run is under way an
    unreachable server is retried, and every call failing is :class:`RetrieverDown`."""


class RunAborted(RagaugeError):
    """The run stopped (on_error=fail, or a fatal retriever error); the partial file is valid (exit 2)."""


class RunInterrupted(RagaugeError):
    """Ctrl-C. The file (if any) is valid and holds every answer received, including those of
    calls in flight that finished within the grace period; ``abandoned`` calls did not (exit 130)."""

    exit_code = 130

    def __init__(self, progress: Any, abandoned: int, output: Path | None, at_once: bool) -> None:
        kept = f"; the {progress.done} answers so far are in {output}" if output is not None else ""
        note = f" ({abandoned} call(s) in flight abandoned)" if abandoned else ""
        super().__init__(f"interrupted{' again: stopped at once' if at_once else ''} after {progress.done} of "
                         f"{progress.total} questions{note}{kept}",
                         hint=f"run the same command with {flag('resume')} to continue" if output is not None else None)
        self.progress, self.abandoned, self.output, self.at_once = progress, abandoned, output, at_once


class GateFailure(RagaugeError):
    """A quality gate failed (exit 1)."""

    exit_code = 1


class MissingExtra(RagaugeError):
    """An optional dependency is not installed; the hint names the pip extra (exit 2)."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the optional package '{package}', which is not installed",
            hint=f"pip install 'ragauge[{extra}]'",
        )


def where(path: object, line: int | None = None) -> str:
    """Format a location as ``path:line`` (or just ``path``)."""
    return f"{path}:{line}" if line is not None else str(path)


def flag(name: str, value: str | None = None, *, cli: str | None = None) -> str:
    """An option's name as whoever called can write it, for error messages and hints: ``--fetch``
    while a ``ragauge`` command runs (inside ``command_line()``), ``fetch=`` (the keyword) for a
    Python caller. ``name`` is the keyword, with underscores (``"batch_size"``); the command line
    spells it with dashes (``--batch-size``), or as ``cli`` says when the command names it otherwise
    (``flag("endpoint", cli="--judge-endpoint")``, ``flag("max_docs", cli="-M")``). ``value``, when
    given, is the text after the option: ``flag("corpus", "PATH")`` is ``--corpus PATH`` or
    ``corpus=PATH``.

    Only for an option that is both a flag of the command and a keyword of the Python function
    raising the error (an option object's field counts: ``ExecutorOptions(concurrency=)``); a hint
    that spells a whole command line is advice to run it and names its flags as they are. Read
    where the message is built, in the caller's thread: a thread started outside ``command_line()``
    (a worker's) reads the keyword."""
    if _COMMAND_LINE.get():
        shown = cli or "--" + name.replace("_", "-")
        return shown if value is None else f"{shown} {value}"
    return name.replace("-", "_") + "=" + ("" if value is None else value)


@contextmanager
def command_line() -> Iterator[None]:
    """For the duration of a command: ``flag`` names options as the command line spells them.
    Set once, where the ``ragauge`` group invokes a command; reset on the way out, so a Python call
    after a command (in the same process, as in tests) reads keywords again."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)
