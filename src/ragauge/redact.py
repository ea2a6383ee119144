"""Hide passwords, tokens and keys in text before ragauge shows or writes it.

``redact(text, secrets)`` is the one place this happens: adapters pass their specs and error
messages through it, the executor passes what it writes into run files and ``_meta``, and the
CLI's error boundary passes every message through it as a last line of defence.

What it hides (each replaced by ``***``):

- the password of a URL's user part, ``scheme://user:PASSWORD@host`` -- also in mistyped URLs
  that ``urllib`` cannot parse (an unencoded ``/``, ``?``, ``#`` or ``@``, a bad ``%``-escape):
  everything between ``://user:`` and the LAST ``@`` of the same whitespace-free run is hidden;
- the value of a URL query parameter whose name looks secret (``?api_key=...``, ``&token=...``;
  see ``SECRET_NAME``), up to the next ``&`` or whitespace;
- the value of a libpq ``key=value`` setting whose name looks secret (``password=...``), either
  ``'quoted'`` (with ``\\'`` escapes; also as Python's repr shows it, ``\\'...\\'``) or up to the
  next whitespace;
- a JSON member whose name looks secret (``"api_key": "..."``) and an ``Authorization`` scheme's
  credentials (``Bearer ...``, ``Basic ...``);
- every known secret value passed in ``secrets`` wherever it appears (a server's 4xx body that
  quotes the key), also percent-encoded or JSON-escaped, and each of its pieces of at least
  ``MIN_SECRET`` characters between URL delimiters (libpq echoes pieces of a mistyped DSN, such
  as the part after an unencoded ``/`` as the database name).

Known limits: a secret shorter than ``MIN_SECRET`` characters is not searched for by value (it
would garble every message), and a password with whitespace inside an unquoted URL or setting
is hidden only up to the whitespace.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus, unquote

REDACTED = "***"
MIN_SECRET = 4

SECRET_NAME = (r"[A-Za-z0-9_.\-]*(?:pass(?:word|wd)?|pwd|secret|token|api[_\-]?key|key|sig(?:nature)?|auth\w*|"
               r"credential|session)[A-Za-z0-9_.\-]*")
"""Names of settings whose values are secret: key, api_key, apikey, x-api-key, token,
access_token, secret, client_secret, password, passwd, pwd, sig, signature, auth, ... (any name
holding one of these words, in any case)."""

_NS = r"[^ \t\n\r\f\v]"  # not ASCII whitespace: a password may hold a no-break space, which \S would stop at
_USERINFO = re.compile(rf"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@]*:)(?P<secret>{_NS}*)(?=@)")
_QUERY = re.compile(rf"(?P<head>[?&;](?i:{SECRET_NAME})=)(?P<secret>[^& \t\n\r\f\v]*)")
_SETTING = re.compile(rf"(?P<head>(?<![\w.\-?&;])(?i:{SECRET_NAME})\s*=\s*)"
                      rf"""(?P<secret>'(?:\\.|[^'])*'(?=\s|$)|\\'(?:(?!\\').)*\\'|{_NS}*)""")
_JSON = re.compile(rf"(?P<head>\"(?i:{SECRET_NAME})\"\s*:\s*\")(?P<secret>.*?)(?=(?<!\\)\"\s*[,}}\]]|$)", re.M)
_AUTH = re.compile(r"(?P<head>\b(?i:bearer)\s+|"
                   r"\b(?i:authorization)\s*:\s*(?!(?i:bearer)\s)(?:(?i:basic|digest|token)\s+)?)"
                   r"(?P<secret>(?!(?i:basic|digest|token)\s)[^\s,;'\"]+)")
_PATTERNS = (_USERINFO, _QUERY, _SETTING, _JSON, _AUTH)
_PIECES = re.compile(r"[\s/@:?#&=;,'\"]+")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every password, token and key (see the module docstring) replaced by ``***``;
    ``secrets`` are values known to be secret (e.g. expanded ``${VAR}`` headers)."""
    if not text:
        return text
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group("head") + (REDACTED if m.group("secret") else ""), text)
    return _replace_values(text, secrets)


def excerpt(text: str, secrets: Iterable[str] = (), limit: int = 200) -> str:
    """The start of ``text`` for a message: redacted first, THEN cut to ``limit`` characters. Cut
    first, a secret straddling the cut would lose its end and no longer match, so all but its last
    characters would be shown; every message that quotes a server's body goes through here."""
    return redact(text, secrets)[:limit]


def find_secrets(text: str) -> list[str]:
    """The secret values ``redact`` would hide in ``text`` (raw and percent-decoded), so that a
    later message echoing one of them (or a piece of it) can be redacted too."""
    found: list[str] = []
    for pattern in _PATTERNS:
        for m in pattern.finditer(text):
            value = m.group("secret")
            if value.lstrip("\\").startswith("'") and pattern is _SETTING:
                value = value.strip("\\'")
            found += [value, unquote(value)]
    return [v for v in dict.fromkeys(found) if v]


def url_secrets(url: str) -> list[str]:
    """What ``find_secrets`` finds in ``url``, plus the ``Authorization: Basic`` value an HTTP client
    makes of its ``user:password@`` part (httpx sends it, and a server may quote it back)."""
    import base64
    from urllib.parse import urlsplit

    found = find_secrets(url)
    try:
        parts = urlsplit(url)
        if parts.password:
            found.append(base64.b64encode(f"{unquote(parts.username or '')}:{unquote(parts.password)}"
                                          .encode()).decode())
    except ValueError:  # not a URL urllib can split: find_secrets already took what it could
        pass
    return found


def userinfo_password(url: str) -> str | None:
    """The password of ``url``'s user part as ``redact`` sees it (between ``://user:`` and the
    last ``@``, even where urllib would split elsewhere), or None."""
    m = _USERINFO.search(url)
    return m.group("secret") if m else None


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with every string in it redacted."""
    secrets = tuple(secrets)
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: redact_value(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, secrets) for v in value]
    return value


def _variants(secret: str) -> set[str]:
    forms = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret), json.dumps(secret)[1:-1],
             json.dumps(secret, ensure_ascii=False)[1:-1],
             repr(secret)[1:-1], unquote(secret)}
    forms |= {piece for piece in _PIECES.split(secret)}
    return {f for f in forms if len(f) >= MIN_SECRET}


def _replace_values(text: str, secrets: Iterable[str]) -> str:
    forms: set[str] = set()
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET:
            forms |= _variants(secret)
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, REDACTED)
    return text
