"""The gate's rule kinds are a registry: each owns its [gate] keys, reads them, checks and says how a
change loosens the gate; the config reader and the gate only walk the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.gating.config import KNOWN, GateRules, load_rules
from ragauge.gating.rules.registry import RULE_KINDS


def test_every_key_has_one_owner() -> None:
    keys = [key for kind in RULE_KINDS for key in kind.keys]
    assert len(keys) == len(set(keys)) and set(keys) == set(KNOWN)
    assert [kind.name for kind in RULE_KINDS] == ["metric", "tag_floor", "critical"]


def test_each_kind_reads_only_its_own_keys(tmp_path: Path) -> None:
    cfg = tmp_path / "ragauge.toml"
    cfg.write_text('[gate]\nmetrics = { "recall@10" = 0.05 }\ntag_floors = { net = { "recall@10" = 0.6 } }\n'
                   'critical = ["q1"]\ncritical_k = 3\nfail_if = "drop_and_significant"\nalpha = 0.1\n',
                   encoding="utf-8")
    rules = load_rules(cfg)
    assert rules == GateRules({"recall@10": 0.05}, {"net": {"recall@10": 0.6}}, ("q1",), 3, "drop_and_significant",
                              0.1, source=str(cfg))
    from ragauge.config import read_table

    table = read_table(cfg, "gate")
    fields = [set(kind.read(table, cfg)) for kind in RULE_KINDS]
    assert fields == [{"metrics", "fail_if", "alpha", "strict_power", "correlation"}, {"tag_floors"},
                      {"critical", "critical_k"}]


def test_a_ceiling_of_calls_raised_loosens_the_gate() -> None:
    stored = GateRules({"calls": 0.5}, {"net": {"calls_to_evidence": 2.0}})
    raised = GateRules({"calls": 0.5}, {"net": {"calls_to_evidence": 3.0}})
    lowered = GateRules({"calls": 0.5}, {"net": {"calls_to_evidence": 1.5}})
    assert raised.loosened_from(stored) == ["tag 'net' ceiling of calls_to_evidence 3.0000 (was 2.0000)"]
    assert lowered.loosened_from(stored) == []
    assert GateRules({"calls": 0.9}).loosened_from(stored) == [
        "calls may rise 0.9000 (was 0.5000)", "tag 'net' ceiling of calls_to_evidence removed"]


def test_a_bad_setting_names_its_line(tmp_path: Path) -> None:
    cfg = tmp_path / "ragauge.toml"
    cfg.write_text('[gate]\nmetrics = { "recall@10" = 0.05 }\ncritical_k = 0\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"ragauge.toml:3.*critical_k"):
        load_rules(cfg)
