"""Project configuration: ``ragauge.toml``, or ``[tool.ragauge]`` in ``pyproject.toml``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ragauge.errors import InputError


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise InputError("config file not found", where=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML: {exc}", where=str(path)) from None


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
