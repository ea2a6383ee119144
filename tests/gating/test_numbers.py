"""The gate cannot be switched off by a number: NaN, infinities and out-of-range values in the rules
or the baseline are refused (exit 2, file:line), and a baseline only goes down on purpose."""

from __future__ import annotations

import errno
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.gating.config import load_rules

EXAMPLE = Path(__file__).parents[2] / "examples" / "scifact"
GOLDEN = str(EXAMPLE / "golden.jsonl")
GOOD = str(EXAMPLE / "bm25.run.jsonl")


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example run with most questions' hits removed: mrr falls from about 0.66 to about 0.2."""
    path = tmp_path_factory.mktemp("runs") / "bad.jsonl"
    lines = (EXAMPLE / "bm25.run.jsonl").read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if "id" in obj and i % 10 < 7:
            obj["hits"] = obj["hits"][-1:]
        out.append(json.dumps(obj))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def baseline(tmp_path: Path) -> Path:
    path = tmp_path / "baseline.json"
    r = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(path), "--reason", "first")
    assert r.exit_code == 0, r.output
    return path


@pytest.mark.parametrize("toml", [
    '[gate]\nmetrics = { "mrr" = nan }\n',
    '[gate]\nmetrics = { "mrr" = inf }\n',
    '[gate]\nmetrics = { "mrr" = -0.5 }\n',
    '[gate]\nalpha = nan\nsignificant_only = true\n',
    '[gate]\nalpha = 1.5\n',
    '[gate]\ntag_floors = { x = { "mrr" = nan } }\n',
    '[gate]\ncritical_k = true\n',
    '[gate]\nsignificant_only = "false"\n',
])
def test_bad_numbers_in_the_rules_are_refused_with_the_line(toml: str, tmp_path: Path, bad_run: Path,
                                                             baseline: Path) -> None:
    config = tmp_path / "ragauge.toml"
    config.write_text("# rules\n" + toml, encoding="utf-8")
    r = invoke("gate", GOLDEN, "--run", str(bad_run), "--baseline", str(baseline), "--config", str(config))
    assert r.exit_code == 2, r.output
    assert f"{config}:3:" in r.stderr, r.stderr  # the line of the bad setting
    assert "PASSED" not in r.output and "Traceback" not in r.output


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["metrics"].update({"mrr": float("nan")}), "NaN is not a finite number"),
    (lambda d: d["metrics"].update({"mrr": float("inf")}), "Infinity is not a finite number"),
    (lambda d: d["queries"][next(iter(d["queries"]))].update({"mrr": float("nan")}), "NaN is not a finite number"),
    (lambda d: d["metrics"].update({"mrr": "high"}), "baseline value metrics.mrr must be a finite number"),
    (lambda d: d.pop("metrics"), "baseline field 'metrics' is missing"),
    (lambda d: d.pop("golden_hash"), "baseline field 'golden_hash' is missing"),
    (lambda d: d.update({"queries": []}), "baseline field 'queries' must be an object"),
    (lambda d: d["metrics"].update({"mrr": -0.5}), "baseline value metrics.mrr must be a finite number in [0, 1]"),
    (lambda d: d["metrics"].update({"mrr": 5.0}), "baseline value metrics.mrr must be a finite number in [0, 1]"),
])
def test_bad_baselines_are_refused(edit, message: str, baseline: Path, bad_run: Path) -> None:
    data = json.loads(baseline.read_text(encoding="utf-8"))
    edit(data)
    baseline.write_text(json.dumps(data, indent=2), encoding="utf-8")  # json writes NaN/Infinity
    r = invoke("gate", GOLDEN, "--run", str(bad_run), "--baseline", str(baseline))
    assert r.exit_code == 2, r.output
    assert message in r.stderr and "Traceback" not in r.output


def test_a_real_drop_fails_the_gate(baseline: Path, bad_run: Path) -> None:
    r = invoke("gate", GOLDEN, "--run", str(bad_run), "--baseline", str(baseline))
    assert r.exit_code == 1 and "[FAIL] mrr" in r.stdout


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=-10**400, max_value=10**400))
def test_any_number_in_the_rules_is_used_only_when_in_range(value: float, tmp_path: Path) -> None:
    text = repr(value) if isinstance(value, int) else ("nan" if math.isnan(value) else
                                                       "inf" if value == math.inf else
                                                       "-inf" if value == -math.inf else repr(value))
    for key, low_ok, high_ok in (("metrics", 0, 1), ("alpha", 0, 1)):
        config = tmp_path / f"{key}.toml"
        body = f'metrics = {{ "mrr" = {text} }}' if key == "metrics" else f"alpha = {text}"
        config.write_text(f"[gate]\n{body}\n", encoding="utf-8")
        ok = (isinstance(value, int) or math.isfinite(value)) and (
            low_ok <= value <= high_ok if key == "metrics" else 0 < value < 1)
        if ok:
            rules = load_rules(config)
            got = rules.metrics["mrr"] if key == "metrics" else rules.alpha
            assert math.isfinite(got) and got == float(value)
        else:
            with pytest.raises(InputError, match="must be a finite number"):
                load_rules(config)


def test_non_utf8_or_folder_config_is_refused(tmp_path: Path, baseline: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"[gate]\nalpha = 0.05 # \xff\n")
    for config in (bad, tmp_path):
        r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(baseline), "--config", str(config))
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    folder = tmp_path / "dir.json"
    folder.mkdir()
    r = invoke("gate", GOLDEN, "--run", GOOD, "--baseline", str(folder))
    assert r.exit_code == 2 and "found a folder" in r.stderr, r.output


def test_a_metric_removed_from_the_rules_is_a_drop(tmp_path: Path, baseline: Path) -> None:
    config = tmp_path / "ragauge.toml"
    config.write_text('[gate]\nmetrics = ["hit@5", "recall@5", "ndcg@5"]\n', encoding="utf-8")
    args = ["baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(baseline), "--config", str(config),
            "--reason", "drop mrr"]
    r = invoke(*args)
    assert r.exit_code == 2 and "mrr" in r.stderr and "removed from the gated metrics" in r.stderr, r.output
    r = invoke(*args, "--accept-drop")
    assert r.exit_code == 0, r.output
    last = json.loads(baseline.with_name("baseline.history.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["accepted_drops"]["mrr"]["removed"] is True


def test_baseline_and_history_are_one_unit(tmp_path: Path, baseline: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ragauge.gating.baseline as module

    before = baseline.read_bytes()
    history = baseline.with_name("baseline.history.jsonl")
    history_before = history.read_bytes()

    def full(path, line, *, what="output"):
        from ragauge.core.files import write_error

        raise write_error(path, OSError(errno.ENOSPC, "No space left on device"), what)

    monkeypatch.setattr(module, "append_line", full)
    r = invoke("baseline", "update", GOLDEN, "--run", GOOD, "--baseline", str(baseline), "--reason", "again")
    assert r.exit_code == 2 and "No space left on device" in r.stderr and "free some disk space" in r.stderr
    assert baseline.read_bytes() == before and history.read_bytes() == history_before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_significance_needs_the_baselines_per_question_values(tmp_path: Path, baseline: Path, bad_run: Path) -> None:
    from ragauge.gating.baseline import digest

    data = json.loads(baseline.read_text(encoding="utf-8"))  # a baseline of an older ragauge: no per-question values
    for key in ("queries", "digest"):
        del data[key]
    data["rules"] = {"metrics": {"mrr": 0.02}, "significant_only": True}
    data["digest"] = digest(data)  # kept consistent with its history, as that ragauge wrote both
    baseline.write_text(json.dumps(data), encoding="utf-8")
    baseline.with_name(baseline.stem + ".history.jsonl").write_text(
        json.dumps({k: data[k] for k in ("created", "metrics", "digest")}) + "\n", encoding="utf-8")
    config = tmp_path / "ragauge.toml"
    config.write_text('[gate]\nsignificant_only = true\nmetrics = { "mrr" = 0.02 }\n', encoding="utf-8")
    r = invoke("gate", GOLDEN, "--run", str(bad_run), "--baseline", str(baseline), "--config", str(config))
    assert r.exit_code == 1 and "no per-question values" in r.stdout
