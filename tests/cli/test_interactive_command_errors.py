"""The interactive commands' own one-line errors (gewb, gewb repl, gewb serve, gewb tui: a bad
argument, a missing lesson or target) pass through the one escape (workbench/terminal_text.py)
like every other face: a path carrying an OSC title or a screen clear is shown escaped, and no
control character reaches the terminal."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVIL = "/nope/\x1b]0;owned\x07\x1b[2Jx"
SHOWN = "\\x1b]0;owned\\x07\\x1b[2Jx"


def gewb(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


@pytest.mark.parametrize("args, env, said", [
    ((EVIL + ".onnx",), {}, "gewb: error: argument COMMAND: invalid choice"),
    (("repl", "a.onnx", EVIL), {}, "gewb: error: unrecognized arguments: "),
    (("serve", EVIL + ".onnx"), {}, "gewb serve: no such target: "),
    (("serve", EVIL + ".gwb"), {}, "gewb serve: no lesson '"),
    (("serve", "--port", EVIL), {}, "gewb serve: error: argument --port: invalid int value"),
    (("tui", "a.onnx", EVIL), {}, "gewb: error: unrecognized arguments: "),
    # past the terminal check, as under `gewb serve`: the missing lesson is the error
    (("tui", EVIL + ".gwb"), {"TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"},
     "gewb tui: no lesson '"),
])
def test_an_interactive_command_s_error_shows_the_path_escaped(args, env, said):
    done = gewb(*args, **env)
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert "\x1b" not in out and "\x07" not in out
    line = next(line for line in out.splitlines() if said in line)
    assert SHOWN in line
