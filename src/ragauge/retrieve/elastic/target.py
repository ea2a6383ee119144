"""An ``elasticsearch:`` / ``opensearch:`` spec parsed into the base URL, the index and the search
settings; the credentials come from the environment only."""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from ragauge.core.numbers import Range
from ragauge.errors import InputError
from ragauge.redact import SECRET_NAME, redact
from ragauge.retrieve.base import RetrieverOptions, spec_number, split_spec

ENGINES = {"elasticsearch": "Elasticsearch", "opensearch": "OpenSearch"}
MODES = ("bm25", "knn", "hybrid")
KNN_K = Range(1, 10_000, integer=True)
"""Both engines cap k and num_candidates at 10,000."""
RANK = Range(1, integer=True)
OPTIONS = {"index", "mode", "text_field", "vector_field", "doc_id", "chunk_id", "k", "num_candidates", "ef_search",
           "embedder", "model_id", "rank_constant", "rank_window_size", "search_pipeline", "api_key_env",
           "username_env", "password_env"}
ENGINE_ONLY = {"num_candidates": "elasticsearch", "rank_constant": "elasticsearch", "rank_window_size": "elasticsearch",
               "api_key_env": "elasticsearch", "ef_search": "opensearch", "search_pipeline": "opensearch"}
AUTH_ENV = {"elasticsearch": ("ELASTIC_API_KEY", "ELASTIC_USERNAME", "ELASTIC_PASSWORD", "elastic"),
            "opensearch": ("", "OPENSEARCH_USERNAME", "OPENSEARCH_PASSWORD", "admin")}
"""Per engine: the API key variable (Elasticsearch only; the encoded key, or the raw ``id:api_key``
pair, which is encoded), the user and password variables, and the user name taken when only the
password is set (the engine's built-in superuser)."""


@dataclass(frozen=True)
class Auth:
    """The ``Authorization`` header value, how it was made (for describe(), never the secret) and
    the secret values to hide in every message."""

    header: str | None
    shown: str | None
    secrets: tuple[str, ...]


@dataclass(frozen=True)
class Target:
    """A parsed spec. ``base`` is the URL before the index (a proxy prefix kept); ``k`` is None for
    "the run's depth"; ``doc_id`` is ``_id`` (the hit's id) or a ``_source`` field (dotted path)."""

    engine: str
    base: str
    index: str
    mode: str
    text_field: str
    vector_field: str
    doc_id: str
    chunk_id: str | None
    k: int | None
    num_candidates: int | None
    ef_search: int | None
    embedder: str | None
    model_id: str | None
    rank_constant: int | None
    rank_window_size: int | None
    search_pipeline: str | None
    auth: Auth
    shown: str

    @property
    def name(self) -> str:
        return ENGINES[self.engine]

    @property
    def who(self) -> str:
        """How messages name the target: ``Elasticsearch http://host:9200 index 'docs'``."""
        return f"{self.name} {self.base} index {self.index!r}"

    def index_path(self) -> str:
        return quote(self.index, safe=",*")


def parse_target(spec: str, options: RetrieverOptions | None = None,
                 environ: Mapping[str, str] | None = None) -> Target:
    """Split ``spec`` (see ``ragauge.retrieve.elastic``) into a Target; settings come from
    ragauge.toml's ``[retriever.elasticsearch]`` / ``[retriever.opensearch]``, then the spec.
    InputError for a URL holding credentials, an unknown option or mode, a missing index."""
    engine, rest, params = split_spec(spec)
    shown_spec = redact(spec)
    if engine not in ENGINES:
        raise InputError(f"not an elasticsearch: or opensearch: spec: {shown_spec!r}")
    url = rest
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"{ENGINES[engine]} needs an http:// or https:// URL, got {redact(url)!r}",
                         hint=f"e.g. {engine}:http://localhost:9200/INDEX?mode=bm25&text_field=text")
    key_var, user_var, password_var, _ = AUTH_ENV[engine]
    secret_options = [k for k in params if k not in OPTIONS and re.fullmatch(SECRET_NAME, k, flags=re.IGNORECASE)]
    if parts.username or parts.password or secret_options:
        raise InputError(f"the {ENGINES[engine]} spec {shown_spec!r} holds credentials; ragauge reads them only from "
                         "the environment", hint=_auth_hint(engine))
    settings: dict[str, str] = {}
    config = options.config if options else {}
    section = config.get(engine, {}) if isinstance(config, Mapping) else {}
    if isinstance(section, Mapping):
        settings.update({k: str(v) for k, v in section.items() if k in OPTIONS})
    unknown = sorted(set(params) - OPTIONS)
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)} in {shown_spec!r}",
                         hint="options: " + ", ".join(sorted(o for o in OPTIONS
                                                             if ENGINE_ONLY.get(o, engine) == engine)))
    settings.update(params)
    for key in settings:
        owner = ENGINE_ONLY.get(key)
        if owner is not None and owner != engine:
            raise InputError(f"option {key} is for {ENGINES[owner]}, not {ENGINES[engine]} ({shown_spec!r})",
                             hint=_engine_hint(engine, key))
    path = parts.path.rstrip("/")
    index = settings.get("index") or unquote(path.rpartition("/")[2])
    if not index:
        raise InputError(f"no index in {shown_spec!r}", hint=f"name it at the end of the URL: {engine}:"
                         f"{parts.scheme}://{parts.netloc}/INDEX (or ?index=)")
    base_path = path if settings.get("index") else path.rpartition("/")[0]
    base = urlunsplit((parts.scheme, parts.netloc, base_path, "", ""))
    mode = settings.get("mode", "bm25")
    if mode not in MODES:
        raise InputError(f"mode={mode!r} in {shown_spec!r} is not one of {', '.join(MODES)}")
    if mode == "hybrid" and engine == "opensearch" and not settings.get("search_pipeline"):
        raise InputError(f"OpenSearch hybrid search needs a search pipeline that combines the scores ({shown_spec!r})",
                         hint="create one with a normalization-processor (or score-ranker-processor) and name it "
                              "with ?search_pipeline=NAME")
    if settings.get("embedder") and settings.get("model_id"):
        raise InputError(f"give embedder= (ragauge embeds the question) or model_id= (the engine does), not both "
                         f"({shown_spec!r})")
    for key in ("text_field", "vector_field", "doc_id"):
        if key in settings and not settings[key]:
            raise InputError(f"option {key} must not be empty in {shown_spec!r}")

    def number(key: str, allowed: Range) -> int | None:
        return None if key not in settings else int(spec_number(settings, key, 0, allowed, spec))

    environ = os.environ if environ is None else environ
    return Target(engine, base, index, mode, settings.get("text_field", "text"),
                  settings.get("vector_field", "embedding"), settings.get("doc_id", "_id"),
                  settings.get("chunk_id") or None, number("k", KNN_K), number("num_candidates", KNN_K),
                  number("ef_search", RANK), settings.get("embedder") or None, settings.get("model_id") or None,
                  number("rank_constant", RANK), number("rank_window_size", RANK), settings.get("search_pipeline"),
                  _auth(engine, settings, environ), shown_spec)


def _engine_hint(engine: str, key: str) -> str:
    if engine == "opensearch" and key == "num_candidates":
        return "OpenSearch's equivalent is ef_search= (method_parameters.ef_search, OpenSearch 2.16+)"
    if engine == "elasticsearch" and key == "ef_search":
        return "Elasticsearch's equivalent is num_candidates="
    if key == "api_key_env":
        return "OpenSearch takes basic auth: OPENSEARCH_USERNAME and OPENSEARCH_PASSWORD"
    return f"see the {ENGINES[engine]} options in docs/reference/retrievers.md"


def _auth_hint(engine: str) -> str:
    key_var, user_var, password_var, _ = AUTH_ENV[engine]
    key = f"export {key_var}=... (the encoded API key), or " if key_var else ""
    return f"{key}export {user_var}=... {password_var}=..., and drop them from the URL"


def _auth(engine: str, settings: Mapping[str, str], environ: Mapping[str, str]) -> Auth:
    """The Authorization header from the environment: an Elasticsearch API key (``ApiKey``) first,
    else basic auth; none when neither is set."""
    key_var, user_var, password_var, superuser = AUTH_ENV[engine]
    key_var = settings.get("api_key_env", key_var)
    user_var = settings.get("username_env", user_var)
    password_var = settings.get("password_env", password_var)
    key = environ.get(key_var) if key_var else None
    if key:
        if ":" in key:  # the raw "id:api_key" pair: the header takes it base64-encoded
            key = base64.b64encode(key.encode()).decode()
        secrets = [key, *_decoded(key)]
        return Auth(f"ApiKey {key}", f"ApiKey from ${key_var}", tuple(secrets))
    password = environ.get(password_var)
    if password:
        user = environ.get(user_var) or superuser
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        return Auth(f"Basic {token}", f"basic auth as {user!r} from ${password_var}", (password, token))
    return Auth(None, None, ())


def _decoded(key: str) -> list[str]:
    """The ``id`` and ``api_key`` inside an encoded Elasticsearch API key (servers quote the id)."""
    try:
        text = base64.b64decode(key, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return []
    return [text, *text.split(":", 1)]
