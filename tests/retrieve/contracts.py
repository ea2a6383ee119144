"""A loopback HTTP server that holds requests to recorded contracts (tests/fixtures/search_contracts):
each request must match one exchange's method, path and query string, and then its headers and
JSON body; the exchange's documented response is replayed. Violations are collected, never raised
in the server thread, so the test can assert there were none."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

CONTRACTS = Path(__file__).resolve().parents[1] / "fixtures" / "search_contracts"


def load(engine: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CONTRACTS / engine / f"{name}.json").read_text(encoding="utf-8"))
    return data


def shape_errors(expected: Any, got: Any, where: str = "body") -> list[str]:
    """How ``got`` breaks the documented shape ``expected`` (placeholders: ``<string>``, ``<int>``,
    ``<vector:N>``); empty when it conforms. Objects must have exactly the expected members."""
    if isinstance(expected, str) and expected.startswith("<") and expected.endswith(">"):
        if expected == "<string>":
            return [] if isinstance(got, str) and got else [f"{where}: expected a non-empty string, got {got!r}"]
        if expected == "<int>":
            ok = isinstance(got, int) and not isinstance(got, bool)
            return [] if ok else [f"{where}: expected an int, got {got!r}"]
        if expected.startswith("<vector:"):
            n = int(expected[8:-1])
            ok = (isinstance(got, list) and len(got) == n and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in got))
            return [] if ok else [f"{where}: expected {n} finite numbers, got {str(got)[:80]}"]
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return [f"{where}: expected an object, got {got!r}"]
        errors = [f"{where}: unexpected member {k!r}" for k in got if k not in expected]
        errors += [f"{where}: missing member {k!r}" for k in expected if k not in got]
        for key in expected:
            if key in got:
                errors += shape_errors(expected[key], got[key], f"{where}.{key}")
        return errors
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return [f"{where}: expected a list of {len(expected)}, got {got!r}"]
        return [e for i, (x, y) in enumerate(zip(expected, got)) for e in shape_errors(x, y, f"{where}[{i}]")]
    return [] if expected == got and type(expected) is type(got) else [f"{where}: expected {expected!r}, got {got!r}"]


@contextmanager
def contract_server(engine: str, names: list[str]) -> Iterator[dict[str, Any]]:
    """Serve the named exchanges of ``engine``; yields a state dict with ``url`` (the base URL),
    ``requests`` (each as received: method, path, query, headers, body, exchange name) and
    ``violations`` (one line per broken contract or unmatched request)."""
    exchanges = [(name, load(engine, name)) for name in names]
    state: dict[str, Any] = {"requests": [], "violations": []}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            self._serve("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._serve("POST")

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            path, query = unquote(parts.path), dict(parse_qsl(parts.query))
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
            body = json.loads(raw) if raw else None
            headers = {k.lower(): v for k, v in self.headers.items()}
            name, exchange = next(((n, e) for n, e in exchanges if e["request"]["method"] == method
                                   and e["request"]["path"] == path and e["request"]["query"] == query), (None, None))
            record = {"method": method, "path": path, "query": query, "headers": headers, "body": body,
                      "exchange": name}
            problems: list[str] = []
            if exchange is None:
                problems.append(f"{method} {self.path}: no recorded exchange matches")
            else:
                request = exchange["request"]
                for key, value in request["headers"].items():
                    if headers.get(key) != value and not (key == "content-type" and
                                                          str(headers.get(key, "")).startswith(value)):
                        problems.append(f"{name}: header {key} is {headers.get(key)!r}, expected {value!r}")
                if "authorization" not in request["headers"] and "authorization" in headers:
                    problems.append(f"{name}: sent an authorization header the contract has none for")
                if "body" in request:
                    problems += [f"{name}: {e}" for e in shape_errors(request["body"], body)]
                elif body is not None:
                    problems.append(f"{name}: sent a body, the contract has none")
            with lock:
                state["requests"].append(record)
                state["violations"] += problems
            if exchange is None:
                return self._send(501, {}, json.dumps({"contract": problems}).encode())
            response = exchange["response"]
            data = b"" if response["body"] is None else json.dumps(response["body"]).encode()
            self._send(response["status"], response["headers"], data)

        def _send(self, status: int, headers: dict[str, str], data: bytes) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
