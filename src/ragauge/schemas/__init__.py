"""JSON Schemas (draft 2020-12) of every file format ragauge reads or writes, shipped with the package.

``schema("golden")`` is the schema of one golden-set line; JSON Lines formats (golden, candidates,
run, corpus, answers, judgements, autolabels, pool, baseline-history) have a schema per line, JSON formats
(result, baseline, sweep) per document, and TOML formats (config: ``ragauge.toml``; sweep-config: a
sweep file) per parsed document. Each file is ``ragauge/schemas/<name>.schema.json`` with ``$id``
``https://ragauge.dev/schemas/<name>.schema.json``. A schema holds the shape of a file; what spans
lines (unique ids, a header first) ragauge's readers check, and each schema's description names it.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from ragauge.errors import InputError

NAMES = ("golden", "candidates", "run", "corpus", "answers", "result", "baseline", "baseline-history", "pool",
         "judgements", "autolabels", "sweep", "sweep-config", "config")
"""Every schema, by the name ``schema`` takes."""


def schema(name: str) -> dict[str, Any]:
    """The schema called ``name`` (one of ``NAMES``) as a new dict; InputError for another name."""
    if name not in NAMES:
        raise InputError(f"no schema called {name!r}", hint=f"one of: {', '.join(NAMES)}")
    found: dict[str, Any] = json.loads(files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8"))
    return found
