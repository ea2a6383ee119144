"""Join the shard files of one sharded run (``ragauge run --shard I/N``) into one run file.

The shards must be one run cut in N: each a ``--shard`` run file of the same whole golden set,
retriever, settings, fetch depth and index fingerprint, each shard 1..N exactly once, no question
twice, and together every question of the golden set. Anything else is an InputError naming the
file, so a merged file is never silently partial.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragauge.data.hits import QueryResult
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.formats.run_lines import jsonl_answers
from ragauge.formats.runs import write_run_jsonl
from ragauge.runner.resume import differences

SHARED = ("retriever", "settings", "fetch", "fingerprint")


def _read(path: str | Path) -> tuple[dict[str, Any], list[QueryResult]]:
    """A shard file's header and answers, as its lines hold them (no columnar Run)."""
    meta: dict[str, Any] = {}
    results = list(jsonl_answers(path, meta))
    return meta, results


def _shard_of(meta: dict[str, Any], path: str) -> dict[str, Any]:
    shard = meta.get("shard")
    if not isinstance(shard, dict) or not {"index", "count", "golden_hash", "golden_questions"} <= set(shard):
        raise InputError("not a shard of a run: its _meta has no 'shard' record", where=path,
                         hint="merge the files written by: ragauge run ... --shard I/N")
    return shard


def merge_shards(paths: Sequence[str | Path], output: str | Path) -> Run:
    """Check the shard files ``paths`` (see the module docstring), write their answers to ``output``
    as the shards hold them (atomically; the header is the first shard's without its ``shard`` and
    ``concurrency``, plus ``merged_from``) and return the merged run as read from them."""
    if not paths:
        raise InputError("no shard files to merge", hint="ragauge run merge SHARD... -o RUN")
    runs = [_read(p) for p in paths]
    shards = [_shard_of(meta, str(p)) for (meta, _), p in zip(runs, paths)]
    first, first_path = runs[0][0], str(paths[0])
    count, golden = shards[0]["count"], shards[0]["golden_hash"]
    seen: dict[int, str] = {}
    owner: dict[str, str] = {}
    results: list[QueryResult] = []
    for (header, answers), shard, path in zip(runs, shards, map(str, paths)):
        if shard["count"] != count or shard["golden_hash"] != golden:
            raise InputError(f"shard {shard['index']}/{shard['count']} of golden set {shard['golden_hash'][:19]}... "
                             f"does not belong with {first_path} (shard of {count}, golden set {golden[:19]}...)",
                             where=path, hint="merge the shards of one sharded run")
        changed = differences({k: first.get(k) for k in SHARED}, {k: header.get(k) for k in SHARED})
        if changed:
            raise InputError(f"made differently from {first_path}: " + "; ".join(changed), where=path,
                             hint="every shard must use the same --retriever, settings, --fetch and index")
        if shard["index"] in seen:
            raise InputError(f"shard {shard['index']}/{count} is also {seen[shard['index']]}", where=path,
                             hint="give each shard once")
        seen[shard["index"]] = path
        for r in answers:
            if r.id in owner:
                raise InputError(f"question {r.id!r} is also in {owner[r.id]}", where=path,
                                 hint="shards of one run never share a question: are these two runs?")
            owner[r.id] = path
            results.append(r)
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise InputError(f"shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing: the merged run would "
                         f"lack their questions", hint="run them with --shard, then merge every shard")
    if len(results) != shards[0]["golden_questions"]:
        raise InputError(f"the shards hold {len(results)} questions, the golden set {shards[0]['golden_questions']}",
                         where=first_path, hint="a shard file is incomplete: continue it with --resume")
    meta = {k: v for k, v in first.items() if k not in ("shard", "golden_hash", "concurrency")}
    meta.update({"golden_hash": golden, "merged_from": [str(p) for p in paths]})
    write_run_jsonl(results, output, meta=meta)  # the shards' lines as read, not through a columnar Run
    return Run.from_results(results, meta=meta, source=str(output))
