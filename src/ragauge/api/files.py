"""Reading and writing the files ragauge works on: golden sets, runs, pools, judgements, BEIR."""

from __future__ import annotations

from ragauge.formats.beir import import_beir as import_beir
from ragauge.formats.golden import as_golden as as_golden
from ragauge.formats.golden import load_golden as load_golden
from ragauge.formats.golden import write_golden as write_golden
from ragauge.formats.judgements import read_judgements as read_judgements
from ragauge.formats.pool import read_pool as read_pool
from ragauge.formats.pool import write_pool as write_pool
from ragauge.formats.runs import as_run as as_run
from ragauge.formats.runs import read_run as read_run
from ragauge.formats.runs import write_run_jsonl as write_run_jsonl

__all__ = ["as_golden", "as_run", "import_beir", "load_golden", "read_judgements", "read_pool", "read_run",
           "write_golden", "write_pool", "write_run_jsonl"]
