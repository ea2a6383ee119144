from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import browser  # noqa: F401  (the fixture for every browser test)

DATA = Path(__file__).parent / "fixtures"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def trec_dir() -> Path:
    return DATA / "trec_eval"
