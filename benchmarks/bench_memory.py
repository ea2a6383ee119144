"""Peak memory and wall time of ``ragauge trec-eval`` and ``ragauge eval`` on large runs, with the
run read block by block (the default above ``formats.blocks.STREAM_BYTES``) and read whole.

Every measurement is a fresh subprocess timed by ``/usr/bin/time -f '%e %M'`` (wall seconds, peak
RSS); the runs of each case are interleaved and the median is shown. ``--modes whole`` runs the
same command with streaming switched off (the threshold raised above the file's size), which is
how ragauge read every run before: memory then grows with the run.

Usage:
    python benchmarks/generate.py --out /tmp/bench --scales msmarco               # 7M hits, 0.3 GB
    python benchmarks/generate.py --out /tmp/bench --scales msmarco --repeat 30   # 210M hits, 9 GB
    python benchmarks/bench_memory.py --data /tmp/bench --scales msmarco,msmarcox30
    python benchmarks/bench_memory.py --data /tmp/bench --scales msmarco --jsonl  # also a JSONL run

``--jsonl`` writes ``<scale>.run.jsonl`` (the TREC run as ragauge's JSONL run format) beside the
data once. ``--before DIR`` adds the mode ``before``: the ragauge sources in DIR (say, ``src/`` of a
checkout of an older commit), interleaved with the others. Delete the generated files when done:
they are large.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIME_BIN = "/usr/bin/time"
TREC_MEASURES = ("-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "P.10", "-m", "recall.100")
EVAL_METRICS = "map,ndcg@10,mrr,precision@10,recall@100"
NEVER = str(1 << 62)  # a streaming threshold no file reaches: the run is read whole


def cases(data: Path, scale: str, jsonl: bool, out: Path) -> dict[str, list[str]]:
    run, qrels, golden = (data / f"{scale}.{k}" for k in ("run.trec", "qrels.txt", "golden.jsonl"))
    found = {
        "trec-eval": ["trec-eval", str(qrels), str(run), *TREC_MEASURES],
        "eval (TREC run)": ["eval", str(golden), "--run", str(run), "--metrics", EVAL_METRICS, "--format", "json",
                            "-o", str(out / "result.json")],
    }
    if jsonl:
        found["eval (JSONL run)"] = ["eval", str(golden), "--run", str(data / f"{scale}.run.jsonl"), "--metrics",
                                    EVAL_METRICS, "--format", "json", "-o", str(out / "result.json")]
    return found


def write_jsonl(data: Path, scale: str) -> None:
    """The TREC run as a JSONL run, written block by block (once)."""
    target = data / f"{scale}.run.jsonl"
    if target.exists():
        return
    from ragauge.formats.runs import RunStream

    with open(target.with_suffix(".tmp"), "w", encoding="utf-8") as fh:
        for run in RunStream(data / f"{scale}.run.trec", "trec").blocks():
            for result in run.results():
                hits = [{"doc_id": h.doc_id, "score": h.score} for h in result.hits]
                fh.write(json.dumps({"id": result.id, "hits": hits}) + "\n")
    target.with_suffix(".tmp").rename(target)


def measure(args: list[str], mode: str, before: Path | None) -> tuple[float, float, float]:
    """(wall seconds, peak MB, cpu seconds) of one whole process."""
    env = dict(os.environ)
    if mode == "before" and before is not None:
        env["PYTHONPATH"] = str(before)
    cmd = [TIME_BIN, "-f", "%e %M %U %S", sys.executable, __file__, "--cli", NEVER if mode == "whole" else "", "--",
           *args]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"failed ({mode}): {' '.join(args)}\n{done.stderr[-2000:]}")
    wall, kb, user, system = done.stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb) / 1024, float(user) + float(system)


def cli(threshold: str, args: list[str]) -> None:
    """Run the ragauge CLI in this process, with the streaming threshold set when given."""
    if threshold:
        from ragauge.formats import blocks

        blocks.STREAM_BYTES = int(threshold)  # a knob of the library: read every run whole
    from ragauge.cli.main import cli as ragauge

    ragauge(args)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--cli"]:
        cli(argv[1], argv[3:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=HERE / "data", help="folder of generate.py's files")
    parser.add_argument("--scales", default="msmarco", help="comma-separated file prefixes, e.g. msmarco,msmarcox30")
    parser.add_argument("--modes", default="stream,whole",
                        help="comma-separated: stream (the default reading), whole (streaming off), before")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (median shown)")
    parser.add_argument("--jsonl", action="store_true", help="also evaluate the run as a JSONL run")
    parser.add_argument("--before", type=Path, help="mode 'before' runs the ragauge sources in this folder")
    parser.add_argument("--out", type=Path, help="write the measurements as JSON here")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scale in [s.strip() for s in args.scales.split(",") if s.strip()]:
            if args.jsonl:
                write_jsonl(args.data, scale)
            size = (args.data / f"{scale}.run.trec").stat().st_size / 2**30
            for case, command in cases(args.data, scale, args.jsonl, Path(tmp)).items():
                samples: dict[str, list[tuple[float, float, float]]] = {m: [] for m in modes}
                for _ in range(args.repeat):
                    for mode in modes:  # interleaved, so that load on the machine hits every mode alike
                        samples[mode].append(measure(command, mode, args.before))
                for mode in modes:
                    walls, peaks, cpus = ([s[i] for s in samples[mode]] for i in range(3))
                    rows.append({"scale": scale, "run_gb": round(size, 2), "case": case, "mode": mode,
                                 "median_s": statistics.median(walls), "min_s": min(walls),
                                 "median_cpu_s": statistics.median(cpus), "peak_mb": max(peaks), "walls": walls,
                                 "cpus": cpus, "peaks_mb": peaks})
                    print(f"{scale:<12} {size:5.2f} GB  {case:<17} {mode:<6} median {statistics.median(walls):7.2f} s "
                          f" min {min(walls):7.2f} s  cpu {statistics.median(cpus):7.2f} s  peak {max(peaks):7.0f} MB",
                          flush=True)
    print(f"\nload average at the end: {os.getloadavg()}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
