"""A small, real world for prediction-powered metrics: 40 help-desk-like questions, a corpus, two runs
(one better than the other), a golden set in which 12 questions keep their human labels and 28 are
unlabelled (``"relevant": null``), and the automatic labels a real ``golden assess`` writes with a
``python:`` assessor (the share of the question's words a document holds). Nothing is mocked: the
labels are made by the command, the evaluations by ragauge."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ragauge.cli.main import cli

QUESTIONS = 40
LABELLED = (0, 3, 5, 8, 11, 14, 17, 21, 26, 30, 33, 37)
"""The questions that keep their human labels (a fixed draw: the tests read exact figures)."""
WORDS = ["vpn", "printer", "mailbox", "token", "laptop", "badge", "wifi", "license", "monitor", "backup"]
ASSESSOR = "python:tests.predicted.world:overlap"


def overlap(query: str, documents: list[str]) -> list[float]:
    """The assessor: the share of the question's words found in each document."""
    words = {w.strip("?,.").lower() for w in query.split()}
    return [len(words & {w.strip("?,.:;").lower() for w in d.split()}) / len(words) for d in documents]


def bag(query: str, documents: list[str]) -> list[float]:
    """Another assessor: how many of the question's words each document holds (another function,
    another calibration: labels that cannot be paired with ``overlap``'s)."""
    return [4.0 * x for x in overlap(query, documents)]


def _questions() -> list[dict[str, Any]]:
    rng = random.Random(7)
    out = []
    for i in range(QUESTIONS):
        a, b = rng.sample(WORDS, 2)
        out.append({"id": f"q{i:02d}", "query": f"{a} {b} problem {i}", "answer": f"doc-{i}",
                    "partial": f"doc-{i}-p", "tags": [a]})
    return out


def corpus() -> dict[str, str]:
    """The answer holds the question's words (but every fourth lacks its number), the partial document
    two of them (every fifth all of them), the others one: an assessor that errs now and then."""
    docs: dict[str, str] = {}
    for i, q in enumerate(_questions()):
        a, b = q["query"].split()[:2]
        docs[q["answer"]] = (f"How to fix the {a} {b} problem" + ("" if i % 4 == 0 else f" {i}")
                             + ": restart, then check the settings.")
        docs[q["partial"]] = f"Notes on the {a} problem" + (f" {i}, and the {b}." if i % 5 == 0 else ".")
        docs[f"doc-{i}-x"] = f"Canteen menu for week {i}: soup, bread and a {a}-shaped cake."
    return docs


def run(better: bool) -> dict[str, list[str]]:
    """Each question's five documents: the answer at rank 1 (2 for every fourth question, 3 for every
    seventh) in the better run; in the worse, at rank 3, 1 for every third question, and missing for
    every fifth."""
    out = {}
    for i, q in enumerate(_questions()):
        others = [q["partial"], *(f"doc-{(i + j) % QUESTIONS}-x" for j in range(4))]
        if better:
            rank = 3 if i % 7 == 0 else 2 if i % 4 == 1 else 1
        else:
            rank = 0 if i % 5 == 0 else 1 if i % 3 == 0 else 3
        out[q["id"]] = (others[:rank - 1] + [q["answer"]] + others[rank - 1:4]) if rank else others[:5]
    return out


def golden_lines(labelled: tuple[int, ...] | None = LABELLED) -> list[dict[str, Any]]:
    """The golden set's lines; ``labelled`` None labels every question. A labelled question lists its
    answer (grade 2) and the partial document (grade 0: judged, not relevant) -- except every third,
    which lists the answer only, so that its top k has holes."""
    lines = []
    for i, q in enumerate(_questions()):
        relevant: Any = {q["answer"]: 2, q["partial"]: 0} if i % 3 else {q["answer"]: 2}
        if labelled is not None and i not in labelled:
            relevant = None
        lines.append({"id": q["id"], "query": q["query"], "relevant": relevant, "tags": q["tags"]})
    return lines


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_run(path: Path, ranking: dict[str, list[str]]) -> Path:
    return write_jsonl(path, [{"id": q, "hits": [{"doc_id": d, "score": 10.0 - r} for r, d in enumerate(docs)]}
                              for q, docs in ranking.items()])


def assess(files: dict[str, Path], output: Path, assessor: str = ASSESSOR, runs: tuple[str, ...] = ("good", "bad"),
           golden: str = "golden") -> Path:
    """``golden assess`` of the ``runs``' top 5 into ``output``, for real."""
    given = [x for r in runs for x in ("--run", str(files[r]))]
    result = CliRunner().invoke(cli, ["golden", "assess", str(files[golden]), *given, "--corpus", str(files["corpus"]),
                                      "--assessor", assessor, "-k", "5", "-o", str(output)])
    assert result.exit_code == 0, result.output
    return output


def make(folder: Path) -> dict[str, Path]:
    """The world's files in ``folder``: golden (partly labelled), full (every question labelled),
    corpus, good and bad runs, and auto (``golden assess`` of both runs' top 5)."""
    files = {"golden": write_jsonl(folder / "golden.jsonl", golden_lines()),
             "full": write_jsonl(folder / "full.jsonl", golden_lines(None)),
             "corpus": write_jsonl(folder / "corpus.jsonl", [{"_id": d, "title": "", "text": t}
                                                              for d, t in corpus().items()]),
             "good": write_run(folder / "good.jsonl", run(True)), "bad": write_run(folder / "bad.jsonl", run(False)),
             "auto": folder / "auto.jsonl"}
    assess(files, files["auto"])
    return files
