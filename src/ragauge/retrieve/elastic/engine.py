"""The Elasticsearch / OpenSearch retriever over plain HTTP (httpx), and how it reads the engines'
answers: hits, partial results, and errors turned into ones a user can act on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragauge.core.jsonl import loads
from ragauge.data.hits import Hit
from ragauge.errors import InputError, RagaugeError
from ragauge.models.embedders import DEFAULT_EMBEDDER, Embedder, canonical_name, get_embedder
from ragauge.redact import excerpt, redact
from ragauge.retrieve.base import Retrieved, RetrieverBase, RetrieverOptions, RetryableError
from ragauge.retrieve.elastic.body import search_request
from ragauge.retrieve.elastic.target import AUTH_ENV, Target

VECTOR_TYPES = {"elasticsearch": "dense_vector", "opensearch": "knn_vector"}
DIMS_KEY = {"elasticsearch": "dims", "opensearch": "dimension"}
NOT_TEXT = {"dense_vector", "knn_vector", "sparse_vector", "rank_features", "object", "nested"}
TEXT_TYPES = {"text", "match_only_text", "semantic_text", "search_as_you_type"}
"""The types listed as candidates when the text field is missing (a match query also runs on others)."""


class ElasticRetriever(RetrieverBase):
    """BM25, kNN or hybrid search on one Elasticsearch or OpenSearch index; thread-safe. Opening it
    checks the index and its fields (``GET /INDEX/_mapping/field/...``) so a wrong name fails at
    once, with the fields that exist, rather than as an empty result for every question."""

    def __init__(self, target: Target, options: RetrieverOptions) -> None:
        import httpx

        self.target, self.options = target, options
        self.spec = target.shown
        self._httpx = httpx
        self.client = httpx.Client(timeout=options.timeout, limits=httpx.Limits(max_connections=64,
                                                                               max_keepalive_connections=64))
        self.embedder: Embedder | None = None
        if target.mode != "bm25" and not target.model_id:
            self.embedder = get_embedder(target.embedder or DEFAULT_EMBEDDER)
        try:
            self._check_fields()
        except RetryableError as exc:  # nothing retries while opening: say what happened
            self.client.close()
            raise InputError(str(exc)) from None
        except RagaugeError:
            self.client.close()
            raise

    # -- HTTP ---------------------------------------------------------------------------------------

    def _request(self, method: str, path: str, params: Mapping[str, str] | None = None, body: Any = None) -> Any:
        """The decoded JSON answer of one request; InputError (fix it) or RetryableError (try again)
        otherwise, every message redacted of the credentials."""
        httpx = self._httpx
        headers = {"Authorization": self.target.auth.header} if self.target.auth.header else {}
        url = self.target.base + path
        try:
            response = self.client.request(method, url, params=params or None, json=body, headers=headers)
        except httpx.ConnectError as exc:
            raise RetryableError(self._redact(f"cannot connect to {self.target.name} at {self.target.base} ({exc}): "
                                              "is it running and the URL right?")) from None
        except httpx.TimeoutException:
            raise RetryableError(f"{self.target.who} did not answer within {self.options.timeout:g} s "
                                 "(raise --timeout?)") from None
        except httpx.TransportError as exc:
            raise RetryableError(self._redact(f"transport error talking to {self.target.who}: {exc}")) from None
        if response.status_code >= 400:
            raise self._error(response)
        try:
            return loads(response.content)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InputError(self._redact(f"{self.target.who} did not answer JSON ({exc}): "
                                          f"{self._excerpt(response.text, 200)!r}")) from None

    def _redact(self, text: str) -> str:
        return redact(text, self.target.auth.secrets)

    def _excerpt(self, text: str, limit: int) -> str:
        return excerpt(text, self.target.auth.secrets, limit)

    def _error(self, response: Any) -> Exception:
        status, who = response.status_code, self.target.who
        kind, reason = error_reason(response)
        said = self._excerpt(f"{status}" + (f" {kind}" if kind else "") + (f": {reason}" if reason else ""), 300)
        if status == 401:
            return InputError(f"{who}: authentication failed ({said})", hint=self._auth_hint())
        if status == 403:
            return InputError(f"{who}: permission denied ({said})",
                              hint="the user or API key needs the 'read' privilege on the index "
                                   "(and 'view_index_metadata' for the field check)")
        if status == 404 and kind == "index_not_found_exception":
            return InputError(f"{who}: the index does not exist ({said})",
                              hint="check the index name at the end of the URL (or ?index=); "
                                   "GET /_cat/indices lists them")
        if status == 429 or status >= 500:
            return RetryableError(f"{who} answered {said}")
        if status == 400:
            return InputError(f"{who}: the search was refused ({said})",
                              hint="check the field names, the mode and the options of the spec")
        return InputError(f"{who} answered {said}")

    def _auth_hint(self) -> str:
        key_var, user_var, password_var, _ = AUTH_ENV[self.target.engine]
        if self.target.auth.shown:
            return f"the credentials ({self.target.auth.shown}) were refused: check them"
        key = f"${key_var} (an encoded API key) or " if key_var else ""
        return f"the cluster needs credentials: set {key}${user_var} and ${password_var}"

    # -- the field check ----------------------------------------------------------------------------

    def _fields(self) -> list[tuple[str, str]]:
        """``(field, role)`` pairs the mode searches: role "text" or "vector"."""
        out = []
        if self.target.mode in ("bm25", "hybrid"):
            out.append((self.target.text_field, "text"))
        if self.target.mode in ("knn", "hybrid"):
            out.append((self.target.vector_field, "vector"))
        return out

    def _check_fields(self) -> None:
        target, fields = self.target, self._fields()
        names = ",".join(f for f, _ in fields)
        data = self._request("GET", f"/{target.index_path()}/_mapping/field/{names}")
        if not isinstance(data, Mapping) or not data:
            raise InputError(f"{target.who}: no index matches", hint="check the index name (or pattern) in the spec")
        for index, entry in data.items():
            mappings = entry.get("mappings", {}) if isinstance(entry, Mapping) else {}
            for field, role in fields:
                info = mappings.get(field) if isinstance(mappings, Mapping) else None
                leaf = _leaf(info, field)
                if leaf is None:
                    raise self._no_field(index, field, role)
                self._check_type(index, field, role, leaf)

    def _check_type(self, index: str, field: str, role: str, leaf: Mapping[str, Any]) -> None:
        target, kind = self.target, str(leaf.get("type", "object"))
        if role == "text" and kind in NOT_TEXT:
            raise InputError(f"{target.name} index {index!r}: field {field!r} is a {kind} field, not text",
                             hint="name the text field with ?text_field=")
        if role != "vector":
            return
        wanted = VECTOR_TYPES[target.engine]
        if kind != wanted:
            raise InputError(f"{target.name} index {index!r}: field {field!r} is a {kind} field, not a {wanted}",
                             hint="name the vector field with ?vector_field=")
        dims = leaf.get(DIMS_KEY[target.engine])
        if self.embedder is not None and isinstance(dims, int) and dims != self.embedder.dim:
            raise InputError(f"{target.name} index {index!r}: field {field!r} holds {dims}-dimension vectors but the "
                             f"{canonical_name(self.embedder.name)!r} embedder makes {self.embedder.dim}",
                             hint="query with the embedder the index was built with (?embedder=), or let the "
                                  "engine embed the question (?model_id=)")

    def _no_field(self, index: str, field: str, role: str) -> InputError:
        target = self.target
        wanted = {VECTOR_TYPES[target.engine]} if role == "vector" else None
        try:
            mapping = self._request("GET", f"/{target.index_path()}/_mapping")
            entry = mapping.get(index, {}) if isinstance(mapping, Mapping) else {}
            found = _flatten(entry.get("mappings", {}).get("properties", {}) if isinstance(entry, Mapping) else {})
            names = [n for n, t in found if t in (wanted or TEXT_TYPES)]
            listed = f" ({'vector' if role == 'vector' else 'text'} fields: {', '.join(names) or 'none'})"
        except (InputError, RetryableError):
            listed = ""
        option = "vector_field" if role == "vector" else "text_field"
        return InputError(f"{target.name} index {index!r} has no field {field!r}{listed}",
                          hint=f"name the field with ?{option}=")

    # -- search -------------------------------------------------------------------------------------

    def search(self, query: str, n: int) -> Retrieved:
        vector = None
        if self.embedder is not None:
            row = self.embedder.embed([query])[0]
            if not row.any():  # nothing to compare (no word the embedder knows): no neighbours
                if self.target.mode == "knn":
                    return Retrieved(hits=())
            vector = [float(x) for x in row]
        params, body = search_request(self.target, query, n, vector)
        data = self._request("POST", f"/{self.target.index_path()}/_search", params, body)
        return Retrieved(self._hits(data, n))

    def _hits(self, data: Any, n: int) -> tuple[Hit, ...]:
        target = self.target
        if not isinstance(data, Mapping) or not isinstance(data.get("hits"), Mapping):
            raise InputError(f"{target.who} did not answer a search response (no 'hits')")
        if data.get("timed_out") is True:
            raise RetryableError(f"{target.who}: the search timed out on the server, so its hits are partial")
        shards = data.get("_shards")
        shards = shards if isinstance(shards, Mapping) else {}
        failed = shards.get("failed", 0)
        if failed:
            raise RetryableError(self._redact(f"{target.who}: {failed} of {shards.get('total', '?')} shards failed "
                                              f"({self._excerpt(_shard_reason(shards), 300)}), so the hits are "
                                              "partial"))
        hits = data["hits"].get("hits")
        if not isinstance(hits, list):
            raise InputError(f"{target.who} answered 'hits' without a list of hits")
        out = []
        for rank, hit in enumerate(hits[:n], start=1):
            if not isinstance(hit, Mapping):
                raise InputError(f"{target.who}: hit {rank} is not an object")
            doc = self._value(hit, target.doc_id, rank)
            chunk = self._value(hit, target.chunk_id, rank) if target.chunk_id else None
            score = hit.get("_score")
            out.append(Hit(doc, chunk, float(score) if isinstance(score, (int, float)) and
                           not isinstance(score, bool) else None))
        return tuple(out)

    def _value(self, hit: Mapping[str, Any], field: str, rank: int) -> str:
        if field == "_id":
            value = hit.get("_id")
        else:
            value = hit.get("_source")
            for part in field.split("."):
                value = value.get(part) if isinstance(value, Mapping) else None
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            source = hit.get("_source")
            keys = ", ".join(repr(k) for k in source) if isinstance(source, Mapping) else "none returned"
            raise InputError(f"{self.target.who}: hit {rank} (_id {hit.get('_id')!r}) has no {field!r} in its _source "
                             f"(fields returned: {keys})", hint="name the field holding the document id with ?doc_id= "
                             "(?doc_id=_id takes the hit's _id)")
        return str(value)

    def describe(self) -> dict[str, Any]:
        t = self.target
        out: dict[str, Any] = {"engine": t.engine, "url": redact(t.base), "index": t.index, "mode": t.mode}
        if t.mode != "knn":
            out["text_field"] = t.text_field
        if t.mode != "bm25":
            out.update({"vector_field": t.vector_field, "k": t.k or "n"})
            if t.model_id:
                out["model_id"] = t.model_id
            else:
                out["embedder"] = canonical_name(self.embedder.name) if self.embedder else None
        for key in ("num_candidates", "ef_search", "rank_constant", "rank_window_size", "search_pipeline"):
            if getattr(t, key) is not None:
                out[key] = getattr(t, key)
        out.update({"doc_id": t.doc_id, "chunk_id": t.chunk_id, "auth": t.auth.shown})
        return out

    def close(self) -> None:
        self.client.close()


def error_reason(response: Any) -> tuple[str | None, str]:
    """``(type, reason)`` of an engine's error body: ``{"error": {"root_cause": [...], "type",
    "reason"}, "status"}``, a bare ``{"error": "..."}``, or any text (OpenSearch's security plugin
    answers a 401 with an empty body)."""
    try:
        data = loads(response.content) if response.content else None
    except (ValueError, UnicodeDecodeError):
        data = None
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, Mapping):
        kind, reason = error.get("type"), error.get("reason")
        causes = error.get("root_cause")
        if isinstance(causes, list) and causes and isinstance(causes[0], Mapping):
            root = causes[0]
            if root.get("reason") and root.get("reason") != reason:
                reason = f"{reason}; caused by {root.get('type')}: {root.get('reason')}" if reason else root["reason"]
        return (str(kind) if kind else None), str(reason or "")
    if isinstance(error, str):
        return None, error
    return None, (response.text or "").strip()  # cut by the caller, after redaction


def _shard_reason(shards: Mapping[str, Any]) -> str:
    failures = shards.get("failures")
    if isinstance(failures, list) and failures and isinstance(failures[0], Mapping):
        first = failures[0]
        reason = first.get("reason")
        if isinstance(reason, Mapping):
            text = f"{reason.get('type')}: {reason.get('reason')}"
        else:
            text = str(reason)
        return f"shard {first.get('shard')} of {first.get('index')!r}: {text}"  # cut after redaction
    return "no reason given"


def _leaf(info: Any, field: str) -> Mapping[str, Any] | None:
    """The mapping of ``field`` in a get-field-mapping entry ``{"full_name", "mapping": {LEAF: {...}}}``."""
    if not isinstance(info, Mapping):
        return None
    mapping = info.get("mapping")
    if not isinstance(mapping, Mapping) or not mapping:
        return None
    leaf = mapping.get(field.rsplit(".", 1)[-1], next(iter(mapping.values())))
    return leaf if isinstance(leaf, Mapping) else None


def _flatten(properties: Any, prefix: str = "") -> list[tuple[str, str]]:
    """``(dotted name, type)`` of every field in a mapping's ``properties`` (objects recursed)."""
    out: list[tuple[str, str]] = []
    if not isinstance(properties, Mapping):
        return out
    for name, spec in properties.items():
        if not isinstance(spec, Mapping):
            continue
        full = f"{prefix}{name}"
        if "properties" in spec:
            out += _flatten(spec["properties"], full + ".")
        else:
            out.append((full, str(spec.get("type", "object"))))
    return out
