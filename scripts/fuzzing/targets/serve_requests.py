"""`gewb serve` as an attacker reaches it: HTTP requests with and without the token, websocket
handshakes from any origin, and malformed textual-serve envelopes sent down one open tab. Bad:
a page, websocket or download answered without the right token (CORRUPT: the classroom is
open), a 5xx other than "the class is full", or a server or tab that stops answering (HANG).
The server starts once per worker (scripts/bench_serve.py's Served), on a loopback port."""
from __future__ import annotations

import asyncio
import json
import sys
import threading
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from fuzzing.onnx_mutations import ROOT
from fuzzing.targets import Target
from fuzzing.verdict import CORRUPT, HANG, OK, TYPED, Verdict

PATHS = ("/", "/class", "/ws/{token}", "/ws/x", "/download/{token}", "/static/js/textual.js",
         "/static/../../etc/passwd", "/%2e%2e/", "/ws", "/download/")
ENVELOPE_KINDS = ("stdin", "resize", "ping", "blur", "focus", "nonsense")


def cases() -> st.SearchStrategy:
    token = st.sampled_from(("right", "wrong", "none", "empty"))
    origin = st.sampled_from(("none", "same", "other", "null"))
    http = st.tuples(st.just("http"), st.sampled_from(PATHS), token,
                     st.text(max_size=20))
    handshake = st.tuples(st.just("ws"), token, origin)
    value = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                         lambda inner: st.lists(inner, max_size=3)
                         | st.dictionaries(st.sampled_from(("width", "height", "x")), inner,
                                           max_size=3), max_leaves=6)
    envelope = st.one_of(st.tuples(st.sampled_from(ENVELOPE_KINDS), value).map(list),
                         st.lists(value, max_size=3), value)
    raw = st.one_of(envelope.map(json.dumps), st.text(max_size=30),
                    st.binary(max_size=30))
    messages = st.tuples(st.just("messages"), st.lists(raw, min_size=1, max_size=5))
    return st.one_of(http, handshake, messages)


@dataclass
class Classroom:
    server: Any
    loop: asyncio.AbstractEventLoop
    session: Any = None
    tab: Any = None

    def call(self, coro, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)


def setup(workdir: str) -> Classroom:
    """The server, and one tab kept open for the envelopes (a tab costs seconds to start)."""
    import aiohttp
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_serve import FIRST_SAY, Served, Student
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    room = Classroom(Served("--max-sessions", "3"), loop)

    async def open_tab() -> None:
        room.session = aiohttp.ClientSession()
        room.tab = await Student(room.server.ws_url).connect(room.session)
        await room.tab.until(lambda s: FIRST_SAY in s.text(), 120)
    room.call(open_tab(), 150)
    return room


def _token(room: Classroom, which: str) -> str:
    token = room.server.token
    # one character off: "x" first, unless the token begins with "x" (1 in 64 of them, whose
    # "wrong" token was the right one, accepted: a CI run saw the classroom "open")
    wrong = ("y" if token.startswith("x") else "x") + token[1:]
    return {"right": token, "wrong": wrong, "none": "", "empty": ""}[which]


async def _http(room: Classroom, path: str, which: str, junk: str) -> Verdict:
    token = _token(room, which)
    url = room.server.base + path.format(token=token or "none")
    params = {"token": token} if which in ("right", "wrong", "empty") else {}
    params["fontsize"] = junk
    async with room.session.get(url, params=params, allow_redirects=False) as response:
        status = response.status
        body = await response.text(errors="replace")
    gated = path.split("/")[1] in ("", "class", "download")
    if gated and which != "right" and status == 200:
        return Verdict(CORRUPT, f"GET {path} with token {which}: 200 (the classroom is open)")
    if status >= 500 and "class is full" not in body.lower():
        return Verdict(HANG, f"GET {path} with token {which}: {status}")
    return Verdict(OK if status == 200 else TYPED)


async def _handshake(room: Classroom, which: str, origin: str) -> Verdict:
    import aiohttp
    url = room.server.ws_url.rsplit("/", 1)[0] + "/" + (_token(room, which) or "none")
    headers = {"same": {"Origin": room.server.base}, "other": {"Origin": "http://evil.test"},
               "null": {"Origin": "null"}, "none": {}}[origin]
    try:
        ws = await room.session.ws_connect(url, headers=headers)
    except aiohttp.WSServerHandshakeError as exc:
        return Verdict(TYPED if exc.status in (403, 503) else HANG,
                       f"handshake {which}/{origin}: {exc.status}")
    await ws.close()
    if which != "right" or origin in ("other", "null"):
        return Verdict(CORRUPT, f"websocket with token {which}, origin {origin}: accepted")
    return Verdict(OK)


async def _messages(room: Classroom, raws: list) -> Verdict:
    if room.tab._reader.done():   # the last case's keys quit the app (q, :quit): a new tab
        from bench_serve import Student
        room.tab = await Student(room.server.ws_url).connect(room.session)
    ws = room.tab.ws
    for raw in raws:
        await (ws.send_bytes(raw) if isinstance(raw, bytes) else ws.send_str(raw))
    before = len(room.tab.texts)
    await ws.send_json(["ping", "alive"])
    answered = await room.tab.until(lambda s: len(s.texts) > before, 20)
    if not answered and not room.tab._reader.done():
        return Verdict(HANG, f"the server stopped answering after {raws!r}"[:300])
    return Verdict(OK)


def run(case: tuple, room: Classroom) -> Verdict:
    kind, *rest = case
    if room.server.proc.poll() is not None:
        return Verdict(HANG, "the server exited")
    if kind == "http":
        return room.call(_http(room, *rest))
    if kind == "ws":
        return room.call(_handshake(room, *rest))
    return room.call(_messages(room, rest[0]))


TARGET = Target("serve", cases, setup, run)
