"""One exception hierarchy; each class carries the exit code the CLI maps it to."""

from __future__ import annotations


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
