"""Issue 17's speed table in one command: every row beside its peer, in the same run.

Every figure is a fresh whole process (interpreter start-up, imports, reading, work, writing),
timed as bench_eval.py times it: each command once untimed (warms the page cache and ranx's numba
cache), then ``--repeat`` times interleaved with its peers; the median wall time, the median
user + system CPU time, and the peak RSS (``/usr/bin/time -f %M``).

Rows (``--rows``, comma-separated; default: all but dense):
  trec-eval  ragauge trec-eval vs pytrec_eval vs ranx, 6,980 x 1,000 TREC run (MS MARCO dev scale)
  eval       ragauge eval --format json -o FILE on the same run vs pytrec_eval (same interleaved runs)
  memory     peak RSS of those runs (the 7M-hit run)
  golden     ragauge eval vs pytrec_eval vs a bare pure-Python script, 500 x 20 (golden-set scale)
  http       ragauge run against a loopback HTTP retriever answering at once: calls/s
  slow       ragauge run against a 50 ms retriever: 640 at concurrency 32, 3,200 at 64, vs the ideal
  dense      dense: embedding of SciFact's 5,183 abstracts with an empty cache (minutes; one run)

Usage:
    python benchmarks/generate.py                      # once: writes benchmarks/data/
    python benchmarks/speed_table.py                   # ~10 min on an idle 2-core machine
    python benchmarks/speed_table.py --rows golden,http,slow --repeat 5
    python benchmarks/speed_table.py --ranx-python /path/to/venv-with-ranx/bin/python
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import bench_eval
from bench_eval import HERE, Result, load_average, machine_facts, measure, print_report, ragauge_cmd, run_process
from bench_executor import serve

ROOT = HERE.parent
ROWS = ("trec-eval", "eval", "memory", "golden", "http", "slow", "dense")
DEFAULT_ROWS = tuple(r for r in ROWS if r != "dense")
SLOW = 0.050
RUNS = {  # name: (questions, concurrency, retriever sleep s)
    "immediate, 640 questions, concurrency 32": (640, 32, 0.0),
    "50 ms, 640 questions, concurrency 32": (640, 32, SLOW),
    "50 ms, 3,200 questions, concurrency 64": (3200, 64, SLOW),
}


@dataclass
class Timed:
    """Repeated whole-process timings of one command."""

    name: str
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)

    def add(self, wall: float, peak: float, cpu: float) -> None:
        self.walls.append(wall)
        self.peaks.append(peak)
        self.cpus.append(cpu)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    @property
    def peak(self) -> float:
        return max(self.peaks)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def evaluations(tools: list[str], scale: str, data: Path, tmp: Path, repeat: int) -> list[Result]:
    """bench_eval's measurement: one untimed run per tool, then ``repeat`` interleaved rounds."""
    rows = [Result(t, scale) for t in tools]
    for r in rows:
        r.first = measure(r.tool, data, scale, tmp)
        progress(f"[{scale}] {r.tool}: first run {r.first.wall:.2f} s")
    for i in range(repeat):
        for r in rows:
            r.samples.append(measure(r.tool, data, scale, tmp))
            progress(f"[{scale}] {r.tool}: run {i + 1}/{repeat} {r.samples[-1].wall:.2f} s, "
                     f"{r.samples[-1].peak_mb:.0f} MB")
    return rows


def start_server(sleep: float) -> tuple[str, mp.Process]:
    parent, child = mp.Pipe()
    proc = mp.get_context("fork").Process(target=serve, args=(child, sleep), daemon=True)
    proc.start()
    return f"http://127.0.0.1:{parent.recv()}/search", proc


def golden_file(path: Path, n: int) -> Path:
    with open(path, "w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"q{i}", "query": f"question {i}", "relevant": {"d0": 1}}) + "\n")
    return path


def runs(tmp: Path, repeat: int, which: dict[str, tuple[int, int, float]]) -> dict[str, Timed]:
    """``ragauge run`` against loopback retrievers (asyncio servers in their own processes, so the
    server is not the bottleneck), each configuration once untimed, then interleaved."""
    servers = {sleep: start_server(sleep) for sleep in {s for _, _, s in which.values()}}
    out = {name: Timed(name) for name in which}
    try:
        def once(name: str) -> tuple[float, float, float]:
            n, concurrency, sleep = which[name]
            golden = golden_file(tmp / f"golden-{n}.jsonl", n)
            target = tmp / "run.jsonl"
            target.unlink(missing_ok=True)
            cmd = [*ragauge_cmd(), "run", str(golden), "--retriever", servers[sleep][0], "--concurrency",
                   str(concurrency), "-o", str(target)]
            wall, peak, cpu, _ = run_process(cmd, tmp, f"ragauge run ({name})")
            lines = sum(1 for line in open(target) if '"hits"' in line)
            if lines != n:
                raise SystemExit(f"ragauge run ({name}) wrote {lines} answers for {n} questions")
            return wall, peak, cpu

        for name in which:
            progress(f"[run] {name}: first run {once(name)[0]:.2f} s")
        for i in range(repeat):
            for name in which:
                out[name].add(*once(name))
                progress(f"[run] {name}: run {i + 1}/{repeat} {out[name].walls[-1]:.2f} s")
    finally:
        for _, proc in servers.values():
            proc.terminate()
    return out


def dense(tmp: Path) -> Timed:
    """SciFact's 300 questions through dense: with an empty cache: the 5,183 abstracts embedded,
    then the questions; one run (minutes)."""
    cache = tmp / "cache"
    cache.mkdir()
    cmd = [*ragauge_cmd(), "run", str(ROOT / "examples/scifact/golden.jsonl"), "--retriever",
           f"dense:{ROOT / 'examples/scifact/corpus.jsonl.gz'}", "--concurrency", "1", "-o", str(tmp / "dense.jsonl")]
    timed = Timed("dense")
    progress("[dense] embedding SciFact (minutes)")
    timed.add(*run_process(cmd, tmp, "dense embedding", env={"RAGAUGE_CACHE": str(cache)}, timeout=3600)[:3])
    return timed


def ratio(x: float) -> str:
    return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def cell(t: Result | Timed) -> str:
    if isinstance(t, Result):
        return f"{t.median:.2f} s (cpu {t.cpu:.2f} s, {t.peak_mb:.0f} MB)"
    return f"{t.wall:.2f} s (cpu {t.cpu:.2f} s, {t.peak:.0f} MB)"


def table(rows: set[str], evals: dict[tuple[str, str], Result], run_times: dict[str, Timed],
          dense_time: Timed | None) -> list[str]:
    """The issue's table: what, ragauge, the peer(s) in the same run, the ratio, the target."""
    out = ["| what | ragauge (median wall, cpu, peak RSS) | peer, same run | ratio | target |",
           "|---|---|---|---:|---|"]
    get: Callable[[str, str], Result | None] = lambda tool, scale: evals.get((tool, scale))  # noqa: E731
    te, ev, py, rx = (get(t, "msmarco") for t in ("ragauge trec-eval", "ragauge eval", "pytrec_eval", "ranx"))
    if "trec-eval" in rows and te and py:
        peers = f"pytrec_eval {cell(py)}" + (f"; ranx {cell(rx)}" if rx else "")
        ratios = f"{ratio(py.median / te.median)} pytrec_eval"
        if rx:
            ratios += f", {ratio(rx.median / te.median)} ranx"
        out.append(f"| `ragauge trec-eval`, 6,980 x 1,000 TREC run | {cell(te)} | {peers} | {ratios} | "
                   "≥ 5x pytrec_eval, ≥ 15x ranx |")
    if "eval" in rows and ev and py:
        out.append(f"| `ragauge eval` on the same run, JSON report | {cell(ev)} | pytrec_eval {cell(py)} | "
                   f"{ratio(py.median / ev.median)} pytrec_eval; {ratio(ev.median / te.median) if te else '-'} "
                   "trec-eval's time | ≥ 5x pytrec_eval |")
    gev, gpy, gpure = (get(t, "golden") for t in ("ragauge eval", "pytrec_eval", "pure_python"))
    if "golden" in rows and gev and gpy:
        pure = f"; pure Python {cell(gpure)}" if gpure else ""
        out.append(f"| `ragauge eval`, 500 x 20 golden-set scale | {cell(gev)} | pytrec_eval {cell(gpy)}{pure} | "
                   f"{ratio(gev.median / gpy.median)} pytrec_eval's time | ≤ pytrec_eval's time |")
    for name, timed in run_times.items():
        n, concurrency, sleep = RUNS[name]
        if sleep:
            ideal = n * sleep / concurrency
            out.append(f"| `ragauge run`, retriever {name} | {cell(timed)} | ideal {ideal:.2f} s | "
                       f"{ratio(timed.wall / ideal)} the ideal | ≤ 1.25x ideal at 3,200 / 64 |")
        else:
            out.append(f"| `ragauge run`, HTTP retriever answering at once, {n} questions | {cell(timed)} | - | "
                       f"{n / timed.wall:.0f} calls/s whole process, {1000 * timed.cpu / n:.1f} ms cpu a call | "
                       "≥ 2,000 calls/s |")
    if dense_time is not None:
        out.append(f"| `dense:` SciFact, 5,183 abstracts embedded + 300 questions, empty cache | {cell(dense_time)} "
                   "| - | - | ≤ 120 s, all cores |")
    if "memory" in rows and (te or ev):
        mine = ", ".join(f"{r.tool.removeprefix('ragauge ')} {r.peak_mb:.0f} MB" for r in (te, ev) if r)
        peers = ", ".join(f"{r.tool} {r.peak_mb:.0f} MB" for r in (py, rx) if r)
        out.append(f"| peak memory, 7M-hit run | {mine} | {peers or '-'} | - | bounded (≤ 1 GB at 30x) |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=HERE / "data", help="folder written by generate.py")
    parser.add_argument("--rows", default=",".join(DEFAULT_ROWS), help="comma-separated subset of: " + ", ".join(ROWS))
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each msmarco-scale command")
    parser.add_argument("--repeat-small", type=int, default=7, help="timed runs of the golden-scale and run rows")
    parser.add_argument("--ranx-python", help="the Python that has ranx (default: this one); ranx is left out "
                                              "when neither has it")
    parser.add_argument("--json", type=Path, help="also write the measurements here (default: DATA/speed_table.json)")
    args = parser.parse_args(argv)
    rows = {r.strip() for r in args.rows.split(",") if r.strip()}
    if not rows <= set(ROWS):
        parser.error(f"unknown row(s): {', '.join(sorted(rows - set(ROWS)))}")
    ranx = args.ranx_python or sys.executable
    has_ranx = run_ok([ranx, "-c", "import ranx"])
    if has_ranx:
        bench_eval.RUNNER_PYTHON["ranx"] = ranx
    scales = (["msmarco"] if rows & {"trec-eval", "eval", "memory"} else []) + (["golden"] if "golden" in rows else [])
    for s in scales:
        for k in ("qrels.txt", "run.trec", "golden.jsonl"):
            if not (args.data / f"{s}.{k}").is_file():
                parser.error(f"{args.data / f'{s}.{k}'} is missing: run python benchmarks/generate.py first")

    facts = machine_facts()
    facts["bytecode"] = compile_ragauge()
    facts["ranx_python"] = ranx if has_ranx else "ranx not installed: left out"
    if has_ranx and ranx != sys.executable:  # machine_facts() looked in this interpreter
        versions = subprocess.run([ranx, "-c", "import importlib.metadata as m; print(m.version('ranx'), "
                                   "m.version('numba'))"], capture_output=True, text=True).stdout.split()
        facts["versions"].update(dict(zip(("ranx", "numba"), versions)))
    evals: dict[tuple[str, str], Result] = {}
    run_times: dict[str, Timed] = {}
    dense_time = None
    with tempfile.TemporaryDirectory(prefix="ragauge-speed-") as tmpname:
        tmp = Path(tmpname)
        if "msmarco" in scales:
            tools = ["ragauge trec-eval", "ragauge eval", "pytrec_eval"] + (["ranx"] if has_ranx and "trec-eval" in rows
                                                                             else [])
            evals.update({(r.tool, r.scale): r for r in evaluations(tools, "msmarco", args.data, tmp, args.repeat)})
        if "golden" in scales:
            tools = ["ragauge eval", "ragauge trec-eval", "pytrec_eval", "pure_python"]
            done = evaluations(tools, "golden", args.data, tmp, args.repeat_small)
            evals.update({(r.tool, r.scale): r for r in done})
        which = {name: spec for name, spec in RUNS.items() if ("slow" if spec[2] else "http") in rows}
        if which:
            run_times = runs(tmp, args.repeat_small, which)
        if "dense" in rows:
            dense_time = dense(tmp)
    facts["loadavg_at_end"] = load_average()

    if evals:
        print_report(list(evals.values()), {}, facts, args.repeat)
    else:
        print(f"\n# ragauge speed table, {facts['date']}\n{facts['cpu']}, nproc={facts['nproc']}, "
              f"Python {facts['python']}; load average at start {facts['loadavg_at_start']}, "
              f"at end {facts['loadavg_at_end']}")
    print(f"\n{facts['bytecode']}; ranx: {facts['ranx_python']}")
    print(f"msmarco rows: median of {args.repeat}, golden and run rows: median of "
          f"{args.repeat_small} interleaved whole processes, each after one untimed run\n")
    print("\n".join(table(rows, evals, run_times, dense_time)))
    out = args.json or args.data / "speed_table.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "facts": facts, "rows": sorted(rows),
        "evaluations": [{"tool": r.tool, "scale": r.scale, "median_s": r.median, "cpu_s": r.cpu, "peak_mb": r.peak_mb,
                         "walls_s": [s.wall for s in r.samples], "values": r.values} for r in evals.values()],
        "runs": [{"name": t.name, "walls_s": t.walls, "cpu_s": t.cpus, "peak_mb": t.peaks}
                 for t in [*run_times.values(), *([dense_time] if dense_time else [])]],
    }, indent=2))
    print(f"\nwrote {out}")
    return 0


def compile_ragauge() -> str:
    """Byte-compile ragauge's sources, as pip does when it installs a wheel: with
    PYTHONDONTWRITEBYTECODE set (as here), an editable install would otherwise recompile its ~100
    modules in every process (~50 ms), which no installed copy pays. The peers' packages are
    compiled already."""
    import ragauge

    package = Path(ragauge.__file__).parent
    ok = run_ok([sys.executable, "-m", "compileall", "-q", str(package)])
    return f"{package} byte-compiled first" if ok else f"{package}: compileall failed"


def run_ok(cmd: list[str]) -> bool:
    try:
        return subprocess.run(cmd, capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if __name__ == "__main__":
    sys.exit(main())
