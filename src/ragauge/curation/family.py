"""An assessor of the same model family as a system under test: the warning ``golden agreement --run`` gives.

**Why it matters.** An automatic assessor and a retriever (or reranker) built on the same model share its
blind spots: what the model misreads, both misread the same way. The retriever ranks a wrong document
high because the model scores it close to the question; the assessor, scoring with the same model,
calls that document relevant. Its labels then agree with the retriever's mistakes, so they flatter that
system (its metrics rise, a comparison leans its way), and a kappa measured against human labels does
not show it unless it was measured on that very system's top k.

**What is recognised**, from a run's ``_meta`` (the retriever spec and the settings ``ragauge run``
writes; a run without one cannot be checked, and the audit says so):

- *the same model*: the ``minilm`` assessor and a run whose settings name the bundled MiniLM's weights
  (their sha256); a ``cross-encoder:DIR`` assessor and a run whose reranker's ONNX file has the same
  sha256 (``onnx_sha256``); a ``python:module:function`` assessor and a run retrieved or reranked by the
  same function; an ``llm:`` assessor and a run whose settings name its model;
- *the same family*: a family name of :data:`FAMILIES` (``minilm``, ``bge``, ``qwen``, ...) both in
  what identifies the assessor's model (``minilm`` for ``minilm``; the model name of ``llm:``; the
  function of ``python:``) and in the model the run names: its settings' ``model``, ``weights``,
  ``embedder``, ``rerank`` and ``reranker`` values at any depth (a hybrid's sides, a reranker's first
  stage), the options of its retriever spec, or a retriever described in free text. A name is one
  word of the text (split at anything not a letter or digit), alone or followed by a version
  (``qwen2``, ``llama3``), so ``all-MiniLM-L6-v2`` and ``ms-marco-MiniLM-L-6-v2`` are both MiniLM,
  and a corpus path is never read. A cross-encoder assessor is known by its file's hash only: its
  family is not recognised, only the same model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ragauge.core.notes import LOUD

FAMILIES = ("minilm", "mpnet", "bge", "e5", "gte", "nomic", "jina", "arctic", "stella", "colbert", "splade", "t5",
            "monot5", "qwen", "llama", "mistral", "mixtral", "gemma", "phi", "gpt", "claude", "deepseek", "granite",
            "cohere", "voyage")
"""Model families recognised by name (module docstring)."""
MODEL_KEYS = ("model", "weights", "embedder", "rerank", "reranker")
"""The settings keys whose values name a model (at any depth of a run's settings)."""
_WORD = re.compile(r"[a-z0-9]+")


def families(text: str) -> set[str]:
    """The families of :data:`FAMILIES` that ``text`` names (module docstring)."""
    found = set()
    for word in _WORD.findall(text.lower()):
        for name in FAMILIES:
            if word == name or (word.startswith(name) and word[len(name)].isdigit()):
                found.add(name)
    return found


def _model_texts(settings: Any) -> Iterable[tuple[str, str]]:
    """``(key, text)`` for every model-naming value of ``settings`` (module docstring), at any depth."""
    if isinstance(settings, Mapping):
        for key, value in settings.items():
            if key in MODEL_KEYS and isinstance(value, (str, int, float)) and not isinstance(value, bool):
                yield str(key), str(value)
            elif key == "onnx_sha256" and isinstance(value, str):
                yield "onnx_sha256", value
            else:
                yield from _model_texts(value)
    elif isinstance(settings, list):
        for value in settings:
            yield from _model_texts(value)


def _spec_texts(retriever: Any) -> list[str]:
    """What a run's ``retriever`` text says of its model: a spec's options (and a python: spec whole),
    or the whole text when it is a description rather than a spec."""
    if not isinstance(retriever, str) or not retriever:
        return []
    scheme = re.match(r"^([a-z][a-z0-9+.-]*):", retriever)
    if scheme is None or " " in retriever.split("?", 1)[0]:
        return [retriever]
    if scheme.group(1) == "python":
        return [retriever.split("?", 1)[0], *retriever.split("?", 1)[1:]]
    return retriever.split("?", 1)[1:]


def shared_model(assessor: str, meta: Mapping[str, Any]) -> tuple[str, str] | None:
    """What the assessor ``NAME@VERSION`` shares with the run whose ``_meta`` is ``meta`` and the run's text
    that shows it: ``("model", text)`` or ``("model family (minilm)", text)``; None when nothing."""
    name, _, version = assessor.partition("@")
    models = list(_model_texts(meta.get("settings")))
    texts = [text for _, text in models] + _spec_texts(meta.get("retriever"))
    if name == "minilm":
        same = [t for t in texts if version and version in t]
        own = "minilm"
    elif name == "cross-encoder":
        same = [t for key, t in models if key == "onnx_sha256" and version and (t.startswith(version)
                                                                                   or version.startswith(t))]
        own = ""
    elif name == "python":
        function = version.split("#", 1)[0]
        same = [t for t in texts if function and function in t]
        own = function
    else:  # llm: MODEL/umbrela-HASH
        model = version.rsplit("/umbrela-", 1)[0]
        same = [t for t in texts if model and model in t]
        own = model
    if same:
        return "model", same[0]
    mine = families(own)
    for text in texts:
        shared = mine & families(text)
        if shared:
            return f"model family ({', '.join(sorted(shared))})", text
    return None


def family_warnings(assessor: str, runs: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[list[str], list[str]]:
    """For each ``(name, _meta)`` of the runs under test: a loud warning when the assessor shares its model
    or model family (:func:`shared_model`); and a note for each run with no ``_meta`` to read."""
    warnings, notes = [], []
    for name, meta in runs:
        if not meta or not (meta.get("retriever") or meta.get("settings")):
            notes.append(f"{name} records no retriever or settings ('_meta'): whether the assessor shares its "
                         "model could not be checked")
            continue
        shared = shared_model(assessor, meta)
        if shared is not None:
            warnings.append(f"{LOUD}the assessor {assessor} shares its {shared[0]} with the system under test in "
                            f"{name} ({shared[1]}): it shares that system's blind spots (a document the model "
                            "misreads as relevant, the system ranks high and the assessor calls relevant), so its "
                            "labels favour that system, and agreement with the human labels on other systems' "
                            "documents does not show it; grade with an assessor of another model family, or audit "
                            "it with human labels on this run's top k")
    return warnings, notes
