"""LangChain, LlamaIndex and Haystack objects as ragauge retrievers.

An object is recognised by the modules of its class and base classes (``langchain_core``,
``langchain*``, ``llama_index``, ``haystack``), so detecting one never imports a framework: a
framework is imported only to use an object that came from it. Each framework is called the way it
documents, asked for the executor's depth ``n`` (see ``langchain``, ``llamaindex``, ``haystack``
beside this file), with the framework's scores kept and the document id read from a metadata key
(``--doc-id-key``, else each framework's defaults; an error lists the keys that exist).
"""

from __future__ import annotations

import importlib
from typing import Any

from ragauge.core.deadline import Deadline
from ragauge.retrieve.base import Retrieved, RetrieverBase, RetrieverOptions
from ragauge.retrieve.frameworks.common import Binding

FRAMEWORKS = {"langchain": "LangChain", "llamaindex": "LlamaIndex", "haystack": "Haystack"}
"""Framework key -> its name as users know it; the key names the module beside this file."""


def framework_of(obj: Any) -> str | None:
    """``"langchain"``, ``"llamaindex"`` or ``"haystack"`` when ``obj``'s class (or a base class)
    comes from that framework, else None. Reads ``__module__`` only: imports nothing."""
    if isinstance(obj, type):
        return None  # a class is not a retriever; a factory call may make one
    for cls in type(obj).__mro__:
        root = (getattr(cls, "__module__", "") or "").split(".", 1)[0]
        if root == "langchain" or root.startswith("langchain_"):
            return "langchain"
        if root == "llama_index":
            return "llamaindex"
        if root in ("haystack", "haystack_integrations"):
            return "haystack"
    return None


class FrameworkRetriever(RetrieverBase):
    """A framework object behind the retriever protocol. Each call runs within ``options.timeout``
    seconds in a daemon thread, like a ``python:`` function (an overrunning call is abandoned)."""

    def __init__(self, spec: str, obj: Any, framework: str, binding: Binding, options: RetrieverOptions) -> None:
        self.spec, self.obj, self.framework, self.binding, self.options = spec, obj, framework, binding, options
        self._deadline = Deadline(options.timeout, name=f"ragauge-{framework}")

    @property
    def abandoned(self) -> int:
        """Calls that overran the timeout and were left running."""
        return self._deadline.abandoned

    def search(self, query: str, n: int) -> Retrieved:
        return Retrieved(tuple(self._deadline.call(self.binding.search, query, n)))

    def describe(self) -> dict[str, Any]:
        return {"callable": self.spec.partition(":")[2], **self.binding.settings}

    def close(self) -> None:
        self._deadline.close()


def open_framework(spec: str, obj: Any, options: RetrieverOptions) -> FrameworkRetriever | None:
    """The retriever for a framework object, or None when ``obj`` is not from a known framework.
    InputError (with what would work, or an install hint) when it is one ragauge cannot use."""
    framework = framework_of(obj)
    if framework is None:
        return None
    module = importlib.import_module(f"ragauge.retrieve.frameworks.{framework}")
    binding: Binding = module.bind(obj, options)
    return FrameworkRetriever(spec, obj, framework, binding, options)
