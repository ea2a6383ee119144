"""Option parsing shared by commands."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.errors import InputError


def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> [1, 5, 10]; each a positive integer."""
    try:
        ks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"-k takes positive integers separated by commas, got {text!r}", hint="e.g. -k 5 or -k 1,5,10") from None
    if not ks or min(ks) < 1:
        raise InputError(f"-k takes positive integers, got {text!r}", hint="e.g. -k 5 or -k 1,5,10")
    return sorted(dict.fromkeys(ks))


def write_output(text: str, output: Path | None) -> None:
    """Write ``text`` to ``output`` (atomically) or to stdout."""
    if output is None:
        click.echo(text, nl=False)
        return
    tmp = output.with_name(output.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(output)
    except OSError as exc:
        raise InputError(f"cannot write output: {exc.strerror}", where=str(output)) from None
