"""`gewb serve LESSON` for real: the server on a free loopback port (scripts/bench_serve.py's
Served), a headless Chromium (the distribution's, driven by Playwright) on its page, or a raw
client speaking textual-serve's websocket protocol as an attacker would. The screen is a
canvas, so what the app drew is read from the websocket frames textual-serve sends the page.

What is checked: the lesson plays in the browser; a served tab is a sandbox (no program, no
server path, saves arrive as downloads); no token, another origin: 403; past --max-sessions a
page says the class is full; /class lists the tabs; SIGTERM leaves nothing behind; a tab, forked
by the zygote, has its caps and folder, and one that fails says why."""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
import time
import urllib.error
import urllib.request
from typing import Callable

import pytest

from tui_testing import ROOT
from workbench.cli import main

sys.path.insert(0, str(ROOT / "scripts"))
from bench_serve import ANSI, FIRST_SAY, Served, Student  # noqa: E402

LESSON = "01_ir_nodes_and_anchors.gwb"
AFTER_PAUSE = "There is no Edge"   # short enough for one line of the narration panel
# As the workplace's own probe starts it: a closed network refuses background connections.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


@pytest.fixture
def served(request):
    server = Served(*getattr(request, "param", ()))
    try:
        yield server
    finally:
        server.stop()


def status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=30) as page:
            return page.status
    except urllib.error.HTTPError as exc:
        return exc.code


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as page:
        return page.read().decode()


# -- a browser -----------------------------------------------------------------------------------
class Browser:
    """A Chromium page on the served URL; ``screen()`` is what the app drew there."""

    def __init__(self, p, url: str) -> None:
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        self.browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        self.context = self.browser.new_context(accept_downloads=True)
        self.page = self.context.new_page()
        self.page.set_viewport_size({"width": 1400, "height": 900})
        self.frames: list[bytes] = []
        self.page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda data: self.frames.append(
                data if isinstance(data, bytes) else data.encode())))
        self.page.goto(url)

    def screen(self) -> str:
        return ANSI.sub(b"", b"".join(self.frames)).decode("utf-8", "ignore")

    def until(self, seen: Callable[[str], bool], what: str, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while not seen(self.screen()):
            assert time.monotonic() < deadline, \
                f"{what} never reached the browser; it shows: ...{self.screen()[-3000:]!r}"
            self.page.wait_for_timeout(200)   # (Playwright's loop delivers the frames)

    def command(self, line: str) -> None:
        self.page.locator(".textual-terminal").click()
        self.page.keyboard.press(":")
        self.page.wait_for_timeout(300)
        self.page.keyboard.type(line)
        self.page.keyboard.press("Enter")


@pytest.mark.slow
def test_a_browser_follows_a_lesson_and_a_key_advances_it(served):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = Browser(p, served.url)
        try:
            b.until(lambda s: FIRST_SAY in s and "[pause]" in s, "the first narration")
            assert AFTER_PAUSE not in b.screen()
            b.page.locator(".textual-terminal").click()
            b.page.keyboard.press("Space")   # Enter would act on the focused row
            b.until(lambda s: AFTER_PAUSE in s, "the narration after the pause")
        finally:
            b.browser.close()


@pytest.mark.slow
def test_a_student_cannot_run_a_program_or_touch_a_server_path_and_saves_download(
        served, tmp_path):
    from playwright.sync_api import sync_playwright
    program = ROOT / "sample_models" / "acl_inference.py"   # bundled, but not agreed to
    secret = tmp_path / "secret.txt"
    secret.write_text("the teacher's secret\n")
    with sync_playwright() as p:
        b = Browser(p, served.url)
        try:
            # the lesson parked at its first pause: what the student types now is a command
            b.until(lambda s: FIRST_SAY in s and "[pause]" in s, "the first pause")
            b.command(f"target {program}")
            b.until(lambda s: "runs only the host programs" in s, "the program's refusal")
            b.command(f"source {secret}")
            b.until(lambda s: "opens only the lesson's files" in s, "the read's refusal")
            assert "the teacher's secret" not in b.screen()
            with b.page.expect_download(timeout=60_000) as download:
                b.command(f"save-script {tmp_path / 'written.gwb'}")
            path = download.value.path()
            assert download.value.suggested_filename == "written.gwb"
            assert open(path).read().startswith("# GE Workbench session")
            assert not (tmp_path / "written.gwb").exists()   # nothing on the server
        finally:
            b.browser.close()


@pytest.mark.slow
@pytest.mark.parametrize("served", [("--max-sessions", "2")], indirect=True)
def test_past_max_sessions_the_class_is_full_and_the_teacher_sees_the_tabs(served):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        tabs = [Browser(p, served.url) for _ in range(2)]
        try:
            for tab in tabs:
                tab.until(lambda s: FIRST_SAY in s, "the first narration")
            third = Browser(p, served.url)
            try:
                assert "The class is full" in third.page.content()
            finally:
                third.browser.close()
            teacher = tabs[0].context.new_page()
            teacher.goto(f"{served.base}/class?token={served.token}")
            table = teacher.content()
            assert "2 of 2 tabs open" in table
            assert table.count("01_ir_nodes_and_anchors") == 2
        finally:
            for tab in tabs:
                tab.browser.close()


# -- a raw client, as an attacker's --------------------------------------------------------------
def test_without_the_token_the_page_and_the_websocket_are_refused(served):
    import aiohttp
    assert status(served.url) == 200
    assert status(served.base + "/") == 403
    assert status(served.base + "/?token=wrong") == 403
    assert status(served.base + "/class") == 403
    assert status(served.base + "/download/x") == 403

    async def handshake(url: str, origin: str | None) -> int:
        async with aiohttp.ClientSession() as session:
            try:
                ws = await session.ws_connect(url, headers={"Origin": origin} if origin else {})
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status
            await ws.close()
            return 101
    bad_token = served.ws_url.rsplit("/", 1)[0] + "/wrong"
    assert asyncio.run(handshake(bad_token, served.base)) == 403
    assert asyncio.run(handshake(served.ws_url, "http://evil.example:8000")) == 403
    assert asyncio.run(handshake(served.ws_url, f"http://localhost:{served.port}")) == 403
    assert asyncio.run(handshake(served.ws_url, served.base)) == 101
    # a plain GET with the token where a websocket goes is a bad request, and makes no tab
    # (found by scripts/fuzz.py --target serve: it was a 500)
    wrong_path = served.ws_url.rsplit("/", 1)[0] + "/x"
    assert status(f"{wrong_path}?token={served.token}".replace("ws://", "http://")) == 400
    assert status(served.ws_url.replace("ws://", "http://")) == 400


def test_the_page_uses_the_address_the_browser_used(served):
    page = fetch(served.url)
    assert f'"ws://127.0.0.1:{served.port}/ws/{served.token}"' in page
    assert "0.0.0.0" not in page


@pytest.mark.slow
@pytest.mark.parametrize("served", [("--idle-timeout", "0.1")], indirect=True)
def test_an_idle_tab_is_closed(served):
    import aiohttp

    async def play() -> float:
        async with aiohttp.ClientSession() as session:
            start = time.monotonic()
            tab = await Student(served.ws_url).connect(session)
            assert await tab.until(lambda s: s._reader.done(), 60), "the idle tab stayed open"
            assert tab.frames, "the tab never drew"
            return time.monotonic() - start
    assert asyncio.run(play()) >= 6   # 6 s without a key allowed


@pytest.mark.slow
def test_sigterm_ends_the_server_and_every_tab_within_5_s(served):
    import aiohttp

    async def open_tabs() -> list[int]:
        async with aiohttp.ClientSession() as session:
            tabs = [await Student(served.ws_url).connect(session) for _ in range(2)]
            for tab in tabs:
                assert await tab.until(lambda s: FIRST_SAY in s.text(), 90)
            pids = served.tab_pids()
            assert len(pids) == 2
            for pid in pids:   # a tab that does not answer: its quit message goes unread
                os.kill(pid, signal.SIGSTOP)
            took = served.stop()
            assert took < 5, f"the server took {took:.1f} s"
            return pids
    pids = asyncio.run(open_tabs())
    time.sleep(0.5)
    alive = [pid for pid in pids if os.path.exists(f"/proc/{pid}")
             and open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not alive, f"tab processes outlived the server: {alive}"


@pytest.mark.slow
def test_a_tab_never_imports_from_the_servers_folder(tmp_path):
    import aiohttp
    server = Served(cwd=tmp_path)   # then a file lands in its folder (a student's save, once)
    (tmp_path / "numpy.py").write_text("raise SystemExit('the server folder was imported')\n")

    async def first_screen() -> bool:
        async with aiohttp.ClientSession() as session:
            tab = await Student(server.ws_url).connect(session)
            return await tab.until(lambda s: FIRST_SAY in s.text(), 90)
    try:
        assert asyncio.run(first_screen())
    finally:
        server.stop()


@pytest.mark.slow
@pytest.mark.parametrize("agreed", [False, True])
def test_a_lessons_program_runs_only_if_the_teacher_agreed(tmp_path, agreed):
    import aiohttp
    (tmp_path / "prog.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('ran.txt').write_text('ran')\n")
    (tmp_path / "l.gwb").write_text("#   programs: prog.py\nsay the lesson begins\n"
                                    "target prog.py\ncontinue\nsay the lesson ends\n")
    server = Served(*(["--allow-programs"] if agreed else []), lesson=str(tmp_path / "l.gwb"))

    async def play() -> str:
        async with aiohttp.ClientSession() as session:
            tab = await Student(server.ws_url).connect(session)
            await tab.until(lambda s: "lesson ends" in s.text() or "runs only" in s.text(), 90)
            return tab.text()
    try:
        screen = asyncio.run(play())
    finally:
        server.stop()
    assert (tmp_path / "ran.txt").exists() == agreed
    assert ("a served tab runs only the host programs" in screen) != agreed


def test_serve_refuses_an_unknown_lesson_in_one_line(capsys):
    assert main(["serve", "no_such_lesson.gwb"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no lesson 'no_such_lesson.gwb'" in err


def test_a_non_loopback_address_says_who_can_reach_it():
    from argparse import Namespace

    from workbench.cli.serve import announcement
    args = Namespace(host="0.0.0.0", port=8000, idle_timeout=30.0, trusted=False)
    lines = announcement(args, "TOKEN", 30)
    assert lines[0].endswith(":8000/?token=TOKEN") and "0.0.0.0:" not in lines[0]
    assert [line for line in lines if "anyone who can reach" in line] == [
        "  listening on 0.0.0.0: anyone who can reach this machine's port 8000 and has the "
        "token can open a tab"]
    local = announcement(Namespace(**{**vars(args), "host": "127.0.0.1"}), "TOKEN", 30)
    assert not [line for line in local if "anyone" in line]


@pytest.mark.slow
def test_a_tab_process_is_capped_in_memory_and_cpu_in_a_folder_of_its_own():
    import aiohttp
    server = Served("--tab-memory-mb", "1500", "--tab-cpu-s", "60")

    async def open_tab() -> tuple[str, str]:
        async with aiohttp.ClientSession() as session:
            tab = await Student(server.ws_url).connect(session)
            assert await tab.until(lambda s: FIRST_SAY in s.text(), 90)
            [pid] = server.tab_pids()
            limits = open(f"/proc/{pid}/limits").read()
            folder = os.readlink(f"/proc/{pid}/cwd")
            await tab.close()
            return limits, folder
    try:
        limits, folder = asyncio.run(open_tab())
    finally:
        server.stop()
    assert re.search(r"Max cpu time\s+60\s+65\s+seconds", limits), limits
    assert re.search(rf"Max address space\s+{1500 << 20}\s+{1500 << 20}\s+bytes", limits), limits
    assert os.path.basename(folder).startswith("gewb-tab-")   # its own folder, not the server's


@pytest.mark.slow
def test_the_zygote_forks_tabs_that_end_on_their_own_and_say_why(tmp_path):
    """A tab's gewb ends in the forked child (never back in the zygote's loop): a failing one
    says why on its stderr and closes its output, and the zygote forks the next."""
    from workbench.serve.tab_process import TabLimits, tab_environment
    from workbench.serve.tab_zygote import TabZygote
    env = tab_environment(dict(os.environ), tmp_path / "status.json")
    zygote = TabZygote(env)

    async def tab(args: list[str]) -> tuple[str, str]:
        forked = await zygote.start_tab(args, env, tmp_path, TabLimits(3072, 60))
        out, err = await forked.stdout.read(), await forked.stderr.read()
        assert not forked.running
        return out.decode(), err.decode()
    try:
        _, failed = asyncio.run(tab(["no-such-command"]))
        version, _ = asyncio.run(tab(["--version"]))
        assert zygote.process.poll() is None
    finally:
        zygote.close()
    assert "invalid choice: 'no-such-command'" in failed
    assert version.startswith("gewb ")


def test_trusted_is_loopback_only(capsys):
    assert main(["serve", LESSON, "--trusted", "--host", "0.0.0.0"]) == 2
    assert "this machine only" in capsys.readouterr().err


@pytest.mark.slow
def test_the_load_test_smoke_run_reports_every_figure():
    from bench_serve import bench
    result = bench(tabs=2, duration=8)
    assert set(result) >= {"tabs", "rss_mb_per_tab", "first_screen_s", "key_to_frame_ms",
                           "errors"}
    assert result["tabs"] == 2 and result["errors"] == 0 and result["rss_mb_per_tab"] > 0
    assert result["first_screen_s"]["p50"] is not None
