"""An output that is also an input is refused (exit 2), by inode: the command would replace what it
reads (``golden import ragas t.jsonl -o t.jsonl`` replaced its own input and exited 0)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.core.files import same_file


def invoke(*args: object) -> object:
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_same_file_follows_links_and_spellings(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    a.write_text("x")
    os.link(a, tmp_path / "hard.jsonl")
    (tmp_path / "soft.jsonl").symlink_to(a)
    assert same_file(a, tmp_path / "hard.jsonl") and same_file(a, tmp_path / "soft.jsonl")
    assert same_file(a, tmp_path / "." / "a.jsonl") and not same_file(a, tmp_path / "b.jsonl")


def test_import_scrub_and_run_refuse_to_write_over_their_input(tmp_path: Path) -> None:
    ragas = tmp_path / "t.jsonl"
    ragas.write_text(json.dumps({"user_input": "How do I reset?", "reference_contexts": ["Reset it."]}) + "\n")
    before = ragas.read_bytes()
    r = invoke("golden", "import", "ragas", ragas, "-o", ragas)
    assert r.exit_code == 2 and "also an input" in r.stderr and "Traceback" not in r.output
    assert ragas.read_bytes() == before
    golden = tmp_path / "g.jsonl"
    golden.write_text(json.dumps({"id": "q1", "query": "mail a@b.com", "relevant": ["d"]}) + "\n")
    link = tmp_path / "same.jsonl"
    os.link(golden, link)
    r = invoke("golden", "scrub", golden, "-o", link)
    assert r.exit_code == 2 and "also an input" in r.stderr and "a@b.com" in golden.read_text()
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"_id": "d", "text": "reset"}) + "\n")
    r = invoke("run", golden, "--retriever", f"bm25:{corpus}", "-o", golden)
    assert r.exit_code == 2 and "also an input" in r.stderr
    assert json.loads(golden.read_text())["id"] == "q1"
