"""What git says about the working directory, for the records ragauge keeps (None outside a repository)."""

from __future__ import annotations

import subprocess


def git(*args: str) -> str | None:
    """``git ARGS`` stripped output; None when git is missing, fails, times out or prints nothing."""
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None
