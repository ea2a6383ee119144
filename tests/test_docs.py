"""The docs document what the code does: the tables generated from the registries are pasted as printed,
every public name, retriever scheme and error is on its reference page, and every page is in the site's nav."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragauge.metrics.docs import markdown_table

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_metric_table_is_the_registry() -> None:
    assert markdown_table() in _page("reference/metrics.md")


def test_failure_pattern_table_is_the_registry() -> None:
    from ragauge.evaluation.patterns import markdown_table as pattern_table

    assert pattern_table() in _page("explanation/failure-patterns.md")


def _directives(page: str) -> list[str]:
    """The objects a page renders with mkdocstrings (``::: dotted.name`` lines)."""
    lines = _page(page).splitlines()
    return [line[4:].strip() for line in lines if line.startswith("::: ") and "mkdocs-click" not in line]


def test_every_public_name_is_in_the_api_reference() -> None:
    import ragauge

    shown = _directives("reference/api.md")
    assert len(shown) == len(set(shown)), "a name is rendered twice"
    assert sorted(shown) == sorted(f"ragauge.{name}" for name in ragauge.__all__ if name != "__version__")


def test_every_retriever_scheme_is_in_the_spec_reference() -> None:
    """Each scheme of the adapter registry has its section, and the page renders the contract of exactly
    the registry's modules (plus the framework wrappers and the reranker that python: and ?rerank= use)."""
    import re

    from ragauge.retrieve.registry import ADAPTERS

    page = _page("reference/retrievers.md")
    headings = {scheme for line in page.splitlines() if line.startswith("## ")
                for scheme in re.findall(r"([a-z][a-z0-9-]*):", line)}
    assert headings == set(ADAPTERS)
    extra = {"ragauge.retrieve.frameworks", "ragauge.retrieve.rescore"}
    assert set(_directives("reference/retrievers.md")) == set(ADAPTERS.values()) | extra


def test_retriever_spec_reference_is_the_registry() -> None:
    """The scheme table and each adapter's fields on docs/reference/retrievers.md are what
    docs/make_reference.py writes from the adapters' ADAPTER values, and every adapter has its block."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_reference", DOCS / "make_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    page = _page("reference/retrievers.md")
    assert module.expected(page) == page, "stale: run python docs/make_reference.py"
    names = [a.name for a in module._adapters()]
    assert sorted(module.keys(page)) == sorted(["schemes", *(f"spec {name}" for name in names)])


def test_every_error_is_in_the_error_reference_with_its_exit_code() -> None:
    import inspect
    import re

    from ragauge import errors

    rows = dict(re.findall(r"^\| `(\w+)` \| (\d+) \|", _page("reference/errors.md"), flags=re.M))
    classes = {name: cls.exit_code for name, cls in vars(errors).items()
               if inspect.isclass(cls) and issubclass(cls, errors.RagaugeError)}
    assert {name: int(code) for name, code in rows.items()} == classes


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    if isinstance(node, list):
        return [page for item in node for page in _nav_pages(item)]
    return []


def test_every_docs_page_is_in_the_nav() -> None:
    """A page left out of mkdocs.yml's nav is built but found by no one; mkdocs only says so as INFO.
    A page may stay out on purpose by matching a not_in_nav pattern of mkdocs.yml."""
    import fnmatch

    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_pages(config["nav"])
    assert len(nav) == len(set(nav)), "a page is in the nav twice"
    excluded = [p.strip().lstrip("/") for p in (config.get("not_in_nav") or "").splitlines() if p.strip()]
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    orphans = [p for p in pages if p not in nav and not any(fnmatch.fnmatch(p, pattern) for pattern in excluded)]
    assert orphans == [], f"pages missing from mkdocs.yml's nav: {orphans}"


def test_help_is_fast_and_light() -> None:
    import subprocess
    import sys

    code = "import sys, ragauge.cli.main; print(sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_evaluating_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas (when installed, ~0.3 s) the first time a value crosses from
    Python or numpy through pa.array, pa.scalar or to_numpy; ragauge crosses through
    ragauge.core.arrow instead. Each command runs in a fresh interpreter."""
    import importlib.util
    import subprocess
    import sys

    assert importlib.util.find_spec("pandas"), "pandas is a test dependency: without it this check means nothing"
    data = ROOT / "tests" / "fixtures"
    commands = [
        ["trec-eval", "-q", "-c", "-m", "all_trec", str(data / "trec_eval" / "qrels.test"),
         str(data / "trec_eval" / "results.test")],
        ["eval", str(data / "mini" / "golden.jsonl"), "--run", str(data / "mini" / "run.jsonl"), "-k", "1,5",
         "--doc-id-sep", "#"],
        ["eval", str(data / "trec_eval" / "qrels.test"), "--run", str(data / "trec_eval" / "results.test"),
         "--format", "json", "-o", str(tmp_path / "out.json")],
    ]
    for args in commands:
        code = ("import sys; from ragauge.cli.main import cli\n"
                f"try:\n    cli.main({args!r}, prog_name='ragauge', standalone_mode=False)\n"
                "except SystemExit:\n    pass\n"
                "print('pandas' in sys.modules)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert out.stdout.strip().splitlines()[-1] == "False", (args, out.stderr[-2000:])


def test_the_screenshot_command_runs_as_printed(tmp_path: Path, monkeypatch) -> None:
    """docs/make_screenshot.py remakes the image from the command docs/reference/reports.md prints
    under it; that command must run as written and make the report the image shows."""
    import importlib.util

    from click.testing import CliRunner

    from ragauge.cli.main import cli

    spec = importlib.util.spec_from_file_location("make_screenshot", ROOT / "docs" / "make_screenshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    args = module.page_command(module.PAGE.read_text(encoding="utf-8"))
    assert args[:2] == ["ragauge", "eval"] and "--format" in args and "html" in args
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "report.html"
    args[args.index("-o") + 1] = str(out)
    result = CliRunner().invoke(cli, args[1:])
    assert result.exit_code == 0, result.output
    assert "bm25:examples/helpdesk/sections.jsonl" in out.read_text(encoding="utf-8")
