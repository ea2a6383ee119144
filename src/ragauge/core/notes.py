"""How a warning says it changes how the numbers read."""

from __future__ import annotations

LOUD = "NOTE: "
"""Prefix of a warning that explains numbers which would otherwise mislead (every renderer shows
warnings; this marks the ones that change how the numbers read, and the CLI repeats them on stderr
when the report goes to a file)."""
