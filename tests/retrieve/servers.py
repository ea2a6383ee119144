"""A small local HTTP search service for adapter and executor tests (loopback only)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DOCS = {"vpn": ["kb-vpn", "kb-net"], "printer": ["kb-printer", "kb-toner"], "password": ["kb-pass"]}


@contextmanager
def search_server(mode: str = "ok", delay: float = 0.0, fail_times: int = 0) -> Iterator[dict[str, Any]]:
    """Serve POST /search {"query", "k"} (or GET with them as the query string) -> {"hits": [...]}.
    Modes: ok, flaky (503 for the first ``fail_times`` calls of each query), unauthorized (401
    without the right bearer token), malformed (HTML instead of JSON), nested (hits under
    data.results), denied-401 / denied-403 / denied-400 (that status, with a body quoting the
    Authorization and X-Api-Key headers and the request path, as careless services do)."""
    state: dict[str, Any] = {"calls": 0, "per_query": {}, "bodies": [], "headers": []}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - GET /search?query=...&k=... (the query string is the body)
            from urllib.parse import parse_qsl, urlsplit

            self._answer(dict(parse_qsl(urlsplit(self.path).query, keep_blank_values=True)))

        def do_POST(self) -> None:  # noqa: N802
            self._answer(json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}"))

        def _answer(self, body: dict[str, Any]) -> None:
            with lock:
                state["calls"] += 1
                state["bodies"].append(body)
                state["headers"].append(dict(self.headers))
                seen = state["per_query"].get(body.get("query") or body.get("q"), 0)
                state["per_query"][body.get("query") or body.get("q")] = seen + 1
            if delay:
                time.sleep(delay)
            if mode == "flaky" and seen < fail_times:
                return self._send(503, b'{"error": "busy"}')
            if mode == "unauthorized" and self.headers.get("Authorization") != "Bearer s3cret":
                return self._send(401, b'{"error": "no"}')
            if mode.startswith("denied-"):
                quoted = (f"invalid credentials {self.headers.get('Authorization')} / {self.headers.get('X-Api-Key')} "
                          f"for {self.path}")
                return self._send(int(mode[-3:]), json.dumps({"error": quoted, "api_key": self.path}).encode())
            if mode == "malformed":
                return self._send(200, b"<html>oops</html>", "text/html")
            query = str(body.get("query") or body.get("q") or "")
            hits = [{"doc_id": d, "score": 1.0 / (i + 1)}
                    for w, ds in DOCS.items() if w in query for i, d in enumerate(ds)]
            payload: Any = {"data": {"results": hits}} if mode == "nested" else {"hits": hits, "cost": 0.001}
            self._send(200, json.dumps(payload).encode())

        def _send(self, status: int, data: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/search"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
