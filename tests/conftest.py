from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.browser import browser  # noqa: F401  (the fixture for every browser test)

# Property tests draw the same examples on every run, so the suite (and CI) cannot fail at random;
# HYPOTHESIS_PROFILE=explore draws new ones, to hunt for inputs nobody tried.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

DATA = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session", autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The suite's own $RAGAUGE_CACHE (indexes, embeddings, the model's fused graph), so no test reads
    what an earlier run, or the user, left in ~/.cache/ragauge; a test may still set its own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUGE_CACHE", str(tmp_path_factory.mktemp("ragauge-cache")))
        yield


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def trec_dir() -> Path:
    return DATA / "trec_eval"


@pytest.fixture
def rows_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each call of ``QueryRows.rows`` makes, from the start of the test (``clear()``
    it to count from a later point): a fresh evaluation makes a row, with its shown documents, each
    time one is read, and the tests of code that reads rows count how many it makes."""
    from ragauge.evaluation.rows import QueryRows

    made: list[int] = []
    real = QueryRows.rows

    def counted(self: QueryRows, numbers: Any) -> Any:
        made.append(len(numbers))
        return real(self, numbers)

    monkeypatch.setattr(QueryRows, "rows", counted)
    return made

