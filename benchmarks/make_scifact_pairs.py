"""Per-question metric values of ragauge's built-in retrievers on all of SciFact, under several settings.

Writes ``tests/fixtures/scifact_pairs/values.json.gz``: real paired data (the same 1,109 claims
scored under close BM25 configurations, and under three clearly different ones: the dense
retriever and two hybrids with the dependency-free ``hash`` embedder) for the statistics
simulations (coverage and type-I error of paired comparisons between close configurations, power
against clearly different ones). See ``tests/fixtures/scifact_pairs/README.md``.

Steps, all through the ragauge CLI:

1. ``ragauge golden import-beir FOLDER --split train`` and ``--split test`` into a temporary
   folder, joined into one golden set (the two splits' ids are distinct in BEIR's SciFact; should
   they ever clash, every id is prefixed with its split);
2. ``ragauge eval GOLDEN --retriever 'KIND:FOLDER/corpus.jsonl?...' --fetch 100 --metrics ...
   --on-error fail --format json`` once per configuration (``KIND`` is ``bm25``, ``dense`` or
   ``hybrid``), one after another;
3. the per-question values, in numeric id order, rounded to 6 decimals, gzipped (``mtime=0``, so
   the same values give the same bytes).

Usage (from the repository root; FOLDER is a BEIR ``scifact`` folder with ``corpus.jsonl``,
``queries.jsonl`` and ``qrels/{train,test}.tsv``; default ``../shared/data/scifact``)::

    python benchmarks/make_scifact_pairs.py [FOLDER] [-o tests/fixtures/scifact_pairs/values.json.gz]

The BM25 indexes and the hash embeddings are cached under ``$RAGAUGE_CACHE`` (default
``~/.cache/ragauge``); each configuration takes well under a minute on 2 cores when its index has
to be built (about 45 s in all with an empty cache).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FOLDER = ROOT.parent / "shared" / "data" / "scifact"
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "scifact_pairs" / "values.json.gz"

# name -> (retriever kind, query string of its spec). bm25 with an empty query: the defaults k1=1.5,
# b=0.75, English Snowball stemming, English stop words, title + text, whole documents. The last
# three differ clearly from the default (nDCG@10 -0.06 to -0.27): the dense retriever with the
# dependency-free lexical hash embedder (no model to download), and bm25 + that dense side fused
# by reciprocal rank or by weighted min-max scores.
CONFIGS = {
    "default": ("bm25", ""),
    "k1=1.2,b=0.75": ("bm25", "k1=1.2&b=0.75"),
    "k1=0.9,b=0.4": ("bm25", "k1=0.9&b=0.4"),
    "k1=0.6,b=0.3": ("bm25", "k1=0.6&b=0.3"),
    "chunk100": ("bm25", "chunk_size=100"),
    "chunk200_overlap50": ("bm25", "chunk_size=200&chunk_overlap=50"),
    "no_stemming": ("bm25", "stemmer=none"),
    "dense_hash": ("dense", "embedder=hash"),
    "hybrid_hash_rrf": ("hybrid", "embedder=hash"),
    "hybrid_hash_weighted": ("hybrid", "embedder=hash&fusion=weighted&weight=0.5"),
}
METRICS = ["hit@5", "hit@10", "recall@5", "recall@10", "mrr@10", "ndcg@5", "ndcg@10"]
FETCH = 100  # hits asked for: enough that chunked configurations still fill the top 10 documents
SPLITS = ["train", "test"]

SOURCE = (
    "Claims and relevance judgements: SciFact (Wadden et al., EMNLP 2020, 'Fact or Fiction: "
    "Verifying Scientific Claims', https://github.com/allenai/scifact; claims and judgements "
    "CC BY 4.0, abstracts from S2ORC under ODC-By 1.0), as distributed by BEIR v1.0.0 "
    "(Thakur et al., NeurIPS 2021 Datasets and Benchmarks, arXiv:2104.08663), train and test "
    "qrels. Values computed by ragauge's built-in BM25 (bm25s), dense retriever (hash embedder) "
    "and hybrid retriever over the 5,183 SciFact abstracts and scored by 'ragauge eval'; "
    "benchmarks/make_scifact_pairs.py regenerates them."
)


def ragauge(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "ragauge", *args], check=True)


def make_golden(folder: Path, tmp: Path) -> tuple[Path, dict[str, str]]:
    """Import both splits and join them; returns the golden file and each question's split."""
    rows: dict[str, list[dict]] = {}
    for split in SPLITS:
        out = tmp / f"{split}.jsonl"
        ragauge("golden", "import-beir", str(folder), "--split", split, "-o", str(out))
        rows[split] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = [r["id"] for split in SPLITS for r in rows[split]]
    clash = len(ids) != len(set(ids))
    split_of: dict[str, str] = {}
    golden = tmp / "golden.jsonl"
    with golden.open("w", encoding="utf-8") as f:
        for split in SPLITS:
            for r in rows[split]:
                if clash:
                    r["id"] = f"{split}-{r['id']}"
                r.setdefault("split", split)
                split_of[r["id"]] = split
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return golden, split_of


def drop_corpus(settings: dict) -> dict:
    """``settings`` without its ``corpus`` paths (a hybrid's sides nest their own)."""
    return {k: drop_corpus(v) if isinstance(v, dict) else v for k, v in settings.items() if k != "corpus"}


def spec_of(kind: str, query: str, corpus: str) -> str:
    return f"{kind}:{corpus}" + (f"?{query}" if query else "")


def id_key(qid: str) -> tuple:
    tail = qid.rsplit("-", 1)[-1]
    return (0, int(tail), qid) if tail.isdigit() else (1, 0, qid)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER,
                    help="BEIR scifact folder (default: ../shared/data/scifact from the repo root)")
    ap.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    folder = args.folder.resolve()
    corpus = folder / "corpus.jsonl"
    if not corpus.exists():
        corpus = folder / "corpus.jsonl.gz"
    for need in (corpus, folder / "queries.jsonl", *(folder / "qrels" / f"{s}.tsv" for s in SPLITS)):
        if not need.exists():
            sys.exit(f"missing {need}")

    values: dict[str, dict[str, list[float]]] = {}
    settings: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="scifact_pairs_") as t:
        tmp = Path(t)
        golden, split_of = make_golden(folder, tmp)
        ids = sorted(split_of, key=id_key)
        fingerprints = set()
        for name, (kind, query) in CONFIGS.items():
            spec = spec_of(kind, query, str(corpus))
            out = tmp / f"{len(values)}.json"
            print(f"[{name}] {spec}", file=sys.stderr, flush=True)
            ragauge("eval", str(golden), "--retriever", spec, "--fetch", str(FETCH),
                    "--metrics", ",".join(METRICS), "--on-error", "fail",
                    "--format", "json", "-o", str(out))
            result = json.loads(out.read_text(encoding="utf-8"))
            counts = result["meta"]["counts"]
            if counts["questions"] != len(ids) or counts["errors"] or counts["missing"] or counts["no_answer"]:
                sys.exit(f"{name}: unexpected counts {counts}")
            per_q = {q["id"]: q for q in result["queries"]}
            if set(per_q) != set(ids):
                sys.exit(f"{name}: the result's questions differ from the golden set's")
            values[name] = {m: [round(float(per_q[i][m]), 6) for i in ids] for m in METRICS}
            settings[name] = drop_corpus(result["meta"]["run"]["meta"]["settings"])
            fingerprints.add(result["meta"]["run"]["meta"]["fingerprint"])
            if len(fingerprints) != 1:
                sys.exit(f"{name}: the corpus fingerprint differs from the other configurations'")
            means = "  ".join(f"{m} {statistics.fmean(values[name][m]):.4f}" for m in METRICS)
            print(f"[{name}] {means}", file=sys.stderr, flush=True)

    doc = {
        "source": SOURCE,
        "configs": {name: spec_of(kind, q, "CORPUS") for name, (kind, q) in CONFIGS.items()},
        "settings": settings,
        "eval": {"fetch": FETCH, "unjudged": "non-relevant",
                 "ragauge_version": result["meta"]["ragauge_version"],
                 "corpus_sha256": result["meta"]["run"]["meta"]["fingerprint"].removeprefix("sha256:")},
        "metrics": METRICS,
        "ids": ids,
        "splits": [split_of[i] for i in ids],
        "values": values,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    with open(args.output, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    print(f"wrote {len(ids)} questions x {len(CONFIGS)} configs x {len(METRICS)} metrics "
          f"to {args.output} ({args.output.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
