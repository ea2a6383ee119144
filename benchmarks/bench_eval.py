"""Whole-process benchmark: ragauge vs pytrec_eval, ir_measures and ranx.

Every measurement is a fresh subprocess, so interpreter start-up, imports, file parsing,
evaluation and output are all included: what a user pays for one evaluation. Each tool runs
once untimed (warms the OS page cache and any on-disk JIT cache; its time is still shown as
"first"), then ``--repeat`` times, interleaved across tools; the median wall time is reported.
Peak RSS is the child's ru_maxrss, read by ``/usr/bin/time -f '%e %M'`` (or ``os.wait4`` when
that binary is missing).

Measures: map, ndcg_cut.10, recip_rank, P.10, recall.100 (trec_eval names), i.e. ragauge eval's
map, ndcg@10, mrr, precision@10, recall@100, ir_measures' AP, nDCG@10, RR, P@10, R@100.

Environment variables (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE, thread counts, ...) are passed to
the children unchanged and printed with the results.

Usage:
    python benchmarks/generate.py        # once: writes benchmarks/data/
    python benchmarks/bench_eval.py      # ~8 minutes on an idle 2-core machine
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MEASURES = ("map", "ndcg@10", "mrr", "precision@10", "recall@100")
TREC_NAMES = {"map": "map", "ndcg_cut_10": "ndcg@10", "recip_rank": "mrr", "P_10": "precision@10",
              "recall_100": "recall@100"}
CHECKED = ("map", "ndcg@10", "precision@10")  # ragauge must match pytrec_eval on these within TOLERANCE
TOLERANCE = 1e-4
TOOLS = ("ragauge trec-eval", "ragauge eval", "pytrec_eval", "ir_measures", "ranx")
ENV_KEYS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
            "NUMBA_NUM_THREADS", "NUMBA_CACHE_DIR", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE")
TIME_BIN = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
RUNNER_PYTHON: dict[str, str] = {}
"""A competitor run by another interpreter (e.g. ranx from a venv of its own); default: this one."""


@dataclass
class Sample:
    wall: float
    peak_mb: float
    cpu: float  # user + system seconds of the child
    output: dict[str, Any]


@dataclass
class Result:
    tool: str
    scale: str
    first: Sample | None = None
    samples: list[Sample] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def peak_mb(self) -> float:
        return max(s.peak_mb for s in self.samples)

    @property
    def values(self) -> dict[str, float]:
        return dict(self.samples[-1].output["values"])


def ragauge_cmd() -> list[str]:
    script = Path(sys.executable).parent / "ragauge"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragauge"]


def command(tool: str, data: Path, scale: str, tmp: Path, extra: tuple[str, ...] = ()) -> tuple[list[str], Path | None]:
    qrels, run, golden = (str(data / f"{scale}.{k}") for k in ("qrels.txt", "run.trec", "golden.jsonl"))
    if tool == "ragauge trec-eval":
        return [*ragauge_cmd(), "trec-eval", qrels, run, "-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank",
                "-m", "P.10", "-m", "recall.100"], None
    if tool == "ragauge eval":
        out = tmp / f"{scale}.eval.json"
        return [*ragauge_cmd(), "eval", golden, "--run", run, "--metrics", ",".join(MEASURES),
                "--format", "json", "-o", str(out)], out
    return [RUNNER_PYTHON.get(tool, sys.executable), str(HERE / "runners.py"), tool, qrels, run, *extra], None


def parse_output(tool: str, stdout: str, out_file: Path | None) -> dict[str, Any]:
    if tool == "ragauge trec-eval":
        values = {}
        for line in stdout.splitlines():
            name, _, value = line.split()
            if name in TREC_NAMES:
                values[TREC_NAMES[name]] = float(value)
        return {"values": values}
    if tool == "ragauge eval":
        assert out_file is not None
        return {"values": json.loads(out_file.read_text())["summary"]}
    return dict(json.loads(stdout.strip().splitlines()[-1]))


def measure(tool: str, data: Path, scale: str, tmp: Path, env: dict[str, str] | None = None,
            extra: tuple[str, ...] = (), timeout: float = 900) -> Sample:
    cmd, out_file = command(tool, data, scale, tmp, extra)
    if out_file is not None and out_file.exists():
        out_file.unlink()
    wall, peak_mb, cpu, stdout = run_process(cmd, tmp, f"{tool} on {scale}", env, timeout)
    return Sample(wall, peak_mb, cpu, parse_output(tool, stdout, out_file))


def run_process(cmd: list[str], tmp: Path, what: str, env: dict[str, str] | None = None,
                timeout: float = 900) -> tuple[float, float, float, str]:
    """Run ``cmd`` as a fresh process: (wall s, peak RSS MB, user + system cpu s, stdout); exits
    with the command's stderr when it fails."""
    env = {**os.environ, **(env or {})}
    stdout_path, stderr_path, time_path = tmp / "stdout", tmp / "stderr", tmp / "time"
    if TIME_BIN:
        cmd = [TIME_BIN, "-f", "%e %M %U %S", "-o", str(time_path), *cmd]
    with open(stdout_path, "wb") as so, open(stderr_path, "wb") as se:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=so, stderr=se, env=env)
        if TIME_BIN:
            rc = proc.wait(timeout=timeout)
            wall = time.perf_counter() - start
            _, peak, user, system = time_path.read_text().split()[-4:]
            peak_kb, cpu = float(peak), float(user) + float(system)
        else:
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            rc = proc.returncode = os.waitstatus_to_exitcode(status)
            peak_kb = float(usage.ru_maxrss)  # kilobytes on Linux
            cpu = usage.ru_utime + usage.ru_stime
    stdout, stderr = stdout_path.read_text(), stderr_path.read_text()
    if rc != 0:
        raise SystemExit(f"{what} failed (exit {rc}):\n{' '.join(cmd)}\n{stderr[-3000:]}")
    return wall, peak_kb / 1024, cpu, stdout


def machine_facts() -> dict[str, Any]:
    import importlib.metadata as md

    def version(name: str) -> str:
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return "not installed"

    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    nproc = shutil.which("nproc")
    return {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "cpu": cpu or platform.processor(),
        "nproc": (subprocess.run([nproc], capture_output=True, text=True).stdout.strip() if nproc
                  else str(os.cpu_count())),
        "python": platform.python_version(),
        "versions": {p: version(p) for p in ("ragauge", "numpy", "pyarrow", "pytrec-eval-terrier", "ir-measures",
                                             "ranx", "numba")},
        "env": {k: os.environ.get(k, "(unset)") for k in ENV_KEYS},
        "peak_rss_via": "/usr/bin/time -f '%e %M %U %S'" if TIME_BIN else "os.wait4 ru_maxrss",
        "loadavg_at_start": load_average(),
    }


def load_average() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def fmt_ratio(x: float) -> str:
    return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def print_report(results: list[Result], extras: dict[str, dict[str, Any]], facts: dict[str, Any], repeat: int) -> None:
    print(f"\n# ragauge benchmark, {facts['date']}")
    print(f"{facts['cpu']}, nproc={facts['nproc']}, Python {facts['python']}, {facts['platform']}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in facts["versions"].items()))
    print("environment (left as found): " + ", ".join(f"{k}={v}" for k, v in facts["env"].items()))
    print(f"peak RSS via {facts['peak_rss_via']}; wall and cpu = median of {repeat} fresh processes "
          "after 1 untimed run")
    print(f"load average (1/5/15 min) at start: {facts['loadavg_at_start']}, "
          f"at end: {facts.get('loadavg_at_end', '?')}\n")

    print("| tool | scale | median s | min s | first run s | cpu s | peak MB | time / ragauge trec-eval "
          "| time / ragauge eval |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    by = {(r.tool, r.scale): r for r in results}
    for r in results:
        te, ev = by.get(("ragauge trec-eval", r.scale)), by.get(("ragauge eval", r.scale))
        first = f"{r.first.wall:.2f}" if r.first else "-"
        print(f"| {r.tool} | {r.scale} | {r.median:.2f} | {min(s.wall for s in r.samples):.2f} | {first} | "
              f"{r.cpu:.2f} | {r.peak_mb:.0f} | {fmt_ratio(r.median / te.median) if te else '-'} | "
              f"{fmt_ratio(r.median / ev.median) if ev else '-'} |")
    if extras:
        print("\nranx detail (single runs):")
        for scale, e in extras.items():
            if "cold" in e:
                c = e["cold"]
                print(f"- {scale}: empty numba cache (first use ever): {c['wall']:.2f} s whole process, "
                      f"peak {c['peak_mb']:.0f} MB; in-process parse {c['timings']['parse']:.2f} s, "
                      f"first evaluate {c['timings']['evaluate_first']:.2f} s")
            if "warm" in e:
                t = e["warm"]["timings"]
                print(f"- {scale}: in-process, warm cache: parse {t['parse']:.2f} s, first evaluate() "
                      f"{t['evaluate_first']:.3f} s, second evaluate() {t['evaluate_warm']:.3f} s")

    red: list[str] = []
    for scale in dict.fromkeys(r.scale for r in results):
        tools = [r for r in results if r.scale == scale]
        ref = by.get(("pytrec_eval", scale))
        print(f"\nmean values, {scale} (pytrec_eval is the reference; ragauge trec-eval prints 4 decimals):")
        print("| measure | " + " | ".join(r.tool for r in tools) + " | max abs diff vs pytrec_eval |")
        print("|---|" + "---:|" * (len(tools) + 1))
        for m in MEASURES:
            cells = [f"{r.values[m]:.6f}" if m in r.values else "-" for r in tools]
            diffs = {r.tool: abs(r.values[m] - ref.values[m]) for r in tools
                     if ref and m in r.values and m in ref.values}
            worst = max(diffs.items(), key=lambda kv: kv[1]) if diffs else None
            print(f"| {m} | " + " | ".join(cells) + f" | {f'{worst[1]:.1e} ({worst[0]})' if worst else '-'} |")
            if ref and m in CHECKED:
                for r in tools:
                    if r.tool.startswith("ragauge") and m in r.values and diffs[r.tool] > TOLERANCE:
                        red.append(f"RED: {r.tool} {m} on {scale} = {r.values[m]:.6f}, pytrec_eval "
                                   f"{ref.values[m]:.6f} (diff {diffs[r.tool]:.2e} > {TOLERANCE:g})")
    print()
    if red:
        print("\n".join(red))
    else:
        print(f"OK: ragauge (trec-eval and eval) matches pytrec_eval within {TOLERANCE:g} on {', '.join(CHECKED)}.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=HERE / "data", help="folder written by generate.py")
    parser.add_argument("--scales", default="msmarco,golden")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset of: " + ", ".join(TOOLS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-ranx-detail", action="store_true",
                        help="skip the extra ranx runs (empty numba cache; in-process warm timing)")
    parser.add_argument("--json", type=Path, help="also write all measurements here (default: DATA/results.json)")
    args = parser.parse_args(argv)

    scales = [s.strip() for s in args.scales.split(",") if s.strip()]
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    for t in tools:
        if t not in TOOLS:
            parser.error(f"unknown tool {t!r}")
    for s in scales:
        for k in ("qrels.txt", "run.trec", "golden.jsonl"):
            if not (args.data / f"{s}.{k}").is_file():
                parser.error(f"{args.data / f'{s}.{k}'} is missing: run python benchmarks/generate.py first")

    facts = machine_facts()
    results: list[Result] = []
    extras: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="ragauge-bench-") as tmpname:
        tmp = Path(tmpname)
        for scale in scales:
            rows = [Result(t, scale) for t in tools]
            for r in rows:
                r.first = measure(r.tool, args.data, scale, tmp)
                print(f"[{scale}] {r.tool}: first run {r.first.wall:.2f} s", file=sys.stderr, flush=True)
            for i in range(args.repeat):
                for r in rows:
                    r.samples.append(measure(r.tool, args.data, scale, tmp))
                    print(f"[{scale}] {r.tool}: run {i + 1}/{args.repeat} {r.samples[-1].wall:.2f} s, "
                          f"{r.samples[-1].peak_mb:.0f} MB", file=sys.stderr, flush=True)
            results += rows
            if "ranx" in tools and not args.no_ranx_detail:
                with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
                    cold = measure("ranx", args.data, scale, tmp, env={"NUMBA_CACHE_DIR": cache})
                warm = measure("ranx", args.data, scale, tmp, extra=("--warm",))
                extras[scale] = {"cold": {"wall": cold.wall, "peak_mb": cold.peak_mb, **cold.output},
                                 "warm": warm.output}
                print(f"[{scale}] ranx: empty numba cache {cold.wall:.2f} s", file=sys.stderr, flush=True)

    facts["loadavg_at_end"] = load_average()
    print_report(results, extras, facts, args.repeat)
    out = args.json or args.data / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "facts": facts, "repeat": args.repeat,
        "results": [{"tool": r.tool, "scale": r.scale, "median_s": r.median, "cpu_s": r.cpu, "peak_mb": r.peak_mb,
                     "first_s": r.first.wall if r.first else None, "walls_s": [s.wall for s in r.samples],
                     "values": r.values, "timings": [s.output.get("timings") for s in r.samples]} for r in results],
        "ranx_detail": extras,
    }, indent=2))
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
