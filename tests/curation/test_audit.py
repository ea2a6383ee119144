"""golden agreement: the assessor's audit against the human labels. Kappa held to scikit-learn's, the
confusion counted by hand, the bootstrap over questions recomputed pair by pair, per tag, and the bar
(--min-kappa refuses with exit 2 unless --force)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result

from ragauge.cli.main import cli
from ragauge.curation.audit import REPLICATES, agreement_of, assessor_agreement
from ragauge.formats.autolabels import AutoLabel, Calibration, write_auto_labels
from ragauge.stats.kappa import weighted_kappa

CAL = Calibration((0.3, 0.7), (0, 1, 2), 40, 0.5)


def _files(tmp_path: Path, questions: int = 12, seed: int = 1) -> tuple[Path, Path, list[tuple[str, float, float]]]:
    """A golden set of graded questions (tags a/b), two unlabelled ones, and labels of an assessor that
    mostly agrees; returns the files and the (question, human, auto) pairs of labelled questions."""
    rng = np.random.default_rng(seed)
    golden, auto = tmp_path / "golden.jsonl", tmp_path / "auto.jsonl"
    lines, labels, pairs = [], [], []
    for i in range(questions + 2):
        qid = f"q{i}"
        docs = [f"d{i}-{j}" for j in range(5)]
        human = {d: int(g) for d, g in zip(docs, rng.choice([0, 1, 2], size=5, p=[0.6, 0.25, 0.15])) if g}
        unlabelled = i >= questions
        lines.append({"id": qid, "query": f"question {i}", "relevant": None if unlabelled else human,
                      "tags": ["a" if i % 2 else "b"]})
        for d in docs:
            h = human.get(d, 0)
            a = h if rng.random() < 0.7 else int(rng.choice([0, 1, 2]))
            labels.append(AutoLabel(qid, d, a, 0.1 + 0.4 * a, f"k{qid}{d}"))
            if not unlabelled:
                pairs.append((qid, float(h), float(a)))
    golden.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    write_auto_labels(labels, auto, "python@m:f#abc", CAL)
    return golden, auto, pairs


def agreement(*args: str) -> Result:
    return CliRunner().invoke(cli, ["golden", "agreement", *args])


def test_kappa_confusion_and_tags(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    golden, auto, pairs = _files(tmp_path)
    audit = assessor_agreement(golden, auto)
    human, assessor = [h for _, h, _ in pairs], [a for _, _, a in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert audit.overall.kappa == pytest.approx(cohen_kappa_score(human, assessor, weights="linear"))
        relevant = cohen_kappa_score([h >= 1 for h in human], [a >= 1 for a in assessor])
    assert audit.overall.kappa_relevant == pytest.approx(relevant)
    assert audit.overall.pairs == 60 and audit.overall.questions == 12
    for h in (0, 1, 2):
        for a in (0, 1, 2):
            assert audit.overall.confusion[str(h)][str(a)] == sum(1 for _, x, y in pairs if (x, y) == (h, a))
    tag_a = [(h, a) for q, h, a in pairs if int(q[1:]) % 2]
    assert audit.by_tag["a"].kappa == pytest.approx(weighted_kappa([h for h, _ in tag_a], [a for _, a in tag_a],
                                                                   categories=[0, 1, 2]).value)
    assert audit.overall.interval is not None
    low, high = audit.overall.interval
    assert low < audit.overall.kappa < high
    assert "10 label(s) of unlabelled questions left out" in audit.notes[0]
    assert assessor_agreement(golden, auto).to_dict() == audit.to_dict()  # seeded: the same interval


def test_the_bootstrap_resamples_questions_with_their_pairs() -> None:
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 4, size=(9, 2, 2)).astype(float)
    got = agreement_of(counts, [0.0, 1.0], 0.05, np.random.default_rng(11))
    weights = np.random.default_rng(11).multinomial(9, np.full(9, 1 / 9), size=REPLICATES)
    kappas = []
    for w in weights:  # each question's pairs, repeated as often as the question was drawn
        h = [i for q in range(9) for i in range(2) for j in range(2) for _ in range(int(counts[q, i, j] * w[q]))]
        a = [j for q in range(9) for i in range(2) for j in range(2) for _ in range(int(counts[q, i, j] * w[q]))]
        kappas.append(weighted_kappa(h, a, categories=[0, 1]).value)
    defined = np.array([k for k in kappas if k is not None])
    assert got.interval == pytest.approx(tuple(np.quantile(defined, [0.025, 0.975])))


def test_the_bar_refuses_unless_forced(tmp_path: Path) -> None:
    golden, auto, _ = _files(tmp_path)
    kappa = assessor_agreement(golden, auto).overall.kappa
    assert kappa is not None
    result = agreement("--human", str(golden), "--auto", str(auto), "--min-kappa", str(round(kappa + 0.05, 3)))
    assert result.exit_code == 2 and "BELOW the bar" in result.stdout
    assert f"{auto}: the assessor python@m:f#abc agrees with the human labels at weighted kappa {kappa:.3f}" \
        in result.stderr and "--force" in result.stderr
    forced = agreement("--human", str(golden), "--auto", str(auto), "--min-kappa", str(kappa + 0.05), "--force",
                       "--format", "json")
    assert forced.exit_code == 0
    data: dict[str, Any] = json.loads(forced.stdout)
    assert data["below_bar"] and data["forced"] and data["by_tag"]["b"]["questions"] == 6
    passed = agreement("--human", str(golden), "--auto", str(auto), "--min-kappa", str(kappa - 0.05))
    assert passed.exit_code == 0 and "meets the bar" in passed.stdout


def test_refusals(tmp_path: Path) -> None:
    golden, auto, _ = _files(tmp_path)
    lines = golden.read_text(encoding="utf-8").splitlines()
    golden.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")  # q0 no longer in the golden set
    result = agreement("--human", str(golden), "--auto", str(auto))
    assert result.exit_code == 2 and f"{auto}:1: a label for question 'q0', which the golden set does not hold" \
        in result.output and "hint:" in result.output
    only_unlabelled = tmp_path / "none.jsonl"
    only_unlabelled.write_text("".join(json.dumps({"id": f"q{i}", "query": "x", "relevant": None}) + "\n"
                                       for i in range(14)), encoding="utf-8")
    result = agreement("--human", str(only_unlabelled), "--auto", str(auto))
    assert result.exit_code == 2 and "no automatic label is for a human-labelled question" in result.output
    assert "Traceback" not in result.output
    for bar in ("2", "-1.5", "nan"):  # a kappa is in [-1, 1]: a bar of 2 refused every assessor
        result = agreement("--human", str(golden), "--auto", str(auto), "--min-kappa", bar)
        assert result.exit_code == 2 and "--min-kappa must be a finite number in [-1, 1]" in result.output
