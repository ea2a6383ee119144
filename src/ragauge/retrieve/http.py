"""``http://...`` / ``https://...``: your search service over HTTP.

By default: ``POST {"query": ..., "k": n}`` and read ``{"hits": [...]}`` or a bare list. A
``[retriever.http]`` table in ragauge.toml changes that::

    [retriever.http]
    method = "POST"                                   # or GET (the body becomes query parameters)
    headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }   # ${VAR}: from the environment
    body = { q = "{query}", top_k = "{k}", filter = { lang = "en" } }
    hits_path = "data.results"                        # dotted path to the list of hits

Header values are resolved from the environment at call time and never written to run files
or reports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ragauge.errors import InputError
from ragauge.retrieve.base import Retrieved, RetrieverBase, RetrieverOptions, RetryableError
from ragauge.retrieve.coerce import coerce_hits

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _env(value: str, spec: str) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in os.environ:
            raise InputError(f"environment variable {name} is not set (needed by a header of {spec})",
                             hint=f"export {name}=...")
        return os.environ[name]
    return _VAR.sub(sub, value)


def _fill(template: Any, query: str, k: int) -> Any:
    if isinstance(template, str):
        if template == "{k}":
            return k
        return template.replace("{query}", query).replace("{k}", str(k))
    if isinstance(template, Mapping):
        return {key: _fill(v, query, k) for key, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, query, k) for v in template]
    return template


def _dig(data: Any, path: str, spec: str) -> Any:
    for part in [p for p in path.split(".") if p]:
        if isinstance(data, Mapping) and part in data:
            data = data[part]
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            raise InputError(f"the response of {spec} has no {path!r}",
                             hint="set hits_path in the [retriever.http] table of ragauge.toml")
    return data


class HttpRetriever(RetrieverBase):
    def __init__(self, spec: str, options: RetrieverOptions) -> None:
        import httpx

        self.spec = spec
        self.options = options
        cfg = dict(options.config.get("http", options.config)) if options.config else {}
        self.method = str(cfg.get("method", "POST")).upper()
        self.header_templates = {str(k): str(v) for k, v in dict(cfg.get("headers", {})).items()}
        self.body = cfg.get("body", {"query": "{query}", "k": "{k}"})
        self.hits_path = str(cfg.get("hits_path", ""))
        self.client = httpx.Client(timeout=options.timeout, limits=httpx.Limits(max_connections=256,
                                                                               max_keepalive_connections=256))
        self._httpx = httpx

    def search(self, query: str, n: int) -> Retrieved:
        httpx = self._httpx
        headers = {k: _env(v, self.spec) for k, v in self.header_templates.items()}
        payload = _fill(self.body, query, n)
        try:
            if self.method == "GET":
                response = self.client.get(self.spec, params=payload, headers=headers)
            else:
                response = self.client.request(self.method, self.spec, json=payload, headers=headers)
        except httpx.ConnectError as exc:
            raise RetryableError(f"cannot connect to {self.spec} ({exc}): is the server running and the URL right?") from None
        except httpx.TimeoutException:
            raise RetryableError(f"{self.spec} did not answer within {self.options.timeout:g} s (raise --timeout?)") from None
        except httpx.TransportError as exc:
            raise RetryableError(f"transport error talking to {self.spec}: {exc}") from None
        status = response.status_code
        if status in (401, 403):
            raise InputError(f"{self.spec} answered {status} {response.reason_phrase}",
                             hint="check the credentials: headers come from [retriever.http] in ragauge.toml, "
                                  "with ${VAR} read from the environment")
        if status == 429 or status >= 500:
            raise RetryableError(f"{self.spec} answered {status} {response.reason_phrase}")
        if status >= 400:
            raise InputError(f"{self.spec} answered {status} {response.reason_phrase}: {response.text[:200]}",
                             hint="check the URL, the method and the body template")
        try:
            data = response.json()
        except ValueError:
            raise InputError(f"{self.spec} did not answer JSON: {response.text[:200]!r}") from None
        hits = _dig(data, self.hits_path, self.spec) if self.hits_path else data
        return Retrieved(coerce_hits(hits, self.options.doc_id_key), _cost(data))

    def describe(self) -> dict[str, Any]:
        return {"url": self.spec, "method": self.method, "headers": sorted(self.header_templates),
                "body": self.body, "hits_path": self.hits_path or None}

    def close(self) -> None:
        self.client.close()


def _cost(data: Any) -> float | None:
    value = data.get("cost") if isinstance(data, Mapping) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def open(spec: str, options: RetrieverOptions) -> HttpRetriever:  # noqa: A001
    return HttpRetriever(spec, options)
