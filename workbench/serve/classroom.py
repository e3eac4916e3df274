"""The classroom server: textual-serve's, closed to anyone without the token and to other web
pages, bounded in tabs, and quick to leave.

- Access: a random token in the URL (printed at start, as Jupyter does). The page sets it as a
  cookie (for the downloads the page opens) and puts it in its websocket's path; any page,
  websocket or download without it is 403. A websocket whose Origin is not this server's is 403
  (another web page the teacher opens cannot drive a tab). The page's URLs are the ones the
  browser used, never the address bound.
- Capacity: at most ``max_sessions`` tabs (past it, a page saying the class is full); a tab
  without a key for ``idle_timeout`` seconds is closed; each tab's process is capped
  (tab_process.py).
- Leaving: SIGTERM kills every tab's process group, and the server is gone within seconds.
- /class: the teacher's view of the open tabs (tab_status.py).
"""
from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import secrets
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from workbench.serve.tab_process import TabLimits, kill_group, tab_environment
from workbench.serve.tab_status import read_status
from workbench.serve.tab_zygote import TabZygote

COOKIE = "gewb_token"
MAX_CELLS = 1000    # a screen's width or height at most
STOP_GRACE = 1.0     # seconds a tab has to quit before it is killed
log = logging.getLogger("textual-serve")


class TabService(AppService):
    """textual-serve's app service, for one served tab: forked by the class's zygote (no shell,
    no imports of its own), its own folder and caps, and a stop that cannot hang on a tab that
    no longer listens."""

    def __init__(self, classroom: Classroom, folder: Path, **kwargs: Any) -> None:
        super().__init__(" ".join(classroom.args), **kwargs)
        self.classroom, self.folder = classroom, folder
        # a sandboxed tab: its own folder
        self.cwd = classroom.tab_cwd if classroom.tab_cwd is not None else folder

    async def _open_app_process(self, width: int = 80, height: int = 24):
        env = tab_environment(self._build_environment(width, height),
                              self.folder / "status.json")
        self._process = process = await self.classroom.tab_zygote().start_tab(
            self.classroom.args, env, self.cwd, self.classroom.limits)
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        if self._task is None:
            return
        task, self._task = self._task, None
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_GRACE)
        except asyncio.TimeoutError:
            self.kill()
            await task
        self.stdin.close()

    def kill(self) -> None:
        if self._process is not None and self._process.running:
            kill_group(self._process.pid)


@dataclass
class Tab:
    service: TabService
    websocket: web.WebSocketResponse
    folder: Path
    opened: float = field(default_factory=time.monotonic)
    last_input: float = field(default_factory=time.monotonic)


class Classroom(Server):
    def __init__(self, args: list[str], *, host: str, port: int, title: str, token: str,
                 max_sessions: int, idle_timeout: float, limits: TabLimits,
                 tab_cwd: Path | None = None) -> None:
        super().__init__(" ".join(args), host=host, port=port, title=title)
        self.args, self.token, self.limits, self.tab_cwd = args, token, limits, tab_cwd
        self.max_sessions, self.idle_timeout = max_sessions, idle_timeout
        self.tabs: dict[str, Tab] = {}
        self.zygote: TabZygote | None = None
        self._idle_task: asyncio.Task[None] | None = None

    def tab_zygote(self) -> TabZygote:
        """The tabs' zygote: started with the server (its imports done before the first student
        comes), and again if it died. Its environment is every tab's: textual-serve's for an app
        (which reads only ``debug``, a Server's too) and ours."""
        if self.zygote is None or self.zygote.process.poll() is not None:
            if self.zygote is not None:
                self.zygote.close()
            self.zygote = TabZygote(tab_environment(AppService._build_environment(self),
                                                    Path(os.devnull)))
        return self.zygote

    # -- routes ---------------------------------------------------------------------------------
    async def _make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws/{token}", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.get("/class", self.handle_class, name="teacher"),
            web.static("/static", self.statics_path, name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    def _has_token(self, request: web.Request, given: str | None = None) -> bool:
        for candidate in (given, request.query.get("token"), request.cookies.get(COOKIE)):
            if candidate and secrets.compare_digest(candidate, self.token):
                return True
        return False

    def _refuse(self, request: web.Request) -> None:
        if not self._has_token(request):
            raise web.HTTPForbidden(text="403: this classroom needs its token "
                                         "(the URL `gewb serve` printed)\n")

    async def handle_index(self, request: web.Request) -> web.Response:
        self._refuse(request)
        if len(self.tabs) >= self.max_sessions:
            return _page("The class is full",
                         f"The class is full: {self.max_sessions} tabs are open. "
                         f"Try again when one closes.", status=503)
        scheme = "wss" if request.secure else "ws"
        context = {
            "font_size": _to_int(request.query.get("fontsize", "16"), 16),
            # the address the browser used, never the one bound (0.0.0.0 is no place to go)
            "app_websocket_url": f"{scheme}://{request.host}/ws/{self.token}",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict")
        return response

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        self._refuse(request)
        return await super().handle_download(request)

    async def handle_class(self, request: web.Request) -> web.Response:
        """The teacher's view: every open tab, what it plays and where it stopped."""
        self._refuse(request)
        now = time.monotonic()
        rows = []
        for number, tab in enumerate(self.tabs.values(), 1):
            s = read_status(tab.folder / "status.json")
            cells = (str(number), s.lesson, s.step, s.last_stop, s.last_error,
                     f"{now - tab.opened:.0f} s", f"{now - tab.last_input:.0f} s")
            rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        head = "".join(f"<th>{h}</th>" for h in ("tab", "lesson", "step", "last stop",
                                                  "last error", "open", "idle"))
        body = (f"<p>{len(self.tabs)} of {self.max_sessions} tabs open</p>"
                f"<table><tr>{head}</tr>{''.join(rows)}</table>")
        return _page("The class", body, raw=True)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not self._has_token(request, request.match_info["token"]):
            raise web.HTTPForbidden(text="403: no token\n")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            raise web.HTTPForbidden(text="403: a websocket from another origin\n")
        if len(self.tabs) >= self.max_sessions:
            raise web.HTTPServiceUnavailable(text="503: the class is full\n")
        websocket = web.WebSocketResponse(heartbeat=15)
        if not websocket.can_prepare(request).ok:   # a plain GET: no tab to make (it was a 500)
            raise web.HTTPBadRequest(text="400: this address takes a websocket\n")
        width, height = _screen_size(request.query.get("width"), request.query.get("height"))
        folder = Path(tempfile.mkdtemp(prefix="gewb-tab-"))
        service = TabService(self, folder, write_bytes=websocket.send_bytes,
                             write_str=websocket.send_str, close=websocket.close,
                             download_manager=self.download_manager)
        tab = Tab(service, websocket, folder)
        self.tabs[service.app_service_id] = tab
        try:
            await websocket.prepare(request)
            await service.start(width, height)
            await self._messages(tab)
        except asyncio.CancelledError:
            pass
        except Exception as error:   # one tab's failure is logged; the class goes on
            log.exception(error)
        finally:
            del self.tabs[service.app_service_id]
            await service.stop()
            await websocket.close()
            shutil.rmtree(folder, ignore_errors=True)
        return websocket

    async def _messages(self, tab: Tab) -> None:
        """textual-serve's browser protocol: keys, resizes, pings, focus."""
        service, websocket = tab.service, tab.websocket
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, data = json.loads(message.data)[:2]
            except (ValueError, TypeError):
                continue
            if kind == "stdin" and isinstance(data, str):
                tab.last_input = time.monotonic()
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(*_screen_size(data.get("width"),
                                                              data.get("height")))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    # -- the server's life ------------------------------------------------------------------------
    async def on_startup(self, app: web.Application) -> None:
        self.tab_zygote()
        self._idle_task = asyncio.create_task(self._close_idle_tabs())

    async def _close_idle_tabs(self) -> None:
        while True:
            await asyncio.sleep(min(max(self.idle_timeout / 4, 0.5), 30))
            now = time.monotonic()
            for tab in list(self.tabs.values()):
                if now - tab.last_input > self.idle_timeout:
                    await tab.websocket.close()

    async def on_shutdown(self, app: web.Application) -> None:
        """Every tab's process group killed now (a busy tab does not wait for its turn)."""
        if self._idle_task is not None:
            self._idle_task.cancel()
        for tab in list(self.tabs.values()):
            tab.service.kill()
        for tab in list(self.tabs.values()):
            await tab.websocket.close()
        if self.zygote is not None:
            self.zygote.close()

    def serve(self, debug: bool = False) -> None:
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.add_signal_handler(signal.SIGINT, self.request_exit)
        loop.add_signal_handler(signal.SIGTERM, self.request_exit)
        web.run_app(self._make_app(), host=self.host, port=self.port, handle_signals=False,
                    loop=loop, print=lambda *args: None, shutdown_timeout=1.0)


def _to_int(value: object, default: int) -> int:
    try:
        return int(value)   # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def _screen_size(width: object, height: object) -> tuple[int, int]:
    """A browser's size in cells, within what a screen can be (a huge one would make the tab
    allocate it)."""
    return (min(max(_to_int(width, 80), 10), MAX_CELLS),
            min(max(_to_int(height, 24), 5), MAX_CELLS))


def _page(title: str, body: str, status: int = 200, raw: bool = False) -> web.Response:
    text = body if raw else f"<p>{html.escape(body)}</p>"
    return web.Response(status=status, content_type="text/html", text=(
        f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title>"
        f"<style>body{{font-family:monospace;background:#0c181f;color:#eee;padding:2em}}"
        f"td,th{{padding:0 1em;text-align:left}}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{text}</body></html>"))
