"""The public API and the architecture: a static, lazily loaded ``__all__`` whose names are never
subpackages, imports that point down the layers, install hints that name real extras."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import ragauge

ROOT = Path(__file__).parents[1]
SRC = ROOT / "src" / "ragauge"

# Lowest first. A module may import from its own layer and any layer below it, never above.
LAYERS: list[set[str]] = [
    {"errors", "_version", "redact"},
    {"core", "schemas"},
    {"config"},
    {"data"},
    {"formats"},
    {"metrics"},
    {"models"},
    {"evaluation"},
    {"stats"},
    {"retrieve"},
    {"runner"},
    {"llm"},
    {"predicted"},
    {"comparison"},
    {"experiments"},
    {"attribution"},
    {"gating"},
    {"curation"},
    {"history"},
    {"treceval"},
    {"reports"},
    {"tracking"},
    {"scaffold"},
    {"api"},
    {"testing", "pytest_plugin", "cli", "__main__", "__init__"},
]


def _layer(module: str) -> int:
    part = module.split(".")[1] if "." in module else "__init__"
    for i, names in enumerate(LAYERS):
        if part in names:
            return i
    if part in ragauge.__all__:  # ``from ragauge import compare``: the public API, the top floor
        return _layer("ragauge")
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragauge"):
            found += [node.module] if node.module != "ragauge" else [f"ragauge.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("ragauge")]
    return found


def test_imports_point_down_the_layers() -> None:
    upward = []
    for path in SRC.rglob("*.py"):
        module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        for target in _imports(path):
            if _layer(target) > _layer(module):
                upward.append(f"{module} imports {target}")
    assert upward == []


def test_no_module_reaches_into_another_packages_private_names() -> None:
    reaching = []
    for path in SRC.rglob("*.py"):
        module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        package = module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragauge"):
                for alias in node.names:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    if private and node.module.rsplit(".", 1)[0] != package:
                        reaching.append(f"{module}: from {node.module} import {alias.name}")
    assert reaching == []


def test_all_is_static_and_every_name_loads() -> None:
    tree = ast.parse((SRC / "__init__.py").read_text(encoding="utf-8"))
    assigned = [n for n in tree.body if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
    assert len(assigned) == 1 and isinstance(assigned[0].value, ast.List)
    assert all(isinstance(e, ast.Constant) for e in assigned[0].value.elts)  # a literal list
    assert sorted(ragauge.__all__) == sorted({"__version__", *ragauge._EXPORTS})
    for name in ragauge.__all__:
        assert getattr(ragauge, name) is not None, name


def test_no_public_name_is_a_subpackage_or_module() -> None:
    submodules = {m.name for m in pkgutil.iter_modules([str(SRC)])}
    assert not set(ragauge.__all__) & submodules
    for package in ("ragauge.treceval.runner", "ragauge.comparison.compare", "ragauge.gating.run"):
        importlib.import_module(package)  # importing a submodule sets an attribute on its parent
    from ragauge import compare, gate, trec_eval

    assert callable(trec_eval) and callable(compare) and callable(gate)
    assert not any(isinstance(f, type(sys)) for f in (trec_eval, compare, gate))


def test_import_ragauge_is_light() -> None:
    code = "import ragauge, sys; print(sorted(m for m in ('numpy', 'pyarrow', 'click') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _extras() -> set[str]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["project"]["optional-dependencies"])


def test_every_install_hint_names_an_extra_that_exists() -> None:
    import re

    extras = _extras()
    named: list[tuple[str, str]] = []
    for path in [*SRC.rglob("*.py"), ROOT / "README.md", *ROOT.glob("docs/**/*.md")]:
        text = path.read_text(encoding="utf-8")
        named += [(str(path.relative_to(ROOT)), m) for m in re.findall(r"ragauge\[([\w,-]+)\]", text)]
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "MissingExtra":
                    extra = node.args[1]
                    assert isinstance(extra, ast.Constant), f"{path}: MissingExtra's extra must be a literal"
                    named.append((str(path.relative_to(ROOT)), extra.value))
    assert named, "no install hint found: the check would mean nothing"
    missing = [(where, e) for where, names in named for e in names.split(",") if e not in extras | {"{extra}"}]
    assert missing == []


@pytest.mark.parametrize("command", sorted(__import__("ragauge.cli.main", fromlist=["COMMANDS"]).COMMANDS))
def test_every_command_is_documented_with_its_python_call(command: str) -> None:
    cli = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    assert f"ragauge {command}" in cli, f"docs/reference/cli.md's synopsis does not show 'ragauge {command}'"
    python_api = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    assert f"ragauge {command}" in python_api, f"docs/python.md has no Python equivalent of 'ragauge {command}'"


def test_named_errors_live_in_errors_and_are_exported() -> None:
    """The few error subclasses lived in deep modules (executor, metrics.build), not errors.py."""
    import ragauge
    from ragauge import errors

    for name in ("NotComparable", "ContractMismatch", "BaselineEdited", "DuplicateDocument", "RetrieverDown",
                 "RunAborted", "RunInterrupted", "MissingExtra", "GateFailure", "InputError", "ServerUnreachable"):
        cls = getattr(errors, name)
        assert getattr(ragauge, name) is cls and cls.__module__ == "ragauge.errors"
        assert issubclass(cls, errors.RagaugeError) and isinstance(cls.exit_code, int)
    assert errors.RunInterrupted.exit_code == 130 and errors.GateFailure.exit_code == 1
    assert issubclass(errors.ContractMismatch, errors.InputError)
    assert issubclass(errors.ServerUnreachable, errors.InputError)


def test_the_package_exports_verbs_only_from_the_api_floor() -> None:
    """``ragauge/__init__`` re-exports functions only from ``ragauge.api``; classes (data, results,
    options, errors) from the module that defines them."""
    from ragauge import _EXPORTS

    elsewhere = []
    for name, module in _EXPORTS.items():
        value = getattr(ragauge, name)
        if not isinstance(value, type) and not module.startswith("ragauge.api."):
            elsewhere.append(f"{name} from {module}")
    assert elsewhere == []


def test_every_api_module_lists_what_it_offers() -> None:
    for info in pkgutil.iter_modules([str(SRC / "api")]):
        module = importlib.import_module(f"ragauge.api.{info.name}")
        assert getattr(module, "__all__", None), f"ragauge.api.{info.name} has no __all__"
        for name in module.__all__:  # a verb, or a default the commands show (UPPER_CASE)
            assert callable(getattr(module, name)) or name.isupper(), f"ragauge.api.{info.name}.{name}"


CLI_MAY_IMPORT = ("ragauge.api", "ragauge.cli", "ragauge.errors", "ragauge.config", "ragauge.redact",
                  "ragauge._version", "ragauge.core.escape", "ragauge.core.files", "ragauge.core.jsonl",
                  "ragauge.reports.registry", "ragauge.runner.options", "ragauge.retrieve.base")
"""What a command may import besides the public API: the parsing of ragauge.toml, the output helpers
(escaping, atomic files, JSON), the format choices, and the option classes whose defaults it shows."""


def test_commands_parse_call_the_api_and_render() -> None:
    """``cli/`` composes nothing: outside the list above it imports only ``ragauge.api`` (and
    ``ragauge`` itself, the public API); names under TYPE_CHECKING do not count."""
    found = []
    for path in (SRC / "cli").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and getattr(node.test, "id", "") == "TYPE_CHECKING" for n in ast.walk(node)}
        for node in ast.walk(tree):
            if id(node) in typing_only or not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            if node.module.startswith("ragauge") and node.module != "ragauge" \
                    and not node.module.startswith(CLI_MAY_IMPORT):
                found.append(f"{path.name}: {node.module}")
    assert sorted(found) == []


def _module_graph() -> dict[str, set[str]]:
    """Module -> the ragauge modules it imports (at any depth of the file, TYPE_CHECKING blocks aside)."""
    modules = {".".join(p.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and getattr(node.test, "id", "") == "TYPE_CHECKING" for n in ast.walk(node)}
        found = set()
        for node in ast.walk(tree):
            if id(node) in typing_only or not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.add(name if name in modules else node.module)
        graph[module] = {m for m in found if m in modules and m != module}
    return graph


def test_no_two_modules_import_each_other_even_lazily() -> None:
    """A function-level import is still a dependency: no cycle of imports between modules."""
    graph = _module_graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


SCORING_EXCEPTIONS: dict[str, set[str]] = {
    # known_documents: a retriever that lists its documents, or a corpus, sets it; evaluate_run takes it
    "evaluate": {"known_documents"},
    # the rules name the metrics and cutoffs; a gate scores failed calls 0 and every question together
    "gate": {"metrics", "k", "on_error", "known_documents", "mix_synthetic"},
    "update_baseline": {"metrics", "k", "on_error", "known_documents", "mix_synthetic"},
    # both runs are files or results: failures already recorded; mixing is the runs' own setting
    "compare": {"on_error", "known_documents", "mix_synthetic"},
    "power": {"on_error", "known_documents", "mix_synthetic"},
}
"""Scoring options a verb does not take, and why (the rest of EvalOptions it must)."""


def test_every_scoring_verb_takes_the_evaluation_options() -> None:
    """The options threaded through the public verbs cannot drift from EvalOptions again (ragauge.evaluate
    once had no tokenizer while eval --retriever --tokenizer worked)."""
    import dataclasses
    import inspect

    from ragauge.evaluation.options import EvalOptions

    fields = {f.name for f in dataclasses.fields(EvalOptions)}
    drift = {}
    for verb, skipped in {"evaluate_run": set(), **SCORING_EXCEPTIONS}.items():
        missing = fields - set(inspect.signature(getattr(ragauge, verb)).parameters) - skipped
        if missing:
            drift[verb] = sorted(missing)
    assert drift == {}
