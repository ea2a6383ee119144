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
  http       ragauge run against a loopback HTTP retriever answering at once, 640 and 6,400 questions:
             calls/s of the whole process (start-up included) and steady state (the marginal rate
             between the two sizes), the client's CPU per call (marginal and whole), the server's
  slow       ragauge run against a 50 ms retriever: 640 at concurrency 32, 3,200 and 6,400 at 64, vs
             the ideal (questions x 50 ms / concurrency), and the marginal ratio from 3,200 to 6,400
             (linear in the number of questions when it is near 1)
             (http and slow: each beside bare_client.py, a bare aiohttp client asking the same server
             the same questions, the floor the server and the machine leave)
  dense      dense: embedding of SciFact's 5,183 abstracts with an empty cache (minutes; one run
             per --dense-compute mode: float32, the default, or int8)

Usage:
    python benchmarks/generate.py                      # once: writes benchmarks/data/
    python benchmarks/speed_table.py                   # ~10 min on an idle 2-core machine
    python benchmarks/speed_table.py --rows golden,http,slow --repeat 5
    python benchmarks/speed_table.py --ranx-python /path/to/venv-with-ranx/bin/python
    python benchmarks/speed_table.py --rows http,slow --base-src /tmp/base/src   # run rows, base beside yours
    python benchmarks/speed_table.py --rows dense --dense-compute float32,int8
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
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
BARE = "bare_client.py"
"""The run rows' peer in ``runs``' trees: benchmarks/bare_client.py, a bare aiohttp client."""
DEFAULT_ROWS = tuple(r for r in ROWS if r != "dense")
SLOW = 0.050
RUNS = {  # name: (questions, concurrency, retriever sleep s)
    "immediate, 640 questions, concurrency 32": (640, 32, 0.0),
    "immediate, 6,400 questions, concurrency 32": (6400, 32, 0.0),
    "50 ms, 640 questions, concurrency 32": (640, 32, SLOW),
    "50 ms, 3,200 questions, concurrency 64": (3200, 64, SLOW),
    "50 ms, 6,400 questions, concurrency 64": (6400, 64, SLOW),
}


@dataclass
class Timed:
    """Repeated whole-process timings of one command."""

    name: str
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)
    server_cpus: list[float] = field(default_factory=list)

    def add(self, wall: float, peak: float, cpu: float, server_cpu: float | None = None) -> None:
        self.walls.append(wall)
        self.peaks.append(peak)
        self.cpus.append(cpu)
        if server_cpu is not None:
            self.server_cpus.append(server_cpu)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    @property
    def peak(self) -> float:
        return max(self.peaks)

    @property
    def server_cpu(self) -> float:
        return statistics.median(self.server_cpus) if self.server_cpus else float("nan")


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


def start_server(sleep: float) -> tuple[str, mp.process.BaseProcess]:
    parent, child = mp.Pipe()
    proc = mp.get_context("fork").Process(target=serve, args=(child, sleep), daemon=True)
    proc.start()
    return f"http://127.0.0.1:{parent.recv()}/search", proc


def golden_file(path: Path, n: int) -> Path:
    with open(path, "w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"q{i}", "query": f"question {i}", "relevant": {"d0": 1}}) + "\n")
    return path


def process_cpu(pid: int) -> float:
    """User + system CPU seconds a running process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def runs(tmp: Path, repeat: int, which: dict[str, tuple[int, int, float]],
         trees: dict[str, str | None]) -> dict[tuple[str, str], Timed]:
    """``ragauge run`` against loopback retrievers (asyncio servers in their own processes, whose
    CPU is measured too: the rows measure ragauge's client), each configuration once untimed,
    then interleaved; with several ``trees`` (label: the src folder on PYTHONPATH, None for this
    interpreter's ragauge, ``BARE`` for bare_client.py) each configuration runs with each in turn."""
    servers = {sleep: start_server(sleep) for sleep in {s for _, _, s in which.values()}}
    out = {(tree, name): Timed(name) for tree in trees for name in which}
    try:
        def once(tree: str, name: str) -> tuple[float, float, float, float]:
            n, concurrency, sleep = which[name]
            golden = golden_file(tmp / f"golden-{n}.jsonl", n)
            target = tmp / "run.jsonl"
            target.unlink(missing_ok=True)
            src = trees[tree]
            cmd = ([sys.executable, str(HERE / "bare_client.py"), servers[sleep][0], str(golden), str(concurrency),
                    str(target)] if src == BARE else
                   [*ragauge_cmd(), "run", str(golden), "--retriever", servers[sleep][0], "--concurrency",
                    str(concurrency), "-o", str(target)])
            before = process_cpu(servers[sleep][1].pid)  # type: ignore[arg-type]
            wall, peak, cpu, _ = run_process(cmd, tmp, f"{tree} ({name})",
                                             env={"PYTHONPATH": src} if src and src != BARE else None)
            served = process_cpu(servers[sleep][1].pid) - before  # type: ignore[arg-type]
            lines = sum(1 for line in open(target) if '"hits"' in line)
            if lines != n:
                raise SystemExit(f"{tree} ({name}) wrote {lines} answers for {n} questions")
            return wall, peak, cpu, served

        for name in which:
            for tree in trees:
                progress(f"[run] {tree} {name}: first run {once(tree, name)[0]:.2f} s")
        for i in range(repeat):
            for name in which:
                for tree in trees:
                    out[tree, name].add(*once(tree, name))
                    progress(f"[run] {tree} {name}: run {i + 1}/{repeat} {out[tree, name].walls[-1]:.2f} s")
    finally:
        for _, proc in servers.values():
            proc.terminate()
    return out


def dense(tmp: Path, compute: str) -> Timed:
    """SciFact's 300 questions through dense: with an empty cache: the 5,183 abstracts embedded
    (MiniLM, ``compute`` float32 or int8), then the questions; one run (minutes)."""
    cache = tmp / f"cache-{compute}"
    cache.mkdir()
    spec = f"dense:{ROOT / 'examples/scifact/corpus.jsonl.gz'}" + ("?compute=int8" if compute == "int8" else "")
    cmd = [*ragauge_cmd(), "run", str(ROOT / "examples/scifact/golden.jsonl"), "--retriever", spec,
           "--concurrency", "1", "-o", str(tmp / f"dense-{compute}.jsonl")]
    timed = Timed(f"dense {compute}")
    progress(f"[dense] embedding SciFact, compute={compute} (minutes)")
    timed.add(*run_process(cmd, tmp, "dense embedding", env={"RAGAUGE_CACHE": str(cache)}, timeout=3600)[:3])
    return timed


def ratio(x: float) -> str:
    return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def cell(t: Result | Timed) -> str:
    if isinstance(t, Result):
        return f"{t.median:.2f} s (cpu {t.cpu:.2f} s, {t.peak_mb:.0f} MB)"
    return f"{t.wall:.2f} s (cpu {t.cpu:.2f} s, {t.peak:.0f} MB)"


def whole(t: Timed, name: str) -> str:
    """One configuration's whole-process figures: with the 50 ms retriever the ratio to the ideal,
    with the immediate one the calls/s and the client's and the server's CPU per call."""
    n, concurrency, sleep = RUNS[name]
    if sleep:
        return f"{cell(t)}, {ratio(t.wall / (n * sleep / concurrency))} the ideal"
    return (f"{cell(t)}, {n / t.wall:.0f} calls/s, client cpu {1000 * t.cpu / n:.2f} ms a call, server cpu "
            f"{1000 * t.server_cpu / n:.3f} ms a call")


def run_rows(run_times: dict[tuple[str, str], Timed]) -> list[str]:
    """The executor's rows: each configuration whole process (start-up included), then what the
    pairs of sizes say: the steady-state (marginal) rate and client CPU per call between 640 and
    6,400 questions, and the marginal ratio to the ideal from 3,200 to 6,400 at 50 ms. With a
    base tree, its figures stand in the peer column beside the bare aiohttp client's (bare_client.py)."""
    out = []
    trees = list(dict.fromkeys(tree for tree, _ in run_times))
    peers = [t for t in trees if t != "ragauge"]

    def both(fn: Callable[[str], str]) -> tuple[str, str]:
        return fn("ragauge"), "; ".join(f"{peer}: {fn(peer)}" for peer in peers) or "-"

    for name in dict.fromkeys(name for _, name in run_times):
        n, concurrency, sleep = RUNS[name]
        mine, base = both(lambda tree, name=name: whole(run_times[tree, name], name))  # type: ignore[misc]
        if sleep:
            out.append(f"| `ragauge run`, retriever {name}, whole process | {mine} | {base} | "
                       f"ideal {n * sleep / concurrency:.2f} s | ≤ 1.25x ideal at 3,200 / 64 |")
        else:
            out.append(f"| `ragauge run`, HTTP retriever answering at once, {n:,} questions, whole process | {mine} "
                       f"| {base} | - | ≥ 2,000 calls/s |")
    small, large = "immediate, 640 questions, concurrency 32", "immediate, 6,400 questions, concurrency 32"
    if ("ragauge", small) in run_times and ("ragauge", large) in run_times:
        def steady(t: str) -> str:
            a, b = run_times[t, small], run_times[t, large]
            extra = RUNS[large][0] - RUNS[small][0]
            return (f"{extra / (b.wall - a.wall):.0f} calls/s, client cpu {1000 * (b.cpu - a.cpu) / extra:.3f} ms "
                    "a call")
        mine, base = both(steady)
        out.append(f"| `ragauge run`, HTTP retriever answering at once, steady state (marginal, 640 → 6,400) "
                   f"| {mine} | {base} | - | ≥ 2,000 calls/s |")
    mid, big = "50 ms, 3,200 questions, concurrency 64", "50 ms, 6,400 questions, concurrency 64"
    if ("ragauge", mid) in run_times and ("ragauge", big) in run_times:
        def marginal(t: str) -> str:
            a, b = run_times[t, mid], run_times[t, big]
            ideal = (RUNS[big][0] - RUNS[mid][0]) * SLOW / 64
            return f"{b.wall - a.wall:.2f} s for {ideal:.2f} s ideal = {ratio((b.wall - a.wall) / ideal)} the ideal"
        mine, base = both(marginal)
        out.append(f"| `ragauge run`, 50 ms retriever, marginal 3,200 → 6,400 at 64 (linearity) | {mine} | {base} | "
                   "- | linear (≈ 1x) |")
    return out


def table(rows: set[str], evals: dict[tuple[str, str], Result], run_times: dict[tuple[str, str], Timed],
          dense_times: list[Timed]) -> list[str]:
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
    out += run_rows(run_times)
    for t in dense_times:
        out.append(f"| `dense:` SciFact ({t.name.removeprefix('dense ')}), 5,183 abstracts embedded + 300 questions, "
                   f"empty cache | {cell(t)} | - | - | ≤ 120 s, all cores |")
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
    parser.add_argument("--dense-compute", default="float32", choices=("float32", "int8", "float32,int8"),
                        help="dense row: MiniLM's compute mode(s), each with an empty cache (default float32)")
    parser.add_argument("--base-src", type=Path, help="run rows only: also time the ragauge in this src folder "
                                                     "(e.g. an older checkout's src), interleaved, as the peer")
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
    run_times: dict[tuple[str, str], Timed] = {}
    dense_times: list[Timed] = []
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
            trees: dict[str, str | None] = {"ragauge": None, "bare aiohttp": BARE}
            if args.base_src:
                run_ok([sys.executable, "-m", "compileall", "-q", str(args.base_src)])
                trees["base"] = str(args.base_src.resolve())
            run_times = runs(tmp, args.repeat_small, which, trees)
        if "dense" in rows:
            dense_times = [dense(tmp, c) for c in args.dense_compute.split(",")]
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
    print("\n".join(table(rows, evals, run_times, dense_times)))
    out = args.json or args.data / "speed_table.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "facts": facts, "rows": sorted(rows),
        "evaluations": [{"tool": r.tool, "scale": r.scale, "median_s": r.median, "cpu_s": r.cpu, "peak_mb": r.peak_mb,
                         "walls_s": [s.wall for s in r.samples], "values": r.values} for r in evals.values()],
        "runs": [{"tree": tree, "name": t.name, "walls_s": t.walls, "cpu_s": t.cpus, "peak_mb": t.peaks,
                  "server_cpu_s": t.server_cpus}
                 for (tree, _), t in run_times.items()]
                + [{"name": t.name, "walls_s": t.walls, "cpu_s": t.cpus, "peak_mb": t.peaks} for t in dense_times],
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
