from __future__ import annotations

from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.formats.beir import import_beir


def make_beir(tmp_path: Path) -> Path:
    (tmp_path / "qrels").mkdir()
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "1", "text": "first", "metadata": {}}\n{"_id": "2", "text": "second"}\n{"_id": "3", "text": "train"}\n'
    )
    (tmp_path / "qrels" / "test.tsv").write_bytes(b"query-id\tcorpus-id\tscore\r\n1\td1\t1\r\n1\td2\t1\r\n2\td3\t2\r\n")
    return tmp_path


def test_import_keeps_judged_queries_of_the_split(tmp_path: Path) -> None:
    golden = import_beir(make_beir(tmp_path), "test")
    assert [(q.id, q.query, dict(q.relevant)) for q in golden] == [
        ("1", "first", {"d1": 1, "d2": 1}), ("2", "second", {"d3": 2})]


def test_missing_split(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="BEIR qrels file not found"):
        import_beir(make_beir(tmp_path), "dev")
