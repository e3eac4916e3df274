"""Load test of `gewb serve`: the server on a free loopback port, and N simulated students
speaking textual-serve's websocket protocol. Each plays lesson 01: Enter at each pause, then
steps (s), and once the run is over, looks at the panes (1-7 but 6): a key every 1-3 s, for
--duration seconds.

    python scripts/bench_serve.py --tabs 30 --json
    python scripts/bench_serve.py --smoke          # 2 tabs, 10 s: that it works

Prints {"tabs", "rss_mb_per_tab", "pss_mb_per_tab", "first_screen_s": {p50, p95},
"key_to_frame_ms": {p50, p95}, "key_to_frame_ms_all_open", "keys_without_frame", "errors",
"cpu_s", "load_1min"}: errors are a tab that did not connect, never drew the lesson or closed;
a key whose screen did not change in 5 s is counted apart; all_open: the keys pressed once
every tab had drawn its first screen (no tab starting). RSS counts the pages a tab shares in full,
PSS its share of them (the tabs' zygote included). cpu_s is where the CPU went (the server's relay,
the tabs, these students). load_1min is the machine's load before and after: figures are comparable
only at the same load, so compare trees side by side (--tree). Only loopback traffic; every loop is
bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSON = "01_ir_nodes_and_anchors.gwb"
FIRST_SAY = "The parser turns"   # lesson 01's first narration: the tab's first real screen
ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|.)")
PAUSES = 3                       # lesson 01's pauses: Enter at each, then steps
FINISHED = "finished at tick"    # the run is over: a step key has nothing left to do
PANE_KEYS = "123457"             # ... so the student looks around its panes (6, source: none)
KEY_WAIT = 5.0                   # seconds a key's frame is waited for


def _die_with_parent() -> None:
    """The server dies with whoever started it (a fuzz worker killed on a hang included)."""
    import ctypes
    import signal
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`gewb serve` in a subprocess on a free loopback port; ``url`` holds the token."""

    def __init__(self, *args: str, lesson: str = LESSON, cwd: Path = ROOT,
                 tree: Path = ROOT) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "workbench.cli", "serve", lesson, "--host", "127.0.0.1",
             "--port", str(self.port), *args], cwd=cwd, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, preexec_fn=_die_with_parent,
            env={**os.environ, "PYTHONPATH": str(tree)})
        # the last lines it printed (its access log: a line a request), read as they come: a
        # pipe nobody reads fills after ~1k requests, and the server blocks writing its log
        self.lines: deque[str] = deque(maxlen=200)
        line = self.proc.stdout.readline()   # the first line names the URL with the token
        self.lines.append(line)
        match = re.search(r"\?token=(\S+)", line)
        if match is None:
            self.stop()
            raise RuntimeError(f"gewb serve did not start: {line}{self.proc.stdout.read()}")
        self.token = match.group(1)
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/?token={self.token}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws/{self.token}"
        self._wait_listening()
        threading.Thread(target=self.lines.extend, args=(self.proc.stdout,), daemon=True).start()

    def _wait_listening(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if self.proc.poll() is not None:
                raise RuntimeError(f"gewb serve exited: {self.proc.stdout.read()}")
            time.sleep(0.1)
        raise RuntimeError("gewb serve did not listen in 60 s")

    def descendants(self) -> dict[int, int]:
        """The server's descendant processes (its zygote, the tabs, their programs): pid ->
        the session each is in."""
        children: dict[int, list[int]] = {}
        session: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdecimal():
                try:
                    stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                children.setdefault(int(stat[1]), []).append(int(entry.name))
                session[int(entry.name)] = int(stat[3])
        found, todo = {}, list(children.get(self.proc.pid, []))
        while todo:
            pid = todo.pop()
            found[pid] = session[pid]
            todo.extend(children.get(pid, []))
        return found

    def tab_pids(self) -> list[int]:
        """The tab processes: each leads its own session."""
        return tab_pids(self.descendants())

    def stop(self, timeout: float = 30) -> float:
        """SIGTERM, and the seconds the server took to exit."""
        start = time.monotonic()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return time.monotonic() - start


def tab_pids(descendants: dict[int, int]) -> list[int]:
    return [pid for pid, session in descendants.items() if pid == session]


def memory_mb(pid: int, field: str, file: str) -> float:
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_s(pid: int) -> float:
    """The user and system CPU seconds a process has used."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory, pages shared with other tabs (and the zygote) counted in full."""
    return memory_mb(pid, "VmRSS:", "status")


def pss_mb(pid: int) -> float:
    """Proportional memory: a page shared by n processes counts 1/n in each."""
    return memory_mb(pid, "Pss:", "smaps_rollup")


@dataclass
class Student:
    """One browser tab, as textual-serve's page speaks to the server."""
    ws_url: str
    origin: str | None = None
    screen: bytearray = field(default_factory=bytearray)
    texts: list[str] = field(default_factory=list)   # the JSON messages (downloads ...)
    frames: int = 0

    async def connect(self, session, width: int = 160, height: int = 48):
        headers = {"Origin": self.origin} if self.origin else {}
        self._changed = asyncio.Event()   # a message came, or the websocket closed
        self._text: tuple[int, str] = (0, "")
        self.ws = await session.ws_connect(f"{self.ws_url}?width={width}&height={height}",
                                           headers=headers)
        await self.ws.send_json(["resize", {"width": width, "height": height}])
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        import aiohttp
        try:
            async for message in self.ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    self.screen += message.data
                    self.frames += 1
                elif message.type == aiohttp.WSMsgType.TEXT:
                    self.texts.append(message.data)
                self._changed.set()
        finally:
            self._changed.set()

    def text(self) -> str:
        """The screen's text so far (decoded once per new frame: 30 students polling a growing
        screen would load the machine the server is measured on)."""
        if self._text[0] != len(self.screen):
            self._text = (len(self.screen),
                          ANSI.sub(b"", bytes(self.screen)).decode("utf-8", "ignore"))
        return self._text[1]

    async def until(self, seen, seconds: float) -> bool:
        """Whether ``seen`` came true within ``seconds`` (looked at as each message comes)."""
        deadline = time.monotonic() + seconds
        while True:
            self._changed.clear()
            if seen(self):
                return True
            left = deadline - time.monotonic()
            if left <= 0 or self._reader.done():
                return False
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def key(self, keys: str) -> float | None:
        """Send keys; the milliseconds until the next frame (None: none came)."""
        before, start = self.frames, time.monotonic()
        await self.ws.send_json(["stdin", keys])
        if await self.until(lambda s: s.frames > before, KEY_WAIT):
            return (time.monotonic() - start) * 1000
        return None

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


async def _student(ws_url: str, duration: float, rng: random.Random, out: dict) -> None:
    import aiohttp
    start = time.monotonic()
    async with aiohttp.ClientSession() as session:
        try:
            tab = await Student(ws_url).connect(session)
        except aiohttp.ClientError as exc:
            out["errors"].append(f"connect: {exc}")
            return
        try:
            if not await tab.until(lambda s: FIRST_SAY in s.text(), 120):
                out["errors"].append("no first screen in 120 s")
                return
            out["first_screen_s"].append(time.monotonic() - start)
            out["drawn_at"].append(time.monotonic())
            presses = 0
            while time.monotonic() - start < duration:
                await asyncio.sleep(rng.uniform(1, 3))
                ms = await tab.key(_next_key(tab, presses))
                presses += 1
                if ms is None:   # a key that changed nothing on screen (or a tab that is slow)
                    out["keys_without_frame"] += 1
                else:
                    out["key_to_frame_ms"].append(ms)
                    out["key_at"].append(time.monotonic())
                if tab._reader.done():
                    out["errors"].append("the tab closed")
                    return
        finally:
            await tab.close()


def _next_key(tab: Student, presses: int) -> str:
    """Enter at the lesson's pauses, then steps; once the run is over, the panes in turn."""
    if presses < PAUSES:
        return "\r"
    return PANE_KEYS[presses % len(PANE_KEYS)] if FINISHED in tab.text() else "s"


def _percentiles(values: list[float], scale: int = 1) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None}
    p95 = statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 \
        else values[0]
    return {"p50": round(statistics.median(values), scale), "p95": round(p95, scale)}


def bench(tabs: int, duration: float, seed: int = 0, tree: Path = ROOT) -> dict:
    server = Served("--max-sessions", str(tabs), cwd=tree, tree=tree)
    out: dict = {"errors": [], "first_screen_s": [], "drawn_at": [], "key_to_frame_ms": [],
                 "key_at": [],
                 "keys_without_frame": 0}
    rss: list[float] = []
    pss: list[float] = []
    cpu: dict[str, float] = {}   # where the CPU went, near the end: what delays a key's frame
    load = [os.getloadavg()[0]]

    async def run() -> None:
        async def sample() -> None:
            """Memory per tab and the CPU used, each second, kept from the last second the
            most tabs were open (a tab's process comes some time after its websocket)."""
            while True:
                descendants = server.descendants()
                tabs_open = tab_pids(descendants)
                if tabs_open and len(tabs_open) >= len(rss):
                    rss[:] = map(rss_mb, tabs_open)
                    pss[:] = map(pss_mb, descendants)   # the zygote's share too
                    used = resource.getrusage(resource.RUSAGE_SELF)
                    cpu.update(server=cpu_s(server.proc.pid),
                               tabs=sum(map(cpu_s, descendants)),
                               students=used.ru_utime + used.ru_stime)
                await asyncio.sleep(1)
        sampler = asyncio.create_task(sample())
        await asyncio.gather(*(
            _student(server.ws_url, duration, random.Random(seed * 1000 + i), out)
            for i in range(tabs)))
        sampler.cancel()
    try:
        asyncio.run(run())
    finally:
        server.stop()
        load.append(os.getloadavg()[0])
    return {"tabs": tabs,
            "rss_mb_per_tab": round(sum(rss) / len(rss), 1) if rss else None,
            "pss_mb_per_tab": round(sum(pss) / len(rss), 1) if rss else None,
            "first_screen_s": _percentiles(out["first_screen_s"], 2),
            "key_to_frame_ms": _percentiles(out["key_to_frame_ms"], 0),
            # the keys pressed once every tab had drawn (none was starting, loading the CPU)
            "key_to_frame_ms_all_open": _percentiles(
                [ms for ms, at in zip(out["key_to_frame_ms"], out["key_at"])
                 if out["drawn_at"] and at - ms / 1000 > max(out["drawn_at"])], 0),
            "keys_without_frame": out["keys_without_frame"],
            "errors": len(out["errors"]),
            "cpu_s": {k: round(v, 1) for k, v in cpu.items()},
            "load_1min": [round(x, 1) for x in load],   # the machine's, before and after
            **({"error_kinds": sorted(set(out["errors"]))} if out["errors"] else {})}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tabs", type=int, default=30)
    p.add_argument("--duration", type=float, default=60, help="seconds each student plays")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke", action="store_true", help="2 tabs for 10 s")
    p.add_argument("--json", action="store_true", help="the result as one JSON line")
    p.add_argument("--tree", type=Path, default=ROOT,
                   help="the workbench checkout to serve (default this one): another's "
                        "figures, side by side, on the same machine and load")
    args = p.parse_args()
    if args.smoke:
        args.tabs, args.duration = 2, 10
    result = bench(args.tabs, args.duration, args.seed, args.tree.resolve())
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
