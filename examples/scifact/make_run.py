#!/usr/bin/env python3
"""Build bm25.run.jsonl: a BM25 run (bm25s) over the SciFact corpus for the 300 golden questions.

Requires:  pip install bm25s PyStemmer
Usage:     python examples/scifact/make_run.py      (from any directory)
           python examples/scifact/make_run.py --no-stem   (writes bm25-nostem.run.jsonl: the
           same BM25 without stemming, the "changed tokenization" run the compare example uses)

Reads corpus.jsonl.gz and golden.jsonl next to this script and writes bm25.run.jsonl there,
in ragauge's run format: a first line {"_meta": {...}}, then one line per question
{"id": ..., "hits": [{"doc_id": ..., "score": ...}, ...], "latency_ms": ...}.

The output is deterministic except for "latency_ms" and "created":
  * scores are rounded to SCORE_DECIMALS decimals, and documents are ranked by rounded score;
  * equal scores are ordered as trec_eval orders them (doc id descending, compared as
    strings), so ragauge, trec_eval and pytrec_eval all see the same ranking;
  * documents that share no term with the question (score 0) are left out, as a search
    engine would, so a question can have fewer than TOP_K hits.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus.jsonl.gz"
GOLDEN = HERE / "golden.jsonl"
OUTPUT = HERE / "bm25.run.jsonl"

TOP_K = 100
SCORE_DECIMALS = 4
K1, B, METHOD = 1.5, 0.75, "lucene"  # bm25s defaults
STOPWORDS = "en"  # bm25s's English stop-word list (NLTK's)
STEMMER = "english"  # PyStemmer's Snowball English stemmer


def read_jsonl(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main() -> None:
    stem = "--no-stem" not in sys.argv[1:]
    output = OUTPUT if stem else HERE / "bm25-nostem.run.jsonl"
    docs = read_jsonl(CORPUS)
    questions = read_jsonl(GOLDEN)
    doc_ids = [d["_id"] for d in docs]

    # Index title and abstract together as one field.
    stemmer = Stemmer.Stemmer(STEMMER) if stem else None
    texts = [f"{d['title']} {d['text']}" for d in docs]
    retriever = bm25s.BM25(k1=K1, b=B, method=METHOD)
    retriever.index(bm25s.tokenize(texts, stopwords=STOPWORDS, stemmer=stemmer, show_progress=False),
                    show_progress=False)

    # Document positions in trec_eval's tie order (doc id descending); used to break score ties.
    tie_order = np.array(sorted(range(len(doc_ids)), key=doc_ids.__getitem__, reverse=True))

    def search(query: str) -> list[dict]:
        tokens = bm25s.tokenize([query], stopwords=STOPWORDS, stemmer=stemmer,
                                return_ids=False, show_progress=False)[0]
        token_ids = retriever.get_tokens_ids(tokens)  # drops terms absent from the corpus
        scores = retriever.get_scores_from_ids(token_ids) if token_ids else np.zeros(len(doc_ids))
        scores = np.round(scores.astype(np.float64), SCORE_DECIMALS)
        ranked = tie_order[np.argsort(-scores[tie_order], kind="stable")[:TOP_K]]
        return [{"doc_id": doc_ids[i], "score": float(scores[i])} for i in ranked if scores[i] > 0]

    search(questions[0]["query"])  # warm-up (first-call setup), not timed

    lines = []
    for q in questions:
        start = time.perf_counter()
        hits = search(q["query"])
        elapsed_ms = (time.perf_counter() - start) * 1000
        lines.append({"id": q["id"], "hits": hits, "latency_ms": round(elapsed_ms, 3)})

    meta = {
        "retriever": f"bm25s {METHOD} BM25 (k1={K1}, b={B}), "
                     f"{'PyStemmer ' + STEMMER if stem else 'no stemming'}, English stop words, title + text",
        "settings": {
            "method": METHOD, "k1": K1, "b": B,
            "tokenizer": "bm25s.tokenize: lowercase, token pattern (?u)\\b\\w\\w+\\b",
            "stopwords": STOPWORDS, "stemmer": f"PyStemmer {STEMMER}" if stem else None,
            "fields": "title + ' ' + text",
            "top_k": TOP_K, "score_decimals": SCORE_DECIMALS,
            "ties": "doc_id descending (trec_eval order)",
            "zero_score_hits": "omitted",
            "latency": "per question: tokenize + score + rank, single thread, wall clock, after one untimed warm-up query",
        },
        "bm25s_version": version("bm25s"),
        "pystemmer_version": version("PyStemmer"),
        "corpus": {"file": CORPUS.name, "documents": len(docs)},
        "golden": {"file": GOLDEN.name, "questions": len(questions)},
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    with open(output, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"_meta": meta}) + "\n")
        for line in lines:
            fh.write(json.dumps(line) + "\n")
    print(f"wrote {len(lines)} questions, {sum(len(x['hits']) for x in lines)} hits to {output}")


if __name__ == "__main__":
    main()
