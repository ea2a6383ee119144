"""Checks the vector-store adapter tests share: the help-desk sections as a small corpus, the exact
cosine ranking computed here with numpy over the same embeddings, and the golden set scored through
the adapter and through that ranking."""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import ragauge
from ragauge.models.embedders import get_embedder
from ragauge.retrieve.base import Retriever
from ragauge.retrieve.corpus import Chunking, Passage
from ragauge.retrieve.stores.common import read_passages

ROOT = Path(__file__).parents[2]
SECTIONS = ROOT / "examples" / "helpdesk" / "sections.jsonl"
GOLDEN = ROOT / "examples" / "helpdesk" / "golden.jsonl"
METRICS = ["hit@1", "recall@5", "recall@20", "mrr", "ndcg@10", "map"]


def sections(chunking: Chunking | None = None) -> list[Passage]:
    return read_passages(SECTIONS, chunking)


def questions() -> list[str]:
    with open(GOLDEN, encoding="utf-8") as fh:
        return [json.loads(line)["query"] for line in fh if line.strip()]


class Exact:
    """The exact cosine ranking of ``passages`` under the named embedder, zero vectors left out as
    the loaders leave them out."""

    def __init__(self, passages: Sequence[Passage], embedder: str = "hash") -> None:
        self.embedder = get_embedder(embedder)
        vectors = self.embedder.embed([p.indexed_text for p in passages])
        keep = vectors.any(axis=1)
        self.passages = [p for p, k in zip(passages, keep) if k]
        self.vectors = vectors[keep]
        self.key = {(p.doc_id, p.chunk_id): i for i, p in enumerate(self.passages)}

    def scores(self, question: str) -> np.ndarray:
        return self.vectors.astype(np.float64) @ self.embedder.embed([question])[0].astype(np.float64)

    def top(self, question: str, n: int) -> list[tuple[Passage, float]]:
        scores = self.scores(question)
        order = np.lexsort((np.arange(len(scores)), -scores))[:n]
        return [(self.passages[i], float(scores[i])) for i in order]

    def check(self, retriever: Retriever, question: str, n: int = 10) -> None:
        """The adapter's hits are an exact top ``n``: each hit's score is the cosine of its own
        passage, the scores equal the exact top-n scores rank by rank, and no passage comes twice;
        so the ranking equals the exact one up to the order of equal scores."""
        hits = retriever.search(question, n).hits
        expected = self.top(question, n)
        scores = self.scores(question)
        assert len(hits) == len(expected), question
        seen = set()
        for hit in hits:
            at = self.key[(hit.doc_id, hit.chunk_id)]
            assert hit.score == pytest.approx(scores[at], abs=1e-5), (question, hit)
            seen.add(at)
        assert len(seen) == len(hits)
        assert [h.score for h in hits] == pytest.approx([s for _, s in expected], abs=1e-5), question

    def run(self, fetch: int) -> dict[str, list[str]]:
        """The golden questions' exact rankings of ``fetch`` passages, folded to documents (first
        occurrence kept), as a run ``ragauge.evaluate_run`` scores."""
        out: dict[str, list[str]] = {}
        with open(GOLDEN, encoding="utf-8") as fh:
            for line in fh:
                question = json.loads(line)
                docs = [p.doc_id for p, _ in self.top(question["query"], fetch)]
                out[question["id"]] = list(dict.fromkeys(docs))
        return out


def assert_scores_like_exact(spec: str, exact: Exact, *, concurrency: int = 4) -> ragauge.Evaluation:
    """The golden set scored through ``spec`` (``ragauge.evaluate``) equals, question by question,
    the exact ranking scored as a run."""
    through = ragauge.evaluate(GOLDEN, spec, metrics=METRICS, fetch=20, concurrency=concurrency)
    reference = ragauge.evaluate_run(GOLDEN, exact.run(20), metrics=METRICS, fetch=20)
    for metric in METRICS:
        assert through.column(metric) == pytest.approx(reference.column(metric), abs=1e-9), metric
    assert through.summary["ndcg@10"] > 0.2  # the hash embedder finds the help desk's exact terms
    return through


def free_port() -> int:
    """A loopback port nothing listens on (for a server URL that must fail to connect)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def library(module: str, extra: str) -> object:
    """Import ``module`` for a store's tests; a missing one skips them locally (saying how to install
    it) and fails them in CI ($CI set), where the test extra installs every store."""
    import importlib
    import os

    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f"{module} is required in CI (pip install 'ragauge[test]')", pytrace=False)
        pytest.skip(f"{module} is not installed: pip install 'ragauge[{extra}]'", allow_module_level=True)
        raise


def small_corpus(folder: Path, count: int) -> Path:
    """The first ``count`` help-desk sections as a corpus file (for stores that write slowly)."""
    path = folder / f"sections-{count}.jsonl"
    with open(SECTIONS, encoding="utf-8") as fh:
        path.write_text("".join(line for line, _ in zip(fh, range(count))), encoding="utf-8")
    return path
