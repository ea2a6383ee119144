"""Automatic relevance assessors: ``minilm``, ``cross-encoder:DIR``, ``llm:URL``, ``python:module:function``.

An assessor scores (question, document) pairs; ``golden assess`` turns the scores into grades by a
calibration fitted on the human labels (:mod:`ragauge.curation.calibration`). Each has an identity,
``NAME@VERSION``, that every label it writes records, and a ``prompt``, the text of what it is asked
(hashed into each pair's cache key, so a changed prompt or model never reuses an old score):

- ``minilm``: the cosine of the bundled all-MiniLM-L6-v2's embeddings (``ragauge[dense]``, offline) of
  the question and of the document as ``dense:`` indexes it (title, a space, text). VERSION: the
  model file's sha256 (12 hex digits). Scores in [-1, 1].
- ``cross-encoder:DIR``: the logit of a local ONNX cross-encoder, as ``rerank=cross-encoder:DIR``
  computes it (:mod:`ragauge.models.cross_encoder`). VERSION: the ONNX file's sha256 (16 hex digits).
- ``llm:URL``: an OpenAI-compatible chat endpoint (:mod:`ragauge.llm.chat`; the key from the
  environment variable ``api_key_env``, default ``RAGAUGE_ASSESS_API_KEY``, never written anywhere)
  asked, one pair per call at temperature 0, the UMBRELA-style prompt :data:`UMBRELA` (Upadhyay et
  al., 2024: the 0-3 scale of Thomas et al.'s Bing assessor prompt, the intent / match /
  trustworthiness steps, a ``##final score: N`` line). The score is the grade 0-3 the reply gives
  (:func:`read_grade`); a reply without one is an InputError. Without human labels it maps 0-1 to
  grade 0 and 2-3 to grade 1 (TREC's passage relevance level 2). VERSION: the model name and the
  prompt's hash.
- ``python:module:function``: ``function(query, documents) -> one score per document`` (the
  ``rerank=python:`` contract, :mod:`ragauge.models.python_models`). VERSION: the sha256 of the
  function's source file.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.curation import ASSESS_KEY_ENV as ASSESS_KEY_ENV
from ragauge.errors import InputError, flag
from ragauge.formats.autolabels import SCHEMES, Calibration

if TYPE_CHECKING:
    import numpy as np

ASSESSOR = "the assessor"
MAX_CHARS = 6000
"""Characters of a document's text sent to an LLM assessor (the rest is cut)."""

UMBRELA = """Given a query and a passage, you must provide a score on an integer scale of 0 to 3 with the \
following meanings:
0 = the passage has nothing to do with the query,
1 = the passage seems related to the query but does not answer it,
2 = the passage has some answer for the query, but the answer may be a bit unclear, or hidden amongst \
extraneous information,
3 = the passage is dedicated to the query and contains the exact answer.

Important instruction: assign category 1 if the passage is somewhat related to the topic but not completely, \
category 2 if the passage presents something very important related to the entire topic but also has some extra \
information, and category 3 if the passage only and entirely refers to the topic. If none of the above \
satisfies, give it category 0.

Query: {query}
Passage: {passage}

Split this problem into steps:
Consider the underlying intent of the search.
Measure how well the content matches a likely intent of the query (M).
Measure how trustworthy the passage is (T).
Consider the aspects above and the relative importance of each, and decide on a final score (O). The final \
score must be an integer value only.
Do not provide any code in the result. Provide the final score in the format: ##final score: score"""
"""The ``llm:`` assessor's prompt (module docstring); ``{query}`` and ``{passage}`` are filled in."""
_FINAL = re.compile(r"#+\s*final\s+score\s*[:=]?\s*\**\s*([0-3])\b", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def read_grade(reply: str | None) -> int | None:
    """The 0-3 grade of an ``llm:`` reply: the last ``##final score: N`` (any case, ``#`` count or
    emphasis), else a reply that is a single digit 0-3 and nothing else; a ``<think>`` block is
    ignored. None when the reply gives no grade."""
    if reply is None:
        return None
    text = _THINK.sub("", reply).strip()
    found = _FINAL.findall(text)
    if found:
        return int(found[-1])
    bare = text.strip("*`'\". \n")
    return int(bare) if bare in ("0", "1", "2", "3") else None


@dataclass
class Cost:
    """What scoring cost: model calls made, calls that failed, seconds, characters sent and received."""

    calls: int = 0
    failed: int = 0
    seconds: float = 0.0
    sent: int = 0
    received: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "failed": self.failed, "seconds": round(self.seconds, 3),
                "chars_sent": self.sent, "chars_received": self.received}


@dataclass
class Assessor:
    """An assessor (module docstring): ``scores(query, texts, names)`` gives one score per document
    text, NaN where a call failed (``llm:`` only). ``name`` is its scheme, ``version`` what identifies
    its behaviour, ``prompt`` the text hashed into the cache key, ``default`` the calibration used when
    no human label exists (None: it needs human labels)."""

    name: str
    version: str
    prompt: str
    model: Any
    default: Calibration | None = None
    cost: Cost = field(default_factory=Cost)
    endpoint: str | None = None

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def key(self, query: str, text: str) -> str:
        """The cache key of a pair: sha256 of (assessor id, prompt, question, document text)."""
        h = hashlib.sha256()
        for part in (self.id, self.prompt, query, text):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        return h.hexdigest()[:32]

    def scores(self, query: str, texts: Sequence[str], names: Sequence[str]) -> np.ndarray:
        import numpy as np

        start = time.perf_counter()
        try:
            if self.name == "llm":
                return self._llm(query, texts, names)
            self.cost.calls += 1
            self.cost.sent += len(query) + sum(len(t) for t in texts)
            if self.name == "minilm":
                return self._minilm(query, texts)
            return np.asarray(self.model.scores(query, list(texts), list(names)), dtype=np.float64)
        finally:
            self.cost.seconds += time.perf_counter() - start

    def _minilm(self, query: str, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        vectors = self.model.embed([query, *texts])
        return np.asarray(vectors[1:].astype(np.float64) @ vectors[0].astype(np.float64))

    def _llm(self, query: str, texts: Sequence[str], names: Sequence[str]) -> np.ndarray:
        import numpy as np

        from ragauge.llm.chat import give_up

        client = self.model
        out = np.full(len(texts), np.nan)
        for i, text in enumerate(texts):
            prompt = UMBRELA.format(query=query, passage=text[:MAX_CHARS])
            self.cost.calls += 1
            self.cost.sent += len(prompt)
            reply = client.complete([{"role": "user", "content": prompt}])
            if reply.failed:
                self.cost.failed += 1
                give_up(self.cost.calls, self.cost.failed, reply.error or "", ASSESSOR)
                continue
            self.cost.received += len(reply.text or "")
            grade = read_grade(reply.text)
            if grade is None:
                from ragauge.redact import excerpt

                shown = excerpt(client.hide(reply.text or ""), limit=160)
                raise InputError(f"{ASSESSOR} at {self.endpoint} gave no grade for document {names[i]!r} of question "
                                 f"{query[:80]!r}: it replied {shown!r}",
                                 where=self.endpoint,
                                 hint="use a model that follows the prompt's '##final score: N' line (an "
                                      "instruction-tuned model); the pairs graded so far are cached, so a re-run "
                                      "resumes")
            out[i] = float(grade)
        return out

    def close(self) -> None:
        if self.name == "llm":
            self.model.close()


def _prompt_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def open_assessor(spec: str, *, model: str | None = None, api_key_env: str = ASSESS_KEY_ENV,
                  timeout: float | None = None, retries: int | None = None) -> Assessor:
    """The assessor a spec names (module docstring). ``model``, ``api_key_env``, ``timeout`` and
    ``retries`` are the ``llm:`` assessor's (refused with another). Loads the model now."""
    hint = "one of: minilm, cross-encoder:DIR, llm:URL (with a model), python:module:function"
    if not isinstance(spec, str) or not spec.strip():
        raise InputError("name an assessor", hint=hint)
    spec = spec.strip()
    scheme, _, rest = spec.partition(":")
    if scheme not in SCHEMES:
        raise InputError(f"unknown assessor {spec!r}", hint=hint)
    if scheme != "llm" and model is not None:
        raise InputError(f"{flag('model')} is the llm: assessor's; {scheme} takes none", hint=hint)
    if scheme == "minilm":
        if rest:
            raise InputError(f"the minilm assessor takes no argument, got {spec!r}", hint="--assessor minilm")
        from ragauge.models.embedders import get_embedder
        from ragauge.models.minilm import MODEL_ID, MODEL_SHA256

        return Assessor("minilm", MODEL_SHA256[:12], f"cosine({MODEL_ID}: question, title + ' ' + text)",
                        get_embedder("minilm"))
    if not rest:
        raise InputError(f"the {scheme} assessor needs its argument: {scheme}:...", hint=hint)
    if scheme == "cross-encoder":
        from ragauge.models.cross_encoder import CrossEncoder

        encoder = CrossEncoder(Path(rest))
        return Assessor("cross-encoder", encoder.sha256[:16], "logit(question, title + ' ' + text)", encoder)
    if scheme == "python":
        from ragauge.models.python_models import PythonReranker

        reranker = PythonReranker(rest)
        source = (reranker.source or "unknown-source").removeprefix("sha256:")[:16]
        return Assessor("python", f"{rest}#{source}", "function(question, [title + ' ' + text])", reranker)
    return _llm(rest, model, api_key_env, timeout, retries)


def _llm(url: str, model: str | None, api_key_env: str, timeout: float | None, retries: int | None) -> Assessor:
    from ragauge.llm import CALL_RETRIES, CALL_TIMEOUT
    from ragauge.llm.chat import ChatClient, ChatEndpoint
    from ragauge.redact import redact

    if not model:
        raise InputError("the llm: assessor needs a model name", hint=f"add {flag('model', 'NAME')}, e.g. qwen2.5-7b")
    endpoint = ChatEndpoint(url, model, api_key_env, CALL_TIMEOUT if timeout is None else timeout,
                            CALL_RETRIES if retries is None else retries, who=ASSESSOR, flag="--assessor llm:URL",
                            model_flag="--model")
    client = ChatClient(endpoint)
    default = Calibration((2.0,), (0, 1))
    return Assessor("llm", f"{model}/umbrela-{_prompt_hash(UMBRELA)}", UMBRELA, client, default,
                    endpoint=redact(endpoint.url))
