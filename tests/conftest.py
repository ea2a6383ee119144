from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests.browser import browser  # noqa: F401  (the fixture for every browser test)

# Property tests draw the same examples on every run, so the suite (and CI) cannot fail at random;
# HYPOTHESIS_PROFILE=explore draws new ones, to hunt for inputs nobody tried.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

DATA = Path(__file__).parent / "fixtures"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def trec_dir() -> Path:
    return DATA / "trec_eval"
