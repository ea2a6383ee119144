"""Option parsing shared by commands."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from ragauge.errors import InputError

FC = TypeVar("FC", bound=Callable[..., Any])


def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> [1, 5, 10]; each a positive integer."""
    from ragauge.api.metrics import MAX_CUTOFF

    try:
        ks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"-k takes positive integers separated by commas, got {text!r}",
                         hint="e.g. -k 5 or -k 1,5,10") from None
    if not ks or min(ks) < 1 or max(ks) > MAX_CUTOFF:
        raise InputError(f"-k takes integers from 1 to {MAX_CUTOFF:,}, got {text!r}", hint="e.g. -k 5 or -k 1,5,10")
    return sorted(dict.fromkeys(ks))


def write_output(text: str | Iterable[str], output: Path | None) -> None:
    """Write ``text`` (or its pieces, as they come) to ``output`` (atomically) or to stdout."""
    from ragauge.core.files import atomic_writer, write_error

    pieces = [text] if isinstance(text, str) else text
    if output is None:
        try:
            for piece in pieces:
                click.echo(piece, nl=False)
            sys.stdout.flush()
        except OSError as exc:
            raise write_error("<stdout>", exc, "to standard output") from None
        return
    with atomic_writer(output) as fh:
        for piece in pieces:
            fh.write(piece)


def texts_options(f: FC) -> FC:
    """``--corpus`` and ``--tokenizer`` for commands that score runs: the texts span labels and
    tokenizer-counted budgets read (as ``ragauge eval`` takes them)."""
    f = click.option("--tokenizer", help="Count token budgets (recall@2000t) in this tokenizer's tokens of each hit's "
                                         "text in --corpus: minilm, or hf:PATH (a tokenizer.json); default: words.")(f)
    return click.option("--corpus", type=click.Path(path_type=Path),
                        help="The corpus the runs were retrieved from: quoted span labels resolve in its texts, "
                             "--tokenizer counts them.")(f)


def grades_option() -> Callable[[FC], FC]:
    """``--grades``: a mapping of the golden set's grades to ragauge's (part of the contract)."""
    return click.option(
        "--grades", help='Map the golden set\'s grades before scoring, FROM:TO pairs: "1:3,2:2,3:1,4:0,-1:0" for '
                         "Cranfield (1 = best). Every grade used must be mapped; part of the contract.")


def unjudged_option() -> Callable[[FC], FC]:
    """``--unjudged``: how a document the golden set does not label counts (part of the contract;
    the choices are ``metrics.judged.UNJUDGED``, not imported here to keep ``--help`` light)."""
    return click.option(
        "--unjudged", type=click.Choice(["non-relevant", "unknown"]), default="non-relevant", show_default=True,
        help="How documents without a label count: non-relevant (as trec_eval), or unknown: left out of each "
             "ranking before scoring (condensed lists). Results under different rules are not compared.")


def auto_labels_option() -> Callable[[FC], FC]:
    """``--auto-labels``: an assessor's labels (``golden assess``) beside a partly labelled golden set:
    prediction-powered estimates beside the human-only ones."""
    return click.option(
        "--auto-labels", type=click.Path(path_type=Path),
        help="Automatic labels (written by 'ragauge golden assess') for a golden set in which only some "
             'questions carry human labels ("relevant": null for the others): each mean, or difference, is '
             "estimated by prediction-powered inference beside the human-only figure.")


class SectionedCommand(click.Command):
    """A command whose ``--help`` lists its options under headings: ``sections`` is a sequence of
    (title, parameter names), names it does not have skipped; options no section names (``--help``
    among them) come last under "Other options". Only the help text changes: parsing is click's."""

    def __init__(self, *args: Any, sections: Sequence[tuple[str, Sequence[str]]] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sections = tuple((title, tuple(names)) for title, names in sections)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records = {p.name: p.get_help_record(ctx) for p in self.get_params(ctx) if not isinstance(p, click.Argument)}
        named = {name for _, names in self.sections for name in names}
        for title, names in (*self.sections, ("Other options", tuple(n for n in records if n not in named))):
            rows = [record for name in names if (record := records.get(name)) is not None]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
