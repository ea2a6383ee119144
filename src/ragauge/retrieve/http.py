"""``http://...`` / ``https://...``: your search service over HTTP.

By default: ``POST {"query": ..., "k": n}`` and read ``{"hits": [...]}`` or a bare list. A
``[retriever.http]`` table in ragauge.toml changes that::

    [retriever.http]
    method = "POST"                                   # or GET (the body becomes query parameters)
    headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }   # ${VAR}: from the environment
    body = { q = "{query}", top_k = "{k}", filter = { lang = "en" } }
    hits_path = "data.results"                        # dotted path to the list of hits

Header values are resolved from the environment at call time and never written to run files
or reports. ``spec`` is the URL with its secrets hidden (``user:pass@``, ``?api_key=``); every
error message is redacted with the URL's secrets, the expanded ``${VAR}`` values and the values
of headers whose name looks secret (``Authorization``, ``X-Api-Key``), so a server's 4xx body
that quotes the key shows ``***``.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from ragauge.core.jsonl import loads
from ragauge.data.coerce import coerce_hits
from ragauge.errors import InputError
from ragauge.redact import SECRET_NAME, excerpt, redact, url_secrets
from ragauge.retrieve.adapter import Adapter
from ragauge.retrieve.base import (
    Retrieved,
    RetrieverBase,
    RetrieverOptions,
    RetryableError,
)

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _env(value: str, spec: str, found: list[str]) -> str:
    """``value`` with each ``${VAR}`` replaced from the environment; the values go to ``found``."""
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in os.environ:
            raise InputError(f"environment variable {name} is not set (needed by a header of {spec})",
                             hint=f"export {name}=...")
        found.append(os.environ[name])
        return os.environ[name]
    return _VAR.sub(sub, value)


_PLACEHOLDER = re.compile(r"\{query\}|\{k\}")


def compile_body(template: Any) -> Callable[[str, int], Any]:
    """The body template as a function ``(query, k) -> body``, walked once (each call then only fills
    it in). A string that is exactly ``"{k}"`` becomes the number k; in any other string ``{query}``
    and ``{k}`` are replaced in one pass, so a question that itself holds ``{k}`` or ``{query}`` is
    sent as written. Mappings and lists are rebuilt for every call; other values are sent as they are."""
    if isinstance(template, str):
        if template == "{k}":
            return lambda query, k: k
        if not _PLACEHOLDER.search(template):
            return lambda query, k: template
        return lambda query, k: _PLACEHOLDER.sub(lambda m: query if m.group() == "{query}" else str(k), template)
    if isinstance(template, Mapping):
        items = [(key, compile_body(value)) for key, value in template.items()]
        return lambda query, k: {key: fill(query, k) for key, fill in items}
    if isinstance(template, list):
        fills = [compile_body(value) for value in template]
        return lambda query, k: [fill(query, k) for fill in fills]
    return lambda query, k: template


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
        self.url = spec
        self.spec = redact(spec)
        self.options = options
        cfg = _http_config(options.config)
        self.method = cfg.get("method", "POST").upper()
        self.header_templates = dict(cfg.get("headers", {}))
        self.body = cfg.get("body", {"query": "{query}", "k": "{k}"})
        self._fill = compile_body(self.body)
        self.hits_path = cfg.get("hits_path", "")
        self._client: Any = None  # httpx, opened by the first search (the executor uses asearch only)
        self._client_lock = threading.Lock()
        self._url_secrets = url_secrets(spec)
        self._session: Any = None  # aiohttp, opened by the first asearch in the executor's event loop
        self._target: tuple[Any, str | None] | None = None  # _target(url), made by the first asearch

    def _headers(self) -> tuple[dict[str, str], list[str]]:
        """This call's headers (``${VAR}`` from the environment, read now) and every secret a
        message must not show: the URL's, the expanded variables, secret-named headers' values."""
        secrets = list(self._url_secrets)
        headers: dict[str, str] = {}
        for name, template in self.header_templates.items():
            headers[name] = _env(template, self.spec, secrets)
            if re.fullmatch(SECRET_NAME, name, flags=re.IGNORECASE):
                secrets.append(headers[name])
        return headers, secrets

    def search(self, query: str, n: int) -> Retrieved:
        import httpx

        headers, secrets = self._headers()
        payload = self._fill(query, n)
        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self.options.timeout, limits=httpx.Limits(
                    max_connections=256, max_keepalive_connections=256))
        try:
            try:
                if self.method == "GET":
                    response = self._client.get(self.url, params=payload, headers=headers)
                else:
                    response = self._client.request(self.method, self.url, json=payload, headers=headers)
            except httpx.ConnectError as exc:
                raise self._unreachable(exc) from None
            except httpx.TimeoutException:
                raise self._too_slow() from None
            except httpx.TransportError as exc:
                raise RetryableError(f"transport error talking to {self.spec}: {exc}") from None
            return self._answer(response.status_code, response.reason_phrase, response.content, secrets)
        except (InputError, RetryableError) as exc:
            raise _redacted(exc, secrets) from None

    async def asearch(self, query: str, n: int) -> Retrieved:
        """``search`` on aiohttp, for the executor's event loop: the same request, errors and
        answer (``_answer``). Many calls in flight cost little CPU here, where threads with a
        blocking client spend milliseconds of GIL per call (issue 17: 5x faster at 64 in flight)."""
        import aiohttp

        headers, secrets = self._headers()
        payload = self._fill(query, n)
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.options.timeout),
                connector=aiohttp.TCPConnector(limit=256))
        if self._target is None:
            self._target = _target(self.url)
        target, basic = self._target
        if basic is not None and not any(name.lower() == "authorization" for name in headers):
            headers = {**headers, "Authorization": basic}
        try:
            try:
                kwargs = {"params": _query_params(payload)} if self.method == "GET" else {"json": payload}
                async with self._session.request(self.method, target, headers=headers, **kwargs) as response:
                    body = await response.read()
                    return self._answer(response.status, response.reason or "", body, secrets)
            except aiohttp.ClientConnectorError as exc:
                raise self._unreachable(exc) from None
            except TimeoutError:
                raise self._too_slow() from None
            except aiohttp.ClientError as exc:
                raise RetryableError(f"transport error talking to {self.spec}: {exc}") from None
        except (InputError, RetryableError) as exc:
            raise _redacted(exc, secrets) from None

    def _unreachable(self, exc: BaseException) -> RetryableError:
        return RetryableError(f"cannot connect to {self.spec} ({exc}): is the server running and the URL right?")

    def _too_slow(self) -> RetryableError:
        return RetryableError(f"{self.spec} did not answer within {self.options.timeout:g} s (raise --timeout?)")

    def _answer(self, status: int, reason: str, content: bytes, secrets: list[str]) -> Retrieved:
        """The hits of one response, or the error its status or body means (one home for both
        transports)."""
        if status in (401, 403):
            raise InputError(f"{self.spec} answered {status} {reason}: {_body(content, secrets)}",
                             hint="check the credentials: headers come from [retriever.http] in ragauge.toml, "
                                  "with ${VAR} read from the environment")
        if status == 429 or status >= 500:
            raise RetryableError(f"{self.spec} answered {status} {reason}")
        if status >= 400:
            raise InputError(f"{self.spec} answered {status} {reason}: {_body(content, secrets)}",
                             hint="check the URL, the method and the body template")
        try:
            data = loads(content)
        except (ValueError, UnicodeDecodeError) as exc:  # NaN and Infinity are not JSON either
            raise InputError(f"{self.spec} did not answer JSON ({exc}): {_body(content, secrets)!r}") from None
        hits = _dig(data, self.hits_path, self.spec) if self.hits_path else data
        return Retrieved(coerce_hits(hits, self.options.doc_id_key), _cost(data))

    def describe(self) -> dict[str, Any]:
        return {"url": self.spec, "method": self.method, "headers": sorted(self.header_templates),
                "body": self.body, "hits_path": self.hits_path or None}

    async def aclose(self) -> None:
        """Close the aiohttp session (from the event loop that used it)."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def _target(url: str) -> tuple[Any, str | None]:
    """The URL (as given, percent-escapes kept) without its ``user:password@`` part, and that part
    as a Basic ``Authorization`` value in UTF-8, as httpx sends it (aiohttp would encode a URL's
    credentials in Latin-1 and fail on any other character)."""
    import base64

    import yarl

    parsed = yarl.URL(url, encoded=True)
    if parsed.user is None:
        return parsed, None
    pair = f"{parsed.user}:{parsed.password or ''}".encode()
    return parsed.with_user(None), "Basic " + base64.b64encode(pair).decode("ascii")


def _query_params(payload: Any) -> list[tuple[str, str]]:
    """A GET body as query parameters, encoded as httpx encodes ``params``: true/false for booleans,
    "" for None, a list as the key repeated, other values as text."""
    out: list[tuple[str, str]] = []
    for key, value in (payload.items() if isinstance(payload, Mapping) else ()):
        for item in value if isinstance(value, (list, tuple)) else [value]:
            text = ("true" if item else "false") if isinstance(item, bool) else "" if item is None else str(item)
            out.append((str(key), text))
    return out


def _body(content: bytes, secrets: list[str]) -> str:
    """The start of a response body for a message: redacted first, THEN cut to 200 characters
    (cut first, a key straddling the cut would leave its start behind)."""
    return excerpt(content.decode("utf-8", "replace"), secrets, 200)


def _redacted(exc: InputError | RetryableError, secrets: list[str]) -> InputError | RetryableError:
    if isinstance(exc, InputError):
        return InputError(redact(exc.message, secrets), where=exc.where,
                          hint=None if exc.hint is None else redact(exc.hint, secrets))
    return RetryableError(redact(str(exc), secrets))


def _cost(data: Any) -> float | None:
    value = data.get("cost") if isinstance(data, Mapping) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def open(spec: str, options: RetrieverOptions) -> HttpRetriever:  # noqa: A001
    return HttpRetriever(spec, options)


_HTTP_KEYS = {"method": str, "headers": dict, "body": dict, "hits_path": str}


def _http_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The ``[retriever.http]`` table, each setting of the right type (InputError naming it)."""
    cfg = config.get("http", config) if config else {}
    if not isinstance(cfg, Mapping):
        raise InputError("[retriever.http] must be a table", hint='e.g. [retriever.http]\nmethod = "POST"')
    out: dict[str, Any] = {}
    for key, value in cfg.items():
        kind = _HTTP_KEYS.get(key)
        if kind is None:
            continue  # other [retriever] settings belong to other adapters
        if not isinstance(value, kind) or (key == "headers" and not all(isinstance(v, str) for v in value.values())):
            want = "a table of strings" if key == "headers" else "a table" if kind is dict else "a string"
            raise InputError(f"[retriever.http] {key} must be {want}, got {value!r}",
                             hint='e.g. headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }')
        out[key] = value
    if out.get("method", "POST").upper() not in ("GET", "POST", "PUT"):
        raise InputError(f"[retriever.http] method must be GET, POST or PUT, got {out['method']!r}")
    return out


ADAPTER = Adapter(
    "http", ("http", "https"), open,
    'POST {"query": ..., "k": n} to the URL, reading {"hits": [...]} or a bare list; method, headers (${VAR} from '
    "the environment, never written to run files), body template and the hits' JSON path in a [retriever.http] "
    "table of ragauge.toml",
    "https://search.internal/api/search")
