"""`gewb serve LESSON` for real: the server on a free loopback port, a headless Chromium (the
distribution's, driven by Playwright) on its page; the lesson's first narration reaches the
browser, and a key pressed there advances the lesson. The screen is a canvas, so what the app
drew is read from the websocket frames textual-serve sends the page."""
from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Callable

import pytest

from tui_testing import ROOT
from workbench.cli import main

LESSON = "01_ir_nodes_and_anchors.gwb"
# Short enough to sit on one line of the narration panel at this page size.
FIRST_SAY, AFTER_PAUSE = "The parser turns", "There is no Edge"
# As the workplace's own probe starts it: a closed network refuses background connections.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
ANSI = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07]*\x07)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "workbench.cli", "serve", LESSON,
                             "--port", str(port)], cwd=ROOT, stdout=log, stderr=log)
    url = f"http://localhost:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as page:
                    assert page.status == 200
                    break
            except OSError:
                assert proc.poll() is None, (tmp_path / "serve.log").read_text()
                assert time.monotonic() < deadline, "the server did not answer in 60 s"
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.mark.slow
def test_a_browser_follows_a_lesson_and_a_key_advances_it(server):
    from playwright.sync_api import sync_playwright
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    frames: list[bytes] = []

    def screen() -> str:
        return ANSI.sub("", b"".join(frames).decode("utf-8", "ignore"))

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("websocket", lambda ws: ws.on(
                "framereceived", lambda data: frames.append(
                    data if isinstance(data, bytes) else data.encode())))
            page.goto(server)

            def until(seen: Callable[[str], bool], what: str) -> None:
                deadline = time.monotonic() + 90
                while not seen(screen()):
                    assert time.monotonic() < deadline, f"{what} never reached the browser"
                    page.wait_for_timeout(200)   # (Playwright's loop delivers the frames)

            until(lambda s: FIRST_SAY in s and "[pause]" in s, "the first narration")
            assert AFTER_PAUSE not in screen()
            page.locator(".textual-terminal").click()
            page.keyboard.press("Space")   # Enter would act on the focused row
            until(lambda s: AFTER_PAUSE in s, "the narration after the pause")
        finally:
            browser.close()


def test_serve_refuses_an_unknown_lesson_in_one_line(capsys):
    assert main(["serve", "no_such_lesson.gwb"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no lesson 'no_such_lesson.gwb'" in err
