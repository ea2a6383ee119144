"""A small judging setup for the tests: a golden set, a corpus, runs and the pool made from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GOLDEN = [
    {"id": "q1", "query": "reset the VPN password", "relevant": ["kb-vpn"], "tags": ["net"]},
    {"id": "q2", "query": "printer E-301 paper jam", "relevant": {"kb-printer": 2, "kb-old": 0}},
    {"id": "q3", "query": "no candidate here", "relevant": ["kb-wifi"]},
]
CORPUS = [
    {"id": "kb-vpn", "title": "VPN", "text": "Reset the VPN password in the portal."},
    {"id": "kb-vpn2", "title": "VPN passwords", "text": "Passwords for the VPN expire every 90 days."},
    {"id": "kb-portal", "title": "Self-service portal", "text": "The portal resets passwords. " * 60},
    {"id": "kb-printer", "title": "Printer", "text": "E-301 means a paper feed jam."},
    {"id": "kb-jam", "title": "Paper jams", "text": "Open tray 2 and remove the jammed paper."},
    {"id": "kb-wifi", "title": "Wi-Fi", "text": "Join the office network."},
]
RUN_A = {"q1": ["kb-vpn", "kb-vpn2", "kb-portal"], "q2": ["kb-jam", "kb-printer"], "q3": ["kb-wifi"]}
RUN_B = {"q1": ["kb-vpn2", "kb-vpn"], "q2": ["kb-printer", "kb-ghost"], "q3": ["kb-wifi"]}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def make(tmp_path: Path, golden: list[dict[str, Any]] | None = None,
         runs: dict[str, Any] | None = None) -> dict[str, Path]:
    """Files for a judging session: golden, corpus, pool (two runs at depth 3); q1 has candidates
    kb-vpn2 and kb-portal, q2 kb-jam and kb-ghost (not in the corpus), q3 none."""
    import ragauge

    paths = {"golden": write_jsonl(tmp_path / "golden.jsonl", golden or GOLDEN),
             "corpus": write_jsonl(tmp_path / "corpus.jsonl", CORPUS)}
    ragauge.pool_golden(paths["golden"], runs=runs or {"a": RUN_A, "b": RUN_B}, depth=3, output=tmp_path / "pool.jsonl")
    paths["pool"] = tmp_path / "pool.jsonl"
    paths["log"] = tmp_path / "pool.judgements.jsonl"
    return paths


def make_verdict(tmp_path: Path) -> dict[str, Path]:
    """Files for judging a pool made for a verdict: new ("b") finds each question's relevant document at
    rank 1 where base ("a") has it at rank 3. Questions s0 and s1 come first: both runs return the same
    list there, with two unjudged documents each, whose labels cannot move the verdict. Questions v0-v7
    hold base's first two documents unjudged (relevant, they would make base better there); v8-v19 are
    judged throughout. Every unjudged document is in truth not relevant: judging a few of v0-v7's makes
    "better" certain."""
    import ragauge

    golden: list[dict[str, Any]] = []
    a: dict[str, list[str]] = {}
    b: dict[str, list[str]] = {}
    corpus: list[dict[str, Any]] = []
    for i in range(2):
        qid = f"s{i}"
        a[qid] = b[qid] = [f"{qid}-r", f"{qid}-u1", f"{qid}-u2"]
        golden.append({"id": qid, "query": f"same lists {i}", "relevant": [f"{qid}-r"]})
    for i in range(20):
        qid = f"v{i}"
        x, y, r, z = f"{qid}-x", f"{qid}-y", f"{qid}-r", f"{qid}-z"
        a[qid], b[qid] = [x, y, r], [r, z]
        labels: dict[str, float] = {r: 1, z: 0} if i < 8 else {r: 1, z: 0, x: 0, y: 0}
        golden.append({"id": qid, "query": f"question {i}", "relevant": labels})
    for ranking in (*a.values(), *b.values()):
        for d in ranking:
            corpus.append({"id": d, "title": d, "text": f"the text of {d}"})
    unique = list({c["id"]: c for c in corpus}.values())
    paths = {"golden": write_jsonl(tmp_path / "golden.jsonl", golden),
             "corpus": write_jsonl(tmp_path / "corpus.jsonl", unique),
             "a": write_jsonl(tmp_path / "a.jsonl", [{"id": q, "hits": [{"doc_id": d} for d in r]}
                                                     for q, r in a.items()]),
             "b": write_jsonl(tmp_path / "b.jsonl", [{"id": q, "hits": [{"doc_id": d} for d in r]}
                                                     for q, r in b.items()]),
             "pool": tmp_path / "pool.jsonl", "log": tmp_path / "pool.judgements.jsonl"}
    ragauge.pool_golden(paths["golden"], for_verdict=[str(paths["a"]), str(paths["b"])], depth=3,
                        verdict_metric="ndcg@3", output=paths["pool"])
    return paths
