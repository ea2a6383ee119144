"""The keys results are logged under, in a tracker that allows few characters in a key.

MLflow takes metric and parameter keys of at most 250 characters made of letters, digits, ``_``,
``-``, ``.``, ``/`` and spaces, and refuses a key whose ``/`` make a path that resolves to another
one (``a//b``, ``a/../b``). ragauge maps every name it logs, deterministically:

- a metric spec's ``@`` becomes ``_at_``: ``hit@5`` -> ``hit_at_5``, ``recall@2000t`` ->
  ``recall_at_2000t``, ``mrr`` stays ``mrr`` (metric names are ASCII identifiers: the registry's);
- in any other name (a tag, a setting), each character outside ASCII letters, digits, ``_ - . /``
  and space becomes ``_``, and the name gets ``-`` and the first 8 hex digits of the SHA-256 of its
  UTF-8 text, so two names that differ only there stay apart: ``café`` -> ``caf_-850f7dc4``;
  a name that needs no change keeps its text (``billing``, ``exact-term``, ``EU/billing``);
- the parts of a key join with ``.``: ``tag.billing.hit_at_5``, ``diff.ndcg_at_10`` (a metric spec
  holds no ``.``, so the last part is the metric); when the key's ``/`` would resolve to another
  path, they become ``_`` as above (with the hash);
- a key longer than 250 characters is cut to 241 and given ``-`` and the hash of the whole key.

Parameter values longer than MLflow's 6,000 characters are cut to 5,997 and end in ``...``.
"""

from __future__ import annotations

import hashlib
import posixpath
import re

MAX_KEY = 250
"""MLflow's longest metric, parameter or tag key."""
MAX_VALUE = 6000
"""MLflow's longest parameter value."""

_OUTSIDE = re.compile(r"[^A-Za-z0-9_\-. /]")
_OUTSIDE_NO_SLASH = re.compile(r"[^A-Za-z0-9_\-. ]")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def metric_part(spec: str) -> str:
    """A metric spec as a key part: ``hit@5`` -> ``hit_at_5`` (then :func:`part`'s rule)."""
    return part(spec.replace("@", "_at_"))


def part(name: str, *, slash: bool = True) -> str:
    """``name`` unchanged when it holds only ASCII letters, digits, ``_ - . /`` and spaces (and no
    ``/`` with ``slash=False``); otherwise each other character as ``_`` and ``-`` plus 8 hex digits
    of the name's SHA-256 appended."""
    outside = _OUTSIDE if slash else _OUTSIDE_NO_SLASH
    if not outside.search(name) and name:
        return name
    return f"{outside.sub('_', name)}-{_digest(name)}"


def key(*parts: str, metric: str | None = None) -> str:
    """The key of ``parts`` (each mapped by :func:`part`) followed by ``metric`` (a metric spec,
    mapped by :func:`metric_part`), joined with ``.``; within MLflow's rules (module docstring)."""
    tail = [metric_part(metric)] if metric is not None else []
    text = ".".join([*(part(p) for p in parts), *tail])
    if "/" in text and (posixpath.normpath(text) != text or text.startswith("/")):
        text = ".".join([*(part(p, slash=False) for p in parts), *tail])
    if len(text) > MAX_KEY:
        text = f"{text[:MAX_KEY - 9]}-{_digest(text)}"
    return text


def value(text: str) -> str:
    """A parameter value within MLflow's length: cut to 5,997 characters and ``...`` when longer."""
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 3] + "..."
