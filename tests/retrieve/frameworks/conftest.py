"""The framework tests run each framework's real in-memory store (installed by the ``test`` extra).

Without a framework installed they SKIP and say how to get it, except in CI ($CI set), where they
FAIL: CI must never skip them quietly. Haystack's telemetry is switched off before Haystack is
imported (it would try to reach the network on every pipeline run).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")


def need(module: str, package: str) -> Any:
    """``module`` imported, or this test skipped (failed in CI) with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = f"{package} is not installed ({exc}): pip install 'ragauge[frameworks]'"
        if os.environ.get("CI"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
