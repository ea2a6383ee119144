"""redact(): every shape a password, token or key takes in a DSN, a URL, a header or a body."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ragauge.redact import find_secrets, redact, redact_value

HEAD, TAIL = "sEcR", "rCeS"  # a secret starts and ends with these: neither may survive redaction
# any printable character a user might type into a password, '/', '@', '%', '?', '#', quotes included
_CHARS = st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"))
secrets = st.text(_CHARS, max_size=24).map(lambda mid: HEAD + mid + TAIL)
spaced = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=24).map(lambda mid: HEAD + mid + TAIL)
SECRET_PARAMS = ("key", "api_key", "apikey", "x-api-key", "token", "access_token", "secret", "client_secret",
                 "password", "pwd", "sig", "signature", "auth", "Password", "API_KEY")


def _libpq_quoted(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _shapes(secret: str, spaced_secret: str, name: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(shape, text, known secrets): every way a secret reaches a message."""
    bad_escape = HEAD + "%zz" + secret[len(HEAD):]
    return [
        ("URI userinfo, encoded", f"postgresql://me:{quote(secret, safe='')}@db:5432/rag?sslmode=require", ()),
        ("URI userinfo, mistyped (raw / @ ? # %)", f"postgresql://me:{secret}@db:5432/rag", ()),
        ("URI userinfo, bad %-escape", f"postgres://me:{bad_escape}@db/rag", ()),
        ("URI ?password=", f"postgresql://me@db/rag?sslmode=require&password={quote(secret, safe='')}&x=1", ()),
        ("key=value, unquoted", f"host=db port=5432 password={secret} dbname=rag", ()),
        ("key=value, quoted", f"host=db password = {_libpq_quoted(spaced_secret)} dbname=rag", ()),
        ("HTTP user:pass@", f"https://svc:{quote(secret, safe='')}@search.example/api/search", ()),
        ("HTTP user:pass@, mistyped", f"https://svc:{secret}@search.example/api/search", ()),
        ("HTTP ?param=", f"https://search.example/api?q=vpn&{name}={quote_plus(secret)}&k=5", ()),
        ("JSON member", json.dumps({"error": "denied", name: spaced_secret}), ()),
        ("Authorization header", f"Authorization: Bearer {quote(secret, safe='')}", ()),
        ("known value in a 4xx body", f'401 Unauthorized: {{"error": "invalid key {spaced_secret}"}}',
         (spaced_secret,)),
        ("known value, JSON-escaped", "403: " + json.dumps({"detail": f"key {spaced_secret} revoked"}),
         (spaced_secret,)),
        ("known value, percent-encoded", f"GET /search?k={quote(spaced_secret, safe='')}", (spaced_secret,)),
    ]


def _leaks(secret: str, out: str) -> list[str]:
    forms = {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1], HEAD, TAIL}
    return [f for f in forms if f in out]


SHAPES = len(_shapes("x", "x", "key"))


@settings(max_examples=300)
@given(secret=secrets, spaced_secret=spaced, name=st.sampled_from(SECRET_PARAMS),
       wrap=st.sampled_from(["{}", "error: cannot connect to {}", "got {!r}, expected a DSN", "({}): refused"]))
# a quoted DSN password holding '"', shown by repr: its quotes become \' and the password leaked after the space
@example(secret="sEcRrCeS", spaced_secret='sEcR" rCeS', name="key", wrap="got {!r}, expected a DSN")
def test_no_secret_shape_survives(secret: str, spaced_secret: str, name: str, wrap: str) -> None:
    for shape, text, known in _shapes(secret, spaced_secret, name):
        # a body is redacted before it is quoted into a message, a spec or DSN may be quoted first
        out = redact(text if known else wrap.format(text), known)
        assert not _leaks(secret if secret in text else spaced_secret, out), (shape, text, out)
        assert redact(out, known) == out, shape  # idempotent: a stored spec redacts to itself


@given(secret=secrets)
def test_a_message_echoing_a_piece_of_a_known_secret_hides_it(secret: str) -> None:
    """libpq echoes the part of a mistyped DSN after an unencoded '/' as the database name."""
    dsn = f"postgresql://me:{HEAD}xy/zw{secret}@db/rag"
    found = find_secrets(dsn)
    out = redact(f'database "zw{secret}@db" does not exist; host "{HEAD}xy"', found)
    assert HEAD not in out and TAIL not in out, out


def test_text_without_secrets_is_unchanged() -> None:
    for text in ("bm25:corpus.jsonl?k1=1.2&b=0.75&chunk_size=200", "http://127.0.0.1:8080/search",
                 "postgresql://me@db:5432/rag?table=chunks&sslmode=disable", "cmd:python search.py --k 5",
                 "question 'q1': the retriever returned a score that is not finite (nan)",
                 "the token must be set; key material is missing"):
        assert redact(text) == text


def test_the_user_name_and_the_rest_of_the_url_stay_readable() -> None:
    assert redact("postgresql://me:pa/ss@db:5432/rag?sslmode=require&password=x") == \
        "postgresql://me:***@db:5432/rag?sslmode=require&password=***"
    assert redact("host=db password='a b' user=me") == "host=db password=*** user=me"
    assert redact_value({"url": "https://u:p@h/s?api_key=k", "n": 3, "list": ["token=abc"]}) == \
        {"url": "https://u:***@h/s?api_key=***", "n": 3, "list": ["token=***"]}


def test_a_secret_across_the_cut_is_hidden_whole() -> None:
    """Cut first, then redacted, a password echoed across the cut printed all but its last
    character (retrieve/elastic/engine.py and retrieve/chat.py did so): excerpt redacts first."""
    from ragauge.redact import excerpt

    secret = "s3cret-Pa55word-xyz"
    body = "x" * 190 + secret + " tail"
    shown = excerpt(body, [secret], 200)
    assert len(shown) <= 200 and "s3cret" not in shown and "***" in shown
    assert body[:200] not in shown  # the old order would have shown 's3cret-Pa5'


def test_engine_messages_keep_the_whole_reason_until_redacted() -> None:
    from types import SimpleNamespace

    from ragauge.retrieve.elastic.engine import _shard_reason, error_reason

    text = "y" * 250 + "password=hunter2-hunter2"
    kind, reason = error_reason(SimpleNamespace(text=text, content=b"not json"))
    assert reason.endswith("hunter2-hunter2")  # not cut before the caller redacts it
    shards = {"failures": [{"shard": 0, "index": "i", "reason": {"type": "t", "reason": "z" * 400}}]}
    assert len(_shard_reason(shards)) > 300
