"""``cmd:COMMAND``: a process that reads the question on stdin and prints JSON hits.

Per call the command runs once (no shell); it gets the question on stdin and in
``RAGAUGE_QUERY``, the depth in ``RAGAUGE_K``, and prints a JSON list of hits (or
``{"hits": [...]}``) on stdout. ``spec``, ``describe()`` and every error message are redacted
(passwords in URLs or DSNs on the command line, and their values wherever the command's output
echoes them).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any

from ragauge.core.jsonl import loads
from ragauge.data.coerce import coerce_hits
from ragauge.errors import InputError, flag
from ragauge.redact import find_secrets, redact
from ragauge.retrieve.adapter import Adapter
from ragauge.retrieve.base import (
    Retrieved,
    RetrieverBase,
    RetrieverOptions,
    RetryableError,
)


class CommandRetriever(RetrieverBase):
    def __init__(self, spec: str, argv: list[str], options: RetrieverOptions) -> None:
        self.secrets = tuple(find_secrets(spec))
        self.spec = redact(spec, self.secrets)
        self.argv = argv
        self.options = options

    def _shown(self, text: str) -> str:
        return redact(text, self.secrets)

    def search(self, query: str, n: int) -> Retrieved:
        env = {**os.environ, "RAGAUGE_QUERY": query, "RAGAUGE_K": str(n)}
        try:
            done = subprocess.run(self.argv, input=query, capture_output=True, text=True, env=env,
                                  timeout=self.options.timeout, check=False)
        except FileNotFoundError:
            raise InputError(f"retriever command not found: {self._shown(self.argv[0])!r}",
                             hint="check the cmd: spec and PATH") from None
        except subprocess.TimeoutExpired:
            raise RetryableError(f"the command did not answer within {self.options.timeout:g} s") from None
        if done.returncode != 0:
            raise RuntimeError(f"the command exited with {done.returncode}: {self._shown(done.stderr.strip())[-300:]}")
        try:
            raw = loads(done.stdout)
        except ValueError as exc:  # not JSON, or NaN/Infinity, which are not JSON numbers
            raise InputError(f"the command printed something that is not JSON ({exc}): "
                             f"{self._shown(done.stdout)[:200]!r}",
                             hint="print a JSON list of hits, e.g. "
                                  "[\"doc-1\", {\"doc_id\": \"doc-2\", \"score\": 0.5}]") from None
        return Retrieved(coerce_hits(raw, self.options.doc_id_key))

    def describe(self) -> dict[str, Any]:
        return {"command": [self._shown(arg) for arg in self.argv]}


def open(spec: str, options: RetrieverOptions) -> CommandRetriever:  # noqa: A001
    try:
        argv = shlex.split(spec.partition(":")[2])
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise InputError(f"cannot split the cmd: retriever {redact(spec)!r} into words: {exc}",
                         hint="balance the quotes; quote an argument that holds spaces") from None
    if not argv:
        raise InputError("cmd: needs a command", hint="e.g. " + flag("retriever", "'cmd:python search.py'"))
    return CommandRetriever(spec, argv, options)


ADAPTER = Adapter(
    "cmd", ("cmd",), open,
    "runs COMMAND per question with the question on stdin (and in RAGAUGE_QUERY, the depth in RAGAUGE_K); it prints "
    "JSON hits",
    "cmd:python search.py")
