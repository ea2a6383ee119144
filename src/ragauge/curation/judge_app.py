"""The judging page: a Starlette app over a :class:`ragauge.curation.judge.JudgeSession`, served by
uvicorn on 127.0.0.1 only.

Who may use it: every request must come from a loopback address, name ``127.0.0.1`` or
``localhost`` as its host (a page elsewhere cannot reach it by DNS rebinding) and carry the
session's access token (``?token=`` in the URL it prints, or the ``X-Ragauge-Token`` header the
page's script sends); anything else gets 403 and learns nothing. The server binds a socket on
127.0.0.1 port 0 itself (the system picks a free port) and hands it to uvicorn, so nothing ever
listens beyond loopback. Access logs are off: they would print the token.

What the page may do: the Content-Security-Policy (an HTTP header on every response) allows the
page's own script and style only, each pinned by its SHA-256, and requests to this server only;
no frame, no form, no base URL, no referrer. User text (questions, ids, titles, document texts,
system names) is rendered by the autoescaping Jinja environment of :mod:`ragauge.core.jinja`;
the script writes numbers and fixed words only, through ``textContent``.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from ragauge.errors import MissingExtra, RagaugeError

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from ragauge.curation.judge import JudgeSession, Position
    from ragauge.curation.judge_finish import JudgeMerge

TOKEN_HEADER = "x-ragauge-token"
PAGE_GRADES = (0, 1, 2)
HOSTS = ("127.0.0.1", "localhost")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_token() -> str:
    """An unguessable access token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware: refuses (403) what does not come from loopback, for this host, with the token;
    adds the security headers to every response it lets through."""

    def __init__(self, app: ASGIApp, token: str, headers: list[tuple[bytes, bytes]]) -> None:
        self.app = app
        self.token = token
        self.headers = headers

    def _allowed(self, scope: Scope) -> bool:
        from starlette.datastructures import Headers, QueryParams

        client = scope.get("client")
        if not _loopback(client[0] if client else None):
            return False
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
        if name not in HOSTS:
            return False
        given = headers.get(TOKEN_HEADER) or QueryParams(scope.get("query_string", b"").decode("latin-1")).get("token")
        return given is not None and secrets.compare_digest(given.encode("utf-8"), self.token.encode("utf-8"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: nothing to guard
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        if not self._allowed(scope):
            from starlette.responses import PlainTextResponse

            await PlainTextResponse("forbidden", status_code=403)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def create_app(session: JudgeSession, token: str, *,
               finish: Callable[[], JudgeMerge] | None = None) -> Starlette:
    """The app for ``session``, guarded by ``token``; ``finish`` runs the merge for the page's button
    (the button is hidden without it)."""
    try:
        from starlette.applications import Starlette
        from starlette.concurrency import run_in_threadpool
        from starlette.middleware import Middleware
        from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse
        from starlette.routing import Route
    except ImportError:
        raise MissingExtra("starlette", "judge", "the judging page") from None
    from markupsafe import Markup

    from ragauge.core.jinja import environment, script_json, static_file
    from ragauge.data.judgements import GRADES

    env = environment("the judging page")
    script, css = static_file(env, "judge.js"), static_file(env, "judge.css")
    csp = (f"default-src 'none'; script-src 'sha256-{_sha256(script)}'; style-src 'sha256-{_sha256(css)}'; "
           "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    headers = [(b"content-security-policy", csp.encode()), (b"x-content-type-options", b"nosniff"),
               (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store"), (b"x-frame-options", b"DENY")]
    template = env.get_template("judge.html.j2")

    def _state(pos: Position | None = None) -> dict[str, Any]:
        with session.lock:
            out: dict[str, Any] = {"progress": session.progress().to_dict()}
            nxt = session.next_position(pos)
        out["next"] = None if nxt is None else {"q": nxt[0], "c": nxt[1]}
        return out

    def page(request: Request) -> Response:
        nq = len(session.pool.questions)
        if not nq:
            return HTMLResponse("the pool has no question", status_code=404)
        try:
            qi = int(request.path_params.get("qi", -1))
        except ValueError:
            qi = -1
        if qi < 0 or qi >= nq:
            with session.lock:
                start = session.next_position()
            qi = start[0] if start is not None else 0
            return RedirectResponse(f"/q/{qi}?token={token}", status_code=303)
        with session.lock:
            question = session.question(qi)
        shown = [c["index"] for c in question["candidates"]]
        open_here = [c["index"] for c in question["candidates"] if c["grade"] is None and not c["skipped"]]
        wanted = request.query_params.get("c", "")
        try:
            focus = shown[-1] if wanted == "last" and shown else int(wanted)
        except ValueError:
            focus = -1
        if focus not in shown and session.verdict is not None:  # the pair that decides most, when it is here
            with session.lock:
                best = session.next_position()
            focus = best[1] if best is not None and best[0] == qi else focus
        if focus not in shown:
            focus = open_here[0] if open_here else shown[0] if shown else 0
        with session.lock:
            sizes = session.sizes()
        data = {"token": token, "q": qi, "questions": nq, "focus": focus, "finish": finish is not None,
                "sizes": sizes, **_state()}
        html = template.render(q=question, qi=qi, nq=nq, annotator=session.annotator, progress=data["progress"],
                               adjudicating=session.only is not None,
                               verdict=session.pool.verdict if session.verdict is not None else None,
                               data_json=Markup(script_json(data)), script=Markup(script), css=Markup(css),
                               finish=finish is not None, log=str(session.log), grades=GRADES, data_token=token)
        return HTMLResponse(html)

    async def act(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            body = None
        action = body.get("action") if isinstance(body, dict) else None
        grade = body.get("grade") if isinstance(body, dict) else None
        if action not in ("grade", "skip") or (action == "grade" and not (type(grade) is int and grade in PAGE_GRADES)):
            return JSONResponse({"error": "expected {action: 'grade', grade: 0|1|2, q, c} or {action: 'skip', q, c}"},
                                status_code=400)
        try:
            pos = session.check(body.get("q"), body.get("c"))
        except RagaugeError as exc:
            return JSONResponse({"error": exc.message}, status_code=400)
        try:
            if action == "grade":
                await run_in_threadpool(session.grade, *pos, body["grade"])
            else:
                await run_in_threadpool(session.skip, *pos)
        except RagaugeError as exc:  # the log cannot be written: nothing was saved
            return JSONResponse({"error": exc.message, "hint": exc.hint}, status_code=500)
        with session.lock:
            saved = session.status(pos)
        return JSONResponse({"saved": saved, **_state(pos)})

    async def undo(request: Request) -> Response:
        try:
            undone = await run_in_threadpool(session.undo)
        except RagaugeError as exc:
            return JSONResponse({"error": exc.message, "hint": exc.hint}, status_code=500)
        pos = None if undone is None else session.index.get(undone.item)
        with session.lock:
            shown = None if pos is None else {"q": pos[0], "c": pos[1], **session.status(pos)}
        return JSONResponse({"undone": shown, "nothing": undone is None, **_state()})

    async def finish_route(request: Request) -> Response:
        if finish is None:
            return JSONResponse({"error": "finishing is not available here"}, status_code=404)
        try:
            result = await run_in_threadpool(finish)
        except RagaugeError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"lines": result.lines()})

    async def progress(request: Request) -> Response:
        return JSONResponse(_state())

    routes = [Route("/", page), Route("/q/{qi}", page), Route("/api/judge", act, methods=["POST"]),
              Route("/api/undo", undo, methods=["POST"]), Route("/api/finish", finish_route, methods=["POST"]),
              Route("/api/progress", progress)]
    return Starlette(routes=routes, middleware=[Middleware(Guard, token=token, headers=headers)])


class JudgeServer:
    """uvicorn serving ``app`` on a socket it binds on 127.0.0.1 with a port the system picks (free),
    listening from construction so :attr:`url` answers as soon as it is known. :meth:`run` serves until
    Ctrl-C; :meth:`start` / :meth:`stop` serve from a thread (tests)."""

    def __init__(self, app: Any, token: str) -> None:
        import socket

        try:
            import uvicorn
        except ImportError:
            raise MissingExtra("uvicorn", "judge", "the judging page") from None
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(128)  # the URL is shown (and opened) before run(): queue what comes before it serves
        self.host, self.port = self.socket.getsockname()[:2]
        self.url = f"http://127.0.0.1:{self.port}/?token={token}"
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", proxy_headers=False,
                                server_header=False, http="h11", ws="none")
        self.server = uvicorn.Server(config)
        self._thread: Any = None

    def run(self) -> None:
        """Serve until interrupted: Ctrl-C (or SIGTERM) lets the requests under way finish, then
        returns (uvicorn raises the Ctrl-C again once it has stopped; that is the normal end here)."""
        try:
            self.server.run(sockets=[self.socket])
        except KeyboardInterrupt:
            pass
        finally:
            self.socket.close()

    def start(self, timeout: float = 10.0) -> None:
        """Serve from a daemon thread; return once the server accepts connections."""
        import threading
        import time

        self._thread = threading.Thread(target=self.run, name="ragauge-judge", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RagaugeError("the judging page's server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
