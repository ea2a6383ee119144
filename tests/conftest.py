from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "fixtures"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def trec_dir() -> Path:
    return DATA / "trec_eval"
