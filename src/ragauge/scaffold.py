"""``ragauge init``: the files a project needs for a first gate, never written over existing ones.

Three files, each a working start the user edits: ``ragauge.toml`` (the gate rules, commented),
``eval/golden.jsonl`` (three example questions: plain, graded, no-answer) and a GitHub workflow that
gates every pull request (with the ragauge Action when ``action`` names it, else with ``pip install
ragauge`` and the ``ragauge gate`` command). A file that exists is left as it is and listed as kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DEFAULT_RETRIEVER = "bm25:docs"
"""The retriever the files name until the user gives theirs: the built-in BM25 over a folder of
.md/.txt/.html files called docs (its relative paths are the document ids)."""

GOLDEN = [
    {"id": "q001", "query": "How do I rotate the VPN gateway certificate?",
     "relevant": ["networking/vpn-certificate.md"], "tags": ["networking"]},
    {"id": "q002", "query": "The printer shows error E-301",
     "relevant": {"printers/error-codes.md": 2, "printers/index.md": 1}, "tags": ["hardware"]},
    {"id": "q003", "query": "What is the CEO's shoe size?", "relevant": [], "tags": ["no-answer"]},
]

CONFIG = """\
# ragauge's settings for this project; docs/ci.md in ragauge's documentation explains every key.

[gate]
# metric -> the largest drop below the baseline the gate allows
metrics = {{ "hit@5" = 0.02, "recall@5" = 0.02, "mrr" = 0.02, "ndcg@5" = 0.02 }}
# fail only on drops the golden set can tell from noise (a one-sided betting test at alpha);
# "drop" fails on any drop beyond the allowance, "not_shown_no_worse" asks for evidence of no drop
fail_if = "drop_and_significant"
alpha = 0.05
# questions that must keep a relevant document in the top critical_k, whatever the means do
# critical = ["q001"]
critical_k = 5
# a tag's mean may not fall below a floor
# tag_floors = {{ networking = {{ "recall@5" = 0.8 }} }}

# [retriever]                       # for an http(s):// retriever: headers, body, where the hits are
# headers = {{ Authorization = "Bearer ${{SEARCH_TOKEN}}" }}

# [eval]
# grades = "1:3,2:2,3:1,4:0,-1:0"   # map a golden set's grades whose scale runs the other way

# [mlflow]                          # log every eval, compare and sweep to MLflow (pip install 'ragauge[mlflow]')
# experiment = "retrieval"          # default: MLFLOW_EXPERIMENT_NAME; the store: MLFLOW_TRACKING_URI
"""

WORKFLOW = """\
name: retrieval gate
on: pull_request
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
"""
"""The workflow's start; one of the two gate steps below follows it."""

WORKFLOW_ACTION = """\
      - uses: {action}
        with:
          golden: eval/golden.jsonl
          retriever: {retriever}
          baseline: eval/baseline.json
          config: ragauge.toml
"""

WORKFLOW_PIP = """\
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: python -m pip install ragauge   # not on PyPI yet: until it is, a git URL of ragauge
      - name: Gate retrieval against the reviewed baseline
        run: |
          ragauge gate eval/golden.jsonl --retriever={retriever} --baseline=eval/baseline.json \\
            --format markdown -o gate.md || status=$?
          cat gate.md >> "$GITHUB_STEP_SUMMARY"
          exit ${{status:-0}}
"""


@dataclass(frozen=True)
class InitResult:
    """What ``init_project`` did: the files ``written`` and those ``kept`` (they existed), and the
    next commands to run."""

    written: tuple[Path, ...]
    kept: tuple[Path, ...]
    next_steps: tuple[str, ...]


def init_project(folder: str | Path = ".", *, retriever: str = DEFAULT_RETRIEVER,
                 action: str | None = None) -> InitResult:
    """Write ``ragauge.toml``, ``eval/golden.jsonl`` and ``.github/workflows/ragauge-gate.yml`` in
    ``folder`` (made if missing), each only where no file is (an existing one is kept: never written
    over); ``retriever`` is the spec the workflow and the next steps name; ``action`` (e.g.
    ``OWNER/ragauge@v0.1.0``) makes the workflow use the ragauge Action instead of pip."""
    from ragauge.core.files import atomic_write

    root = Path(folder)
    quoted = json.dumps(retriever)  # one YAML scalar whatever the spec holds
    files = {
        root / "ragauge.toml": CONFIG.format(),
        root / "eval" / "golden.jsonl": "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in GOLDEN),
        root / ".github" / "workflows" / "ragauge-gate.yml":
            WORKFLOW + (WORKFLOW_ACTION.format(action=action, retriever=quoted) if action else
                         WORKFLOW_PIP.format(retriever=_shell_quote(retriever))),
    }
    written, kept = [], []
    for path, text in files.items():
        if path.exists():
            kept.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text, what="file")
        written.append(path)
    golden = root / "eval" / "golden.jsonl"
    spec = _shell_quote(retriever)
    steps = (
        f"edit {golden} with questions your users ask and the documents that answer them",
        f"ragauge eval {golden} --retriever {spec} -k 5",
        f"ragauge baseline update {golden} --retriever {spec} --baseline {root / 'eval' / 'baseline.json'} "
        f"--reason \"first baseline\"",
    )
    return InitResult(tuple(written), tuple(kept), steps)


def _shell_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
