"""One home for calling an OpenAI-compatible chat-completions endpoint: the answer judge
(``ragauge.attribution.judge``) and question drafting (``ragauge.curation.draft``) both use it.

The endpoint is any server speaking OpenAI's ``POST /v1/chat/completions``: a local one (llama.cpp's
``llama-server``, Ollama, vLLM) or a hosted one. The URL may be the server's root
(``http://localhost:8080``), its ``/v1`` or the full ``/v1/chat/completions`` (:func:`chat_url`).

The key, when the server wants one, is read from the environment variable the caller names and sent
as ``Authorization: Bearer ...``; it is never written anywhere, and every message is redacted with it
(``ragauge.redact``), so a server's error body that quotes it shows ``***``.

Transient failures (timeouts, connection errors, HTTP 429 and 5xx) are retried with exponential
backoff; a call whose attempts all failed returns a :class:`ChatReply` with ``failed`` set. A 4xx
answer (a wrong key, model or URL) and a reply that is not a chat completion raise InputError at once:
no later call would go better. :func:`give_up` is the rule for a server that is down: stop after the
first ``FAIL_FAST`` calls all failed, and when every call failed.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from ragauge import errors
from ragauge.core.jsonl import loads
from ragauge.core.numbers import NON_NEGATIVE, TIMEOUT, WHOLE, check_number
from ragauge.errors import InputError
from ragauge.llm import CALL_BACKOFF, CALL_RETRIES, CALL_TIMEOUT
from ragauge.redact import excerpt, redact, url_secrets

FAIL_FAST = 3
"""Stop when this many calls in a row, from the first, got no reply: the server is down or wrong."""

Message = Mapping[str, str]
"""``{"role": "system" | "user" | "assistant", "content": ...}``"""


def chat_url(endpoint: str) -> str:
    """The chat-completions URL: ``endpoint`` as given when it ends in ``/chat/completions``, else with
    ``/chat/completions`` (after ``/v1``) or ``/v1/chat/completions`` appended; a query string is kept."""
    base, sep, query = endpoint.partition("?")
    base = base.rstrip("/")
    if not base.endswith("/chat/completions"):
        base += "/chat/completions" if base.endswith("/v1") else "/v1/chat/completions"
    return base + sep + query


@dataclass(frozen=True)
class ChatEndpoint:
    """An OpenAI-compatible endpoint and the model to ask. ``timeout`` seconds per call, ``retries``
    extra attempts after a transient failure, ``backoff`` seconds before the first retry (doubled each
    time). ``who`` names the caller in messages ("the judge"). Hints name the options that set the
    endpoint and the model as the caller wrote them (``errors.flag``): ``keyword`` and ``model_keyword``
    for a Python caller (``endpoint=``), ``flag`` and ``model_flag`` on the command line
    (``--judge-endpoint``)."""

    endpoint: str
    model: str
    api_key_env: str
    timeout: float = CALL_TIMEOUT
    retries: int = CALL_RETRIES
    backoff: float = CALL_BACKOFF
    who: str = "the model"
    flag: str = "--endpoint"
    model_flag: str = "--model"
    keyword: str = "endpoint"
    model_keyword: str = "model"

    def __post_init__(self) -> None:
        if not isinstance(self.endpoint, str) or not re.match(r"(?i)https?://", self.endpoint):
            raise InputError(f"{self.who}'s endpoint must be an http:// or https:// URL, got "
                             f"{redact(str(self.endpoint))!r}",
                             hint=f"e.g. {self.option('http://localhost:8080/v1')} (llama.cpp), "
                                  "http://localhost:11434/v1 (Ollama)")
        if not isinstance(self.model, str) or not self.model.strip():
            model = errors.flag(self.model_keyword, "llama3.1:8b", cli=self.model_flag)
            raise InputError(f"{self.who} needs a model name", hint=f"e.g. {model}")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.api_key_env or ""):
            raise InputError(f"not an environment variable name: {self.api_key_env!r}",
                             hint="name the variable that holds the key, e.g. OPENAI_API_KEY")
        for name, allowed, what in (("timeout", TIMEOUT, "timeout"), ("retries", WHOLE, "retries"),
                                    ("backoff", NON_NEGATIVE, "backoff")):
            object.__setattr__(self, name, check_number(getattr(self, name), f"{self.who}'s {what}", allowed))

    @property
    def url(self) -> str:
        return chat_url(self.endpoint)

    def option(self, value: str | None = None) -> str:
        """The option that sets the endpoint, as the caller writes it (``errors.flag``)."""
        return errors.flag(self.keyword, value, cli=self.flag)

    def describe(self) -> dict[str, Any]:
        """What a result records of the endpoint: the URL with its secrets hidden, the model and the
        name of the key's variable; never the key."""
        return {"endpoint": redact(self.url), "model": self.model, "key_env": self.api_key_env}


@dataclass(frozen=True)
class ChatReply:
    """The assistant's text (None: the reply held no text, or every attempt failed); ``failed`` when
    no attempt got an answer, with the last error (redacted) in ``error``."""

    text: str | None
    failed: bool = False
    error: str | None = None


class ChatClient:
    """Calls to one :class:`ChatEndpoint` through one ``httpx`` client, one at a time. Use as a
    context manager, or call ``close()``."""

    def __init__(self, endpoint: ChatEndpoint) -> None:
        import httpx

        self.endpoint = endpoint
        self.shown = redact(endpoint.url)
        key = (os.environ.get(endpoint.api_key_env) or "").strip() or None
        if key is not None and not (key.isascii() and key.isprintable()):
            raise InputError(f"the key in ${endpoint.api_key_env} holds characters an HTTP header cannot carry "
                             "(non-ASCII letters or control characters)", hint="set the variable to the key alone")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.secrets = url_secrets(endpoint.url) + ([key] if key else [])
        self.client = httpx.Client(timeout=endpoint.timeout)
        self._httpx = httpx

    def hide(self, text: str) -> str:
        """``text`` with the key and the URL's secrets redacted."""
        return redact(text, self.secrets)

    def complete(self, messages: Sequence[Message], **params: Any) -> ChatReply:
        """Ask for one completion of ``messages`` (``temperature`` 0 unless ``params`` say otherwise;
        other ``params``, such as ``seed`` or ``max_tokens``, go into the request body as given)."""
        httpx = self._httpx
        ep = self.endpoint
        body = {"model": ep.model, "temperature": 0, "stream": False, **params,
                "messages": [dict(m) for m in messages]}
        error = ""
        for attempt in range(ep.retries + 1):
            if attempt:
                time.sleep(ep.backoff * 2 ** (attempt - 1))
            try:
                response = self.client.post(ep.url, json=body, headers=self.headers)
            except httpx.TimeoutException:
                error = f"{self.shown} did not answer within {ep.timeout:g} s"
                continue
            except httpx.TransportError as exc:
                error = self.hide(f"cannot reach {self.shown}: {exc}")
                continue
            status = response.status_code
            if status == 429 or status >= 500:
                error = f"{self.shown} answered {status} {response.reason_phrase}"
                continue
            if status >= 400:
                raise InputError(self.hide(f"{ep.who} at {self.shown} answered {status} {response.reason_phrase}: "
                                           f"{excerpt(self.hide(response.text), limit=300)}"),
                                 hint=f"check the model name and the key (read from ${ep.api_key_env})")
            return self._reply(response.content)
        return ChatReply(None, failed=True, error=error)

    def _reply(self, content: bytes) -> ChatReply:
        try:
            data = loads(content)
            text = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            shown = excerpt(self.hide(content.decode("utf-8", "replace")), limit=200)
            raise InputError(self.hide(f"{self.endpoint.who} at {self.shown} did not answer a chat completion: "
                                       f"{shown!r}"),
                             hint=f"point {self.endpoint.option()} at an OpenAI-compatible server, "
                                  "e.g. http://localhost:8080/v1") from None
        return ChatReply(text if isinstance(text, str) else None)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def give_up(asked: int, failed: int, last_error: str, who: str, *, done: bool = False) -> None:
    """Raise InputError when ``failed`` of ``asked`` calls say the server is down or wrong: the first
    ``FAIL_FAST`` all failed, or (``done``: no call is left) every one did. Call it after each failed
    call, and once at the end with ``done=True``."""
    hint = "is the server running, and is the endpoint its OpenAI-compatible /v1?"
    if failed == asked == FAIL_FAST and not done:
        raise InputError(f"the first {FAIL_FAST} calls to {who} all failed; the last: {last_error}", hint=hint)
    if done and asked and failed == asked:
        raise InputError(f"every call to {who} failed; the last: {last_error}", hint=hint)
