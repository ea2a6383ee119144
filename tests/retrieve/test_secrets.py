"""No password, token or key reaches a message, a run file, its _meta or its .meta.json sidecar.

Each test generates secrets (hypothesis), hands them to ``ragauge run`` in one of the shapes a
user writes them (a DSN's user part, ``?password=``, libpq ``key=value``, an HTTP URL's
``user:pass@`` and ``?api_key=``, a ``${VAR}`` header), against a real server where there is one
(a local HTTP service answering 401/403/400 with a body that quotes the key; PostgreSQL when
$RAGAUGE_TEST_PG_DSN is set), and looks for the secret in everything ragauge printed or wrote.
"""

from __future__ import annotations

import json
import os
import string
import sys
import tempfile
import textwrap
from pathlib import Path
from unittest import mock
from urllib.parse import quote, quote_plus, urlsplit, urlunsplit

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragauge.cli.main import cli

from .servers import search_server

HEAD, TAIL = "sEcR", "rCeS"
_TOKEN_CHARS = string.ascii_letters + string.digits + "-._~+/=!$&*"
tokens = st.text(_TOKEN_CHARS, max_size=20).map(lambda mid: HEAD + mid + TAIL)  # what a header can carry
passwords = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_categories=("Cs", "Cc")),
                    max_size=20).map(lambda mid: HEAD + mid + TAIL)
SLOW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

GOLDEN = [{"id": "q1", "query": "vpn broken", "relevant": {"kb-vpn": 1}},
          {"id": "q2", "query": "printer jam", "relevant": {"kb-printer": 1}}]


def _golden(folder: Path) -> Path:
    path = folder / "golden.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in GOLDEN))
    return path


def _written(out: Path) -> str:
    """Everything ``ragauge run -o out`` left on disk."""
    return "".join(p.read_text(errors="replace") for p in out.parent.glob(out.name + "*"))


def _assert_hidden(text: str, *secrets: str) -> None:
    for secret in secrets:
        for form in {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1], HEAD, TAIL}:
            assert form not in text, (secret, text)


@SLOW
@given(token=tokens, password=passwords, api_key=passwords, status=st.sampled_from([401, 403, 400]))
def test_http_4xx_quoting_the_key_reveals_nothing(tmp_path: Path, token: str, password: str, api_key: str,
                                                  status: int) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    config = folder / "ragauge.toml"
    config.write_text('[retriever.http]\nheaders = { X-Api-Key = "${RAGAUGE_TEST_TOKEN}" }\n')
    out = folder / "run.jsonl"
    with mock.patch.dict(os.environ, {"RAGAUGE_TEST_TOKEN": token}), search_server(f"denied-{status}") as server:
        url = server["url"].replace("http://", f"http://svc:{quote(password, safe='')}@")
        url += f"?api_key={quote(api_key, safe='')}"
        result = CliRunner().invoke(cli, ["run", str(_golden(folder)), "--retriever", url, "--config", str(config),
                                          "-o", str(out)])
        assert server["headers"][0]["X-Api-Key"] == token  # the real key was sent
    assert result.exit_code == 2 and str(status) in result.stderr, result.output
    assert "***" in result.stderr  # the body was shown, with the key hidden
    _assert_hidden(result.output + _written(out), token, password, api_key)


@SLOW
@given(password=passwords, api_key=passwords)
def test_http_url_secrets_never_reach_the_run_file_or_its_meta(tmp_path: Path, password: str, api_key: str) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    out = folder / "run.jsonl"
    with search_server() as server:
        url = server["url"].replace("http://", f"http://svc:{quote(password, safe='')}@")
        url += f"?api_key={quote(api_key, safe='')}&region=eu"
        result = CliRunner().invoke(cli, ["run", str(_golden(folder)), "--retriever", url, "-o", str(out)])
    assert result.exit_code == 0, result.output
    meta = json.loads(out.read_text().splitlines()[0])["_meta"]
    assert meta["retriever"].startswith("http://svc:***@127.0.0.1:") and "region=eu" in meta["retriever"]
    assert json.loads((folder / "run.jsonl.meta.json").read_text())["settings"]["url"] == meta["retriever"]
    _assert_hidden(result.output + _written(out), password, api_key)


@SLOW
@given(password=passwords)
def test_cmd_and_python_errors_quoting_a_dsn_reveal_nothing(tmp_path: Path, password: str) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    dsn = f"postgresql://app:{quote(password, safe='')}@db.internal/rag"
    script = folder / "search.py"
    script.write_text(textwrap.dedent("""
        import sys
        print("cannot reach " + sys.argv[1] + " password=" + sys.argv[2], file=sys.stderr)
        sys.exit(3)
    """))
    (folder / "failing.py").write_text(f"def search(query, n):\n    raise ConnectionError({dsn!r} + ' refused')\n")
    golden = _golden(folder)
    cmd = f"cmd:{sys.executable} {script} {dsn} {password}"
    for spec in (cmd.replace("\\", "\\\\").replace("'", "\\'").replace('"', '\\"'),
                 f"python:{folder / 'failing.py'}:search"):
        out = folder / "run.jsonl"
        result = CliRunner().invoke(cli, ["run", str(golden), "--retriever", spec, "--retries", "0", "-o", str(out)])
        assert result.exit_code == 2 and "every call to the retriever failed" in result.stderr, result.output
        _assert_hidden(result.output + _written(out), password)


@given(password=passwords)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_pgvector_dsn_shapes_are_refused_or_shown_without_the_password(tmp_path: Path, password: str) -> None:
    """Shapes that never reach a server: libpq key=value (pgvector wants a URI), a user part with an
    unencoded '/' or a bad %-escape (libpq would echo pieces of it as host or database)."""
    quoted = "'" + password.replace("\\", "\\\\").replace("'", "\\'") + "'"
    golden, corpus = str(_golden(tmp_path)), str(tmp_path / "corpus.jsonl")
    Path(corpus).write_text('{"id": "d", "text": "t"}\n')
    for dsn, expected in ((f"host=db user=me password={quoted} dbname=rag", "postgresql://"),
                          (f"postgresql://me:{password}/x@db/rag", "unencoded"),
                          (f"postgresql://me:{HEAD}%zz{quote(password, safe='')}@db/rag", "starts no %XX escape")):
        for args in (["run", golden, "--retriever", f"pgvector:{dsn}", "-o", str(tmp_path / "run.jsonl")],
                     ["index", "pgvector", corpus, dsn]):
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 2 and expected in result.stderr, (dsn, result.output)
            _assert_hidden(result.output, password)


def _with_password(dsn: str, user: str, password: str, *, as_param: bool) -> str:
    u = urlsplit(dsn)
    host = f"{u.hostname}:{u.port}"
    if as_param:
        return urlunsplit(u._replace(netloc=f"{user}@{host}", query=f"password={quote(password, safe='')}"))
    return urlunsplit(u._replace(netloc=f"{user}:{quote(password, safe='')}@{host}"))


@SLOW
@given(password=passwords, as_param=st.booleans())
def test_pgvector_wrong_password_against_the_server(pg_dsn: str, tmp_path: Path, password: str,
                                                    as_param: bool) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    dsn = _with_password(pg_dsn, "ragauge_nobody", password, as_param=as_param)
    out = folder / "run.jsonl"
    result = CliRunner().invoke(cli, ["run", str(_golden(folder)), "--retriever", f"pgvector:{dsn}", "-o", str(out)])
    assert result.exit_code == 2 and "authentication failed" in result.stderr, result.output
    _assert_hidden(result.output + _written(out), password)


@pytest.mark.parametrize("as_param", [False, True])
def test_pgvector_run_file_and_meta_hold_no_password(pg_dsn: str, tmp_path: Path, as_param: bool) -> None:
    """The test role connects without a password, so a wrong one is accepted and the run completes."""
    from ragauge.retrieve.corpus import Chunking, chunk
    from ragauge.retrieve.pgvector import load_table

    table = f"test_secret_{os.getpid()}_{int(as_param)}"
    load_table(pg_dsn, chunk([("kb-vpn", "", "vpn broken fix"), ("kb-printer", "", "printer jam fix")], Chunking()),
               "hash", table=table, recreate=True)
    dsn = _with_password(pg_dsn, urlsplit(pg_dsn).username or "", "sEcR-hunter2-rCeS", as_param=as_param)
    out = tmp_path / "run.jsonl"
    result = CliRunner().invoke(cli, ["run", str(_golden(tmp_path)), "--retriever", f"pgvector:{dsn}&table={table}"
                                      if as_param else f"pgvector:{dsn}?table={table}", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "***" in json.loads(out.read_text().splitlines()[0])["_meta"]["retriever"]
    _assert_hidden(result.output + _written(out), "sEcR-hunter2-rCeS")
