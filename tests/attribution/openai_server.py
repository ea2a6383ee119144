"""A small local OpenAI-compatible chat-completions server for the judge tests (loopback only).

It replays reply bodies from a folder of recorded replies (tests/fixtures/attribution/replies for the
judge, tests/fixtures/draft/replies for golden draft): each request gets the reply whose key (a
question, a phrase of a section) appears in its user message. Real HTTP, real sockets: the chat
client is not mocked.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPLIES = Path(__file__).parents[1] / "fixtures" / "attribution" / "replies"


@contextmanager
def openai_server(replies: Mapping[str, str], *, mode: str = "ok", fail_first: int = 0, fail_status: int = 503,
                  delay: float = 0.0, folder: Path = REPLIES) -> Iterator[dict[str, Any]]:
    """Serve ``POST .../chat/completions``. ``replies`` maps a text to the name of a reply file in
    ``folder`` (without .json): the first whose text is in the user message answers; a request whose
    user message holds none gets a 400. ``fail_first``: the first N calls get ``fail_status`` (503
    "Loading model", or 429 with Retry-After, as rate limits answer). Modes: ok; denied (401 whose
    OpenAI-style error body quotes the Authorization header received); html (200 with a web page, as
    a wrong URL gives). ``delay`` seconds before each answer. The state records every request's
    path, headers and body."""
    state: dict[str, Any] = {"calls": 0, "paths": [], "headers": [], "bodies": []}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            with lock:
                state["calls"] += 1
                seen = state["calls"]
                state["paths"].append(self.path)
                state["headers"].append(dict(self.headers))
                state["bodies"].append(body)
            if delay:
                time.sleep(delay)
            if seen <= fail_first and fail_status == 429:
                return self._send(429, b'{"error": {"message": "Rate limit reached for requests", '
                                       b'"type": "requests", "code": "rate_limit_exceeded"}}', retry_after="0")
            if seen <= fail_first:
                return self._send(fail_status, b'{"error": {"message": "Loading model", "type": "unavailable_error"}}')
            if mode == "denied":
                quoted = f"Incorrect API key provided: {self.headers.get('Authorization')}"
                return self._send(401, json.dumps({"error": {"message": quoted, "type": "invalid_request_error",
                                                             "code": "invalid_api_key"}}).encode())
            if mode == "html":
                return self._send(200, b"<html><body>It works!</body></html>", "text/html")
            if not self.path.endswith("/chat/completions"):
                return self._send(404, b'{"error": "File Not Found"}')
            user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
            for question, name in replies.items():
                if question in user:
                    return self._send(200, (folder / f"{name}.json").read_bytes())
            self._send(400, b'{"error": {"message": "no reply recorded for this question"}}')

        def _send(self, status: int, data: bytes, kind: str = "application/json", retry_after: str = "") -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                if retry_after:
                    self.send_header("Retry-After", retry_after)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (timeout tests)
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
