"""A scripted multi-hop agent: it decomposes each question of golden.jsonl with fixed patterns (no
LLM), searches the corpus with ragauge's BM25 once per hop, reads the top document to find the next
hop's entity, and logs every call. It writes two runs, deterministically:

- ``agent.run.jsonl``: the agent's trajectories, one multi-call line per question;
- ``oneshot.run.jsonl``: one BM25 call with the whole question, for comparison.

    python examples/multihop/agent.py            # rewrites both runs
    python examples/multihop/agent.py --check    # exit 1 when a committed run differs
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragauge import open_retriever

HERE = Path(__file__).resolve().parent
DEPTH = 5  # hits per call

Search = Callable[[str, str], list[str]]  # (tool, query) -> document ids; the call is logged


def _read(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (HERE / name).read_text(encoding="utf-8").splitlines() if line]


TEXTS = {d["id"]: d["text"] for d in _read("corpus.jsonl")}


def _find(pattern: str, ids: list[str]) -> str | None:
    """The first match of ``pattern``'s group in the texts of ``ids``, best ranked first."""
    for doc in ids:
        m = re.search(pattern, TEXTS[doc])
        if m:
            return m.group(1)
    return None


def founder_city(search: Search, company: str) -> None:
    founder = _find(r"founded in \d+ by ([A-Z]\w+ [A-Z]\w+)", search("search", f"{company} founded by"))
    if founder:
        search("lookup", f"{founder} was born in")


def river(search: Search, company: str) -> None:
    city = _find(r"headquarters are in ([A-Z]\w+)", search("search", f"{company} headquarters"))
    if city:
        search("lookup", f"river flows through {city}")


def product(search: Search, founder: str) -> None:
    ids = search("search", f"founded by {founder}")
    if not _find(r"makes ([^.]+)\.", ids[:1]):
        search("search", f"{founder} company makes")


PLANS: list[tuple[str, Callable[[Search, str], None]]] = [
    (r"In which city was the founder of (.+) born\?", founder_city),
    (r"Which river flows through the city where (.+) has its headquarters\?", river),
    (r"What does the company founded by (.+) make\?", product),
    (r"Who founded (.+)\?", lambda search, company: search("search", f"{company} founded by") and None),
]


def follow_up(question: str, history: list[str], memory: dict[str, str]) -> str:
    """A follow-up turn rewritten with what the conversation found (as a query rewriter would)."""
    if re.match(r"Where was (she|he) born\?", question):
        return f"In which city was the founder of {memory['company']} born?"
    if re.match(r"Which river flows through that town\?", question):
        return f"__city__ {memory['city']}"
    return question


def trajectory(retriever: Any, question: dict[str, Any], memory: dict[str, str]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def search(tool: str, query: str) -> list[str]:
        ids = [h.doc_id for h in retriever.search(query, DEPTH).hits]
        calls.append({"query": query, "hits": ids, "tool": tool})
        return ids

    text = question["query"]
    if "conversation" in question:
        text = follow_up(text, question.get("history", []), memory)
        company = re.match(r"Who founded (.+)\?", question["query"])
        if company:
            memory["company"] = company.group(1)
    if text.startswith("__city__ "):
        search("search", f"river flows through {text.split(' ', 1)[1]}")
        return calls
    for pattern, plan in PLANS:
        m = re.match(pattern, text)
        if m:
            plan(search, m.group(1))
            break
    else:
        search("search", text)
    if "conversation" in question:  # remember the birthplace for the next turn
        city = _find(r"was born in ([A-Z]\w+)", [h for c in calls for h in c["hits"]])
        if city:
            memory["city"] = city
    return calls


def runs() -> dict[str, str]:
    golden = _read("golden.jsonl")
    retriever = open_retriever(f"bm25:{HERE / 'corpus.jsonl'}")
    try:
        memory: dict[str, str] = {}
        agent = [{"id": q["id"], "calls": trajectory(retriever, q, memory)} for q in golden]
        oneshot = [{"id": q["id"], "hits": [h.doc_id for h in retriever.search(q["query"], DEPTH * 2).hits]}
                   for q in golden]
    finally:
        retriever.close()
    meta = {"_meta": {"retriever": "scripted agent over bm25:examples/multihop/corpus.jsonl"}}
    one = {"_meta": {"retriever": "bm25:examples/multihop/corpus.jsonl"}}
    return {"agent.run.jsonl": "".join(json.dumps(x) + "\n" for x in [meta, *agent]),
            "oneshot.run.jsonl": "".join(json.dumps(x) + "\n" for x in [one, *oneshot])}


def main(argv: list[str]) -> int:
    made = runs()
    if "--check" in argv:
        stale = [name for name, text in made.items() if (HERE / name).read_text(encoding="utf-8") != text]
        for name in stale:
            print(f"stale: {name} (run python examples/multihop/agent.py)", file=sys.stderr)
        return 1 if stale else 0
    for name, text in made.items():
        (HERE / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
