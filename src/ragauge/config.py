"""Project configuration: ``ragauge.toml``, or ``[tool.ragauge]`` in ``pyproject.toml``."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from ragauge.core.files import decode_utf8, read_input
from ragauge.errors import InputError, where


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    text = decode_utf8(read_input(path, "config"), path, "config")
    try:
        data: dict[str, Any] = tomllib.loads(text)
        return data
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+)", str(exc))
        raise InputError(f"invalid TOML: {exc}", where=where(path, int(found.group(1)) if found else None)) from None


def read_toml(path: Path) -> dict[str, Any]:
    """The whole TOML document at ``path`` (InputError naming the file, and the line of a syntax error)."""
    return _load_toml(path)


def key_line(path: Path, *keys: str) -> str:
    """``path:line`` of the line where the last of ``keys`` is set (a best effort for error
    messages: TOML parsers do not keep positions), or just ``path``."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return str(path)
    name = re.escape(keys[-1]) if keys else ""
    pattern = re.compile(rf"""(^|[{{,\s])["']?{name}["']?\s*=""")
    for number, line in enumerate(lines, start=1):
        if pattern.search(line):
            return where(path, number)
    return str(path)


def find_config(start: Path | None = None) -> Path | None:
    """``ragauge.toml`` in ``start`` (default: the working directory), else a ``pyproject.toml``
    there that has a ``[tool.ragauge]`` table."""
    folder = start or Path.cwd()
    if (folder / "ragauge.toml").is_file():
        return folder / "ragauge.toml"
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file() and "ragauge" in _load_toml(pyproject).get("tool", {}):
        return pyproject
    return None


def read_table(path: Path, name: str) -> dict[str, Any]:
    """The ``[name]`` table of a ragauge.toml (or ``[tool.ragauge.name]`` of a pyproject.toml)."""
    data = _load_toml(path)
    table = data.get("tool", {}).get("ragauge", {}) if path.name == "pyproject.toml" else data
    value = table.get(name, {})
    if not isinstance(value, dict):
        raise InputError(f"'{name}' must be a table", where=str(path))
    return value


def retriever_config(path: Path | None) -> dict[str, Any]:
    """The ``[retriever]`` table of ``path``, or of the ragauge.toml / pyproject.toml found in the
    working directory when ``path`` is None; {} when there is none."""
    found = path or find_config()
    return read_table(found, "retriever") if found else {}


def eval_grades(path: Path | None) -> str | None:
    """The ``grades`` mapping of the ``[eval]`` table of ``path``, or of the ragauge.toml /
    pyproject.toml found in the working directory when ``path`` is None; None when there is none.
    ``--grades`` on the command line wins over it."""
    found = path or find_config()
    if found is None:
        return None
    value = read_table(found, "eval").get("grades")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError("'eval.grades' must be a mapping like \"1:3,2:2,3:1,4:0,-1:0\"",
                         where=key_line(found, "grades"))
    return value


MLFLOW_KEYS = ("experiment", "tracking_uri", "run_name")
"""The keys of the ``[mlflow]`` table, each a non-empty string."""


def mlflow_settings(path: Path | None) -> dict[str, str] | None:
    """The ``[mlflow]`` table of ``path``, or of the ragauge.toml / pyproject.toml found in the
    working directory when ``path`` is None, as keywords of ``ragauge.log_mlflow``
    (``experiment``, ``tracking_uri``, ``run_name``); None when there is no such table (an empty
    table is ``{}``: log with MLflow's defaults). InputError for another key or a value that is not
    a non-empty string."""
    found = path or find_config()
    if found is None:
        return None
    data = _load_toml(found)
    table = data.get("tool", {}).get("ragauge", {}) if found.name == "pyproject.toml" else data
    if "mlflow" not in table:
        return None
    value = table["mlflow"]
    if not isinstance(value, dict):
        raise InputError("'mlflow' must be a table", where=key_line(found, "mlflow"),
                         hint='e.g. [mlflow] with experiment = "retrieval"')
    for name, setting in value.items():
        if name not in MLFLOW_KEYS:
            raise InputError(f"unknown key 'mlflow.{name}'", where=key_line(found, name),
                             hint=f"the [mlflow] table takes {', '.join(MLFLOW_KEYS)}")
        if not isinstance(setting, str) or not setting.strip():
            raise InputError(f"'mlflow.{name}' must be a non-empty string", where=key_line(found, name))
    return dict(value)
