"""Fitting a plain-text report to a terminal: prose wrapped at spaces, wide tables wrapped into blocks.

Each function takes ``width`` None for "do not fit" (a file, a pipe): the text then comes back as
``core.table.text_table`` and an unwrapped line would print it, byte for byte. With a width, no line
is longer than it and nothing is dropped:

- prose wraps at spaces; with ``split`` a word longer than a whole line (a path, an id) is split
  across lines rather than left to overflow;
- a table too wide is printed as several blocks of its columns, one under the other, each repeating
  the key columns (a configuration's, a metric's or a tag's name); columns given as a group (a mean
  and its difference) stay in one block;
- the first column is made narrower only to make room for the widest group or to at least halve
  the blocks: a name longer than it goes on over more lines of its row, indented (nothing is cut);
- a cell still wider than its room is wrapped onto more lines of its row.

The texts given are already escaped (``core.escape.terminal``): one character is one column.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import Any

Style = Callable[..., str]
"""``click.style`` or :func:`plain`: ``style(text, bold=True, fg="red")``."""

GLUE = "\0"
"""A space :func:`wrap` does not break at (escaped text holds no NUL); it prints as a space."""
PROSE_WIDTH = 100
"""Sentences are wrapped to at most this many columns even on a wider terminal (easier to read)."""
KEY_MIN = 12
"""The first column is not made narrower than this many characters (nor a third of the width)."""

Paint = Callable[[int, int], "dict[str, Any] | None"]
"""``paint(row, column)``: the style of a body cell (``click.style`` keywords), None for none."""


def plain(text: str, **_: object) -> str:
    """The style that adds nothing."""
    return text


def styler(color: bool) -> Style:
    """``click.style`` when ``color``, else :func:`plain`."""
    if not color:
        return plain
    import click

    return click.style


def prose(width: int | None) -> int | None:
    """The width sentences wrap to: the terminal's, at most :data:`PROSE_WIDTH`; None: not fitted."""
    return None if width is None else min(width, PROSE_WIDTH)


def glue(text: str) -> str:
    """``text`` with its spaces kept on one line by :func:`wrap` (``recall@5 -0.5000``)."""
    return text.replace(" ", GLUE)


def wrap(text: str, width: int | None, indent: str = "", rest: str | None = None, *,
         split: bool = False) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at spaces only (never inside a word, an
    id or a path, nor at a :func:`glue` d space); ``indent`` starts the first line, ``rest`` (default
    ``indent``) the others. ``width`` None: one line.

    With ``split`` every line fits: a word too long to follow the first line's indent starts the
    next line, a hanging indent shrinks (to two spaces) for the longest word, and only a word longer
    than that is split across lines.
    """
    rest = indent if rest is None else rest
    if width is None:
        return [(indent + text).replace(GLUE, " ")]
    words = text.split()
    if split and words and not rest.strip():
        longest = max(len(w) for w in words)
        rest = rest[:max(min(len(rest), width - longest), min(len(rest), 2))]
        if len(indent) + len(words[0]) > width and indent.strip():
            return [indent.rstrip()] + wrap(text, width, rest, rest, split=True)
    lines = textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=rest,
                          break_long_words=split, break_on_hyphens=False) or [indent.rstrip()]
    return [line.replace(GLUE, " ") for line in lines]


def fit_table(header: Sequence[str], rows: Sequence[Sequence[str]], width: int | None, *, keep: int = 1,
              groups: Sequence[int] | None = None, style: Style = plain, paint: Paint | None = None) -> list[str]:
    """The lines of the table (aligned as ``core.table.text_table`` aligns it) fitted to ``width``.

    ``keep``: how many leading columns every block repeats; ``groups``: the sizes of the runs of
    the other columns that stay in one block when they fit beside the key (default: each column
    alone). The first column is made narrower (to no less than a third of the width), its longer
    names going on over more lines, only to let the widest group fit beside it, or when that at
    least halves the number of blocks. ``style`` bolds
    the header; ``paint`` styles body cells. With ``width`` None, or a table that fits, and no
    style, the lines are exactly ``core.table.text_table(header, rows)``'s.
    """
    cells = [list(header), *(list(r) for r in rows)]
    n = len(header)
    widths = [max(len(c) for c in col) for col in zip(*cells)]
    left = [[i == 0 or i == n - 1 and not c[:1].isdigit() and c[:1] not in "+-." for i, c in enumerate(r)]
            for r in cells]
    if width is None or sum(widths) + 2 * (n - 1) <= width:
        return _block(cells, left, widths, list(range(n)), style, paint, {})
    floor = max(KEY_MIN, width // 3)
    keep = max(1, min(keep, n))
    if keep > 1 and (keep == n or sum(widths[1:keep]) + 2 * (keep - 1) > floor):
        groups = [1] * (keep - 1) + list(groups or [1] * n)  # the other keys become columns like the rest
        keep = 1
    spans = _groups(n, keep, groups)
    others = sum(widths[1:keep]) + 2 * (keep - 1)
    widest = max((_span(widths, s) for s in spans), default=0)
    room = min(widths[0], max(floor, width - 2 - widest - others))  # the widest group beside the key
    fewest = len(_layout(widths, spans, keep, min(room, floor), width)[0])
    if 2 * fewest <= len(_layout(widths, spans, keep, room, width)[0]):  # worth a narrower first column
        while room > floor and len(_layout(widths, spans, keep, room, width)[0]) > fewest:
            room -= 1
    room = min(room, width)
    blocks, wrapped = _layout(widths, spans, keep, room, width)
    if room < widths[0]:
        wrapped[0] = room
    for i, w in wrapped.items():
        widths[i] = w
    out: list[str] = []
    for b in blocks or [[]]:
        if out:
            out.append("")
        out += _block(cells, left, widths, list(range(keep)) + b, style, paint, wrapped)
    return out


def _span(widths: list[int], columns: list[int]) -> int:
    """The width of columns side by side."""
    return sum(widths[i] for i in columns) + 2 * (len(columns) - 1)


def _layout(widths: list[int], spans: list[list[int]], keep: int, room: int,
            width: int) -> tuple[list[list[int]], dict[int, int]]:
    """The blocks (columns after the key) with the first column in ``room`` characters, and the
    columns that wrap (-> the width their cells wrap to). A group too wide beside the key comes
    apart; a column still too wide wraps."""
    key = min(widths[0], room) + sum(widths[1:keep]) + 2 * (keep - 1)
    avail = max(width - key - 2, 1)
    wrapped: dict[int, int] = {}
    parts: list[list[int]] = []
    for s in spans:
        if _span(widths, s) <= avail:
            parts.append(s)
            continue
        for i in s:
            if widths[i] > avail:
                wrapped[i] = avail
            parts.append([i])
    shown = [wrapped.get(i, w) for i, w in enumerate(widths)]
    blocks: list[list[int]] = []
    used = width + 1
    for s in parts:
        if used + 2 + _span(shown, s) > width:
            blocks.append([])
            used = key
        blocks[-1] += s
        used += 2 + _span(shown, s)
    return blocks, wrapped


def _groups(n: int, keep: int, groups: Sequence[int] | None) -> list[list[int]]:
    """The columns after the key as runs (each its own run when ``groups`` is None)."""
    rest = list(range(keep, n))
    if groups is None:
        return [[i] for i in rest]
    spans, at = [], 0
    for size in groups:
        if at >= len(rest):
            break
        spans.append(rest[at:at + max(size, 1)])
        at += max(size, 1)
    spans += [[i] for i in rest[at:]]
    return spans


def _block(cells: list[list[str]], left: list[list[bool]], widths: list[int], columns: list[int], style: Style,
           paint: Paint | None, wrapped: dict[int, int]) -> list[str]:
    """The lines of ``columns`` of the table (``cells[0]``: the header): header, rule, rows; a cell
    of a ``wrapped`` column takes as many lines as it needs (the first column's indented after its first)."""

    def line(r: int) -> list[str]:
        pieces = [wrap(cells[r][i], wrapped[i], "", "  " if i == 0 else "", split=True)
                  if i in wrapped and len(cells[r][i]) > wrapped[i] else [cells[r][i]] for i in columns]
        out = []
        for j in range(max(len(p) for p in pieces)):
            texts = []
            for i, p in zip(columns, pieces):
                text = p[j] if j < len(p) else ""
                pad = " " * (widths[i] - len(text))
                mark = paint(r - 1, i) if paint is not None and r > 0 and text else None
                shown = style(text, **mark) if mark else text
                texts.append(shown + pad if left[r][i] else pad + shown)
            out.append("  ".join(texts).rstrip())
        return out

    header = line(0)
    return ([style(h, bold=True) for h in header] + ["  ".join("-" * widths[i] for i in columns)]
            + [x for r in range(1, len(cells)) for x in line(r)])
