"""Terminal output (issue 28): every command that colours takes --no-color and honours NO_COLOR, and
compare and sweep fit the terminal's width (nothing dropped) while a file keeps the full width."""

from __future__ import annotations

import inspect
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli

ROOT = Path(__file__).parents[2]
HELPDESK = ROOT / "examples" / "helpdesk"
MINI = ROOT / "tests" / "fixtures" / "mini"
IMPORTERS = ROOT / "tests" / "fixtures" / "importers"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COLOURING = ("emit(", "calling(", "execute(", "_call(", "_import(", "terminal_style(", "warn(", "click.style(")
"""What a command's function calls when it colours what it prints (cli/report.py's helpers)."""
COMPARE = ["compare", str(HELPDESK / "bm25.run.jsonl"), str(HELPDESK / "dense.run.jsonl"), "--golden",
           str(HELPDESK / "golden.jsonl"), "-k", "1,5,10"]


def flaky(query: str, n: int) -> list[str]:
    """A retriever that fails on one question of tests/fixtures/mini."""
    if "printer" in query:
        raise ValueError("the index is down")
    return ["vpn", "kb-1"]


def _commands(group: click.Group, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    """Every leaf command (the top group loads them on demand), and 'run merge'."""
    from ragauge.cli.run import merge_command

    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _commands(command, f"{prefix}{name} ")
        elif command is not None:
            yield f"{prefix}{name}", command
    if not prefix:
        yield "run merge", merge_command


def test_every_command_that_colours_takes_no_color() -> None:
    colouring = {name for name, command in _commands(cli) if command.callback is not None
                 and any(call in inspect.getsource(command.callback) for call in COLOURING)}
    with_flag = {name for name, command in _commands(cli) if any("--no-color" in p.opts for p in command.params)}
    assert {"eval", "report", "compare", "sweep", "run", "gate", "baseline update", "golden import",
            "golden import-trec"} <= colouring
    assert colouring == with_flag


def test_colour_comes_only_from_the_report_helpers() -> None:
    """A command colours through terminal_style (reports) or warn (stderr), which honour --no-color
    and NO_COLOR; no other cli module calls click.style."""
    styled = sorted(p.name for p in (ROOT / "src" / "ragauge" / "cli").glob("*.py")
                    if "click.style(" in p.read_text(encoding="utf-8") or "secho(" in p.read_text(encoding="utf-8"))
    assert styled == ["report.py"]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The runner's stdout and stderr are a terminal (colour is on unless turned off)."""
    from click.testing import _NamedTextIOWrapper

    monkeypatch.setattr(_NamedTextIOWrapper, "isatty", lambda self: True, raising=False)
    yield


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "", "COLUMNS": "80", **(env or {})}, color=True)
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.usefixtures("terminal")
def test_compare_colours_a_terminal_unless_told_not_to(tmp_path: Path) -> None:
    code, out, _ = invoke(*COMPARE)
    assert code == 0 and ANSI.search(out)
    assert "\x1b[32mbetter" in out or "\x1b[1m" in out
    plain = ANSI.sub("", out)
    for off in (["--no-color"], []):
        code, again, _ = invoke(*COMPARE, *off, env={} if off else {"NO_COLOR": "1"})
        assert code == 0 and again == plain  # the same text, without a style
    code, _, _ = invoke(*COMPARE, "-o", str(tmp_path / "c.txt"))
    assert not ANSI.search((tmp_path / "c.txt").read_text(encoding="utf-8"))


@pytest.mark.usefixtures("terminal")
def test_a_failed_question_s_warning_follows_no_color(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    spec = "python:tests.cli.test_terminal:flaky"
    for command in (["run", str(MINI / "golden.jsonl"), "--retriever", spec, "-o", str(tmp_path / "r.jsonl")],
                    ["eval", str(MINI / "golden.jsonl"), "--retriever", spec]):
        base = [*command, "--retries", "0", "--concurrency", "1"]
        code, _, err = invoke(*base)
        assert code == 0 and "\x1b[33mwarning: 1 question(s) failed" in err, err
        for off, env in ((["--no-color"], {}), ([], {"NO_COLOR": "1"})):
            code, _, err = invoke(*base, *off, env=env)
            assert code == 0 and "warning: 1 question(s) failed" in err and not ANSI.search(err), err


@pytest.mark.usefixtures("terminal")
def test_golden_import_notes_follow_no_color(tmp_path: Path) -> None:
    files = [str(IMPORTERS / "trec-topics.txt"), str(IMPORTERS / "trec-qrels.txt")]
    for command in (["golden", "import", "trec", *files], ["golden", "import-trec", *files]):
        code, _, err = invoke(*command, "-o", str(tmp_path / "g.jsonl"))
        assert code == 0 and "\x1b[33mNOTE: 1 topic(s) have no judgement" in err, err
        code, _, err = invoke(*command, "-o", str(tmp_path / "g.jsonl"), "--no-color")
        assert code == 0 and "NOTE: 1 topic(s)" in err and not ANSI.search(err)
        code, _, err = invoke(*command, "-o", str(tmp_path / "g.jsonl"), env={"NO_COLOR": "1"})
        assert code == 0 and not ANSI.search(err)


@pytest.mark.parametrize("width", [40, 60, 80, 100])
def test_compare_fits_the_terminal_and_says_everything(width: int) -> None:
    full = CliRunner().invoke(cli, COMPARE, env={"COLUMNS": ""}).stdout  # a pipe: not fitted (as before)
    assert max(len(line) for line in full.splitlines()) > 200
    fitted = CliRunner().invoke(cli, COMPARE, env={"COLUMNS": str(width)}).stdout
    assert max(len(line) for line in fitted.splitlines()) <= width
    assert _same_words(full, fitted)


def _same_words(full: str, fitted: str) -> bool:
    """Every character of the full report, in order, is in the fitted one (nothing dropped or cut);
    a table in blocks repeats its first column, so the fitted text may hold more."""
    want = Counter(full.replace(" ", "").replace("\n", "").replace("-", ""))
    have = Counter(fitted.replace(" ", "").replace("\n", "").replace("-", ""))
    return not want - have


@pytest.fixture(scope="module")
def helpdesk_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled help-desk sweep, run once: examples/helpdesk/sweep.toml."""
    out = tmp_path_factory.mktemp("sweep")
    r = CliRunner().invoke(cli, ["sweep", str(HELPDESK / "golden.jsonl"), "--corpus", str(HELPDESK / "sections.jsonl"),
                                 "--config", str(HELPDESK / "sweep.toml"), "-o", str(out / "run"), "--format", "json",
                                 "--report", str(out / "sweep.json")])
    assert r.exit_code == 0, r.output
    return out / "sweep.json"


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_the_helpdesk_sweep_fits_the_terminal_and_loses_nothing(helpdesk_sweep: Path, width: int) -> None:
    from ragauge.api.report import render
    from ragauge.api.sweep import read_sweep

    result = read_sweep(helpdesk_sweep)
    full = render(result, "text")
    assert max(len(line) for line in full.splitlines()) > 500  # one line per configuration, every column
    fitted = render(result, "text", width=width)
    assert max(len(line) for line in fitted.splitlines()) <= width
    assert "…" not in fitted and _same_words(full, fitted)
    for row in result.confirmed:  # each configuration's every number, beside its name in some block
        assert f"{row.means[result.primary]:.3f}" in fitted
    assert fitted.count("diff [95% CI]") == len(result.metrics)  # one block per metric, its diff beside it


@pytest.mark.usefixtures("terminal")
def test_sweep_on_a_terminal_fits_and_colours_a_file_keeps_the_full_width(tmp_path: Path) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text('[sweep]\nk = [5]\n\n[[config]]\nname = "bm25"\nretriever = "bm25"\n\n'
                      '[[config]]\nretriever = "bm25"\nk1 = [0.6]\n')
    base = ["sweep", str(HELPDESK / "golden.jsonl"), "--corpus", str(HELPDESK / "sections.jsonl"), "--config",
            str(config), "-o", str(tmp_path / "out")]
    code, out, _ = invoke(*base, env={"COLUMNS": "70"})
    assert code == 0 and ANSI.search(out) and max(len(line) for line in ANSI.sub("", out).splitlines()) <= 70
    code, plain, _ = invoke(*base, "--no-color", env={"COLUMNS": "70"})
    def same(text: str) -> list[str]:
        """The report without what timing decides: the latencies (and the second run finds its indexes
        cached) and so the Pareto frontier's "yes", which weighs p50 latency."""
        lines = re.sub(r"\d", "0", text).split("indexes (")[0].splitlines()
        return [re.sub(r"\s+yes$", "", line).rstrip() for line in lines]

    assert code == 0 and not ANSI.search(plain)
    assert same(plain) == same(ANSI.sub("", out))
    code, _, _ = invoke(*base, "--report", str(tmp_path / "sweep.txt"), env={"COLUMNS": "70"})
    saved = (tmp_path / "sweep.txt").read_text(encoding="utf-8")
    assert not ANSI.search(saved) and max(len(line) for line in saved.splitlines()) > 70  # a file: full width


def test_eval_help_groups_its_options_and_stays_light() -> None:
    from ragauge.cli.eval import SECTIONS, eval_command
    from tests.cli.test_main import _imported

    out = CliRunner().invoke(cli, ["eval", "--help"], env={"COLUMNS": "100"}).stdout
    titles = [line[:-1] for line in out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert titles == ["Input", "Retriever (instead of --run)", "Traces (instead of --run)", "Metrics", "Output",
                      "Other options"]
    sections = dict(SECTIONS)
    named = [name for names in sections.values() for name in names]
    options = [p.name for p in eval_command.params if isinstance(p, click.Option) and p.name != "help"]
    assert len(named) == len(set(named)) and set(options) <= set(named), "give every eval option a section"
    after = out.split("\nMetrics:")[1].split("\nOutput:")[0]
    assert "--metrics" in after and "-k TEXT" in after and "--run PATH" in out.split("\nRetriever")[0]
    assert out.split("\nOther options:")[1].split() == ["-h,", "--help", "Show", "this", "message", "and", "exit."]
    code, imported = _imported(["eval", "--help"], ("numpy", "pyarrow", "ragauge.evaluation.result",
                                                    "ragauge.cli.eval"))
    assert code in ("0", "None") and imported == ["ragauge.cli.eval"]  # --help loads no evaluation module
