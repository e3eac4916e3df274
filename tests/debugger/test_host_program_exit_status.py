"""A host program's exit status is Python's: an exception it does not catch ends it with 1 (as
`python bad.py` would) and its own traceback (its frames only), sys.exit(N) with N,
sys.exit("msg") with 1 and the message, KeyboardInterrupt with 130; os._exit(N) ends the
program, not the workbench. Shown the same by the engine, the REPL and `gewb run` (the app's
log: tests/tui/test_app.py)."""
import io
import sys
from pathlib import Path

import pytest

from debugger_testing import debugger, finished
from workbench.cli import main

BAD = 'raise RuntimeError("boom")\n'


@pytest.mark.parametrize("source, summary", [
    (BAD, ("Traceback (most recent call last):", '  File "bad.py", line 1, in <module>',
           '    raise RuntimeError("boom")', "RuntimeError: boom",
           "error: bad.py:1: RuntimeError: boom", "exit status 1")),
    ("x = 1\n\n\ndef f():\n    return {}['key']\n\n\nf()\n",
     ("Traceback (most recent call last):", '  File "bad.py", line 8, in <module>', "    f()",
      '  File "bad.py", line 5, in f', "    return {}['key']", "KeyError: 'key'",
      "error: bad.py:5: KeyError: 'key'", "exit status 1")),
    ("import sys\nsys.exit(3)\n", ("exit status 3",)),
    ("import sys\nsys.exit('a message')\n", ("error: a message", "exit status 1")),
    ("import os\nos._exit(3)\n", ("error: os._exit(3)", "exit status 3")),
    ("raise KeyboardInterrupt\n", ("Traceback (most recent call last):",
                                   '  File "bad.py", line 1, in <module>',
                                   "    raise KeyboardInterrupt", "KeyboardInterrupt",
                                   "error: bad.py:1: KeyboardInterrupt", "exit status 130")),
    ("import io, sys\nsys.stdout = io.StringIO()\nsys.stderr = io.StringIO()\n",
     ("exit status 0",)),
    ("print('fine')\n", ("exit status 0",)),
])
def test_the_engine_ends_a_program_with_python_s_exit_status(tmp_path: Path, source, summary):
    (tmp_path / "bad.py").write_text(source)
    streams = sys.stdout, sys.stderr
    d = debugger(str(tmp_path / "bad.py"))
    try:
        assert finished(d.cont()).summary == summary
    finally:
        d.close()
    assert (sys.stdout, sys.stderr) == streams   # the workbench's own, whatever it did


def test_gewb_run_and_the_repl_show_exit_status_1_after_an_exception(tmp_path: Path, capsys,
                                                                     monkeypatch):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "s.gwb").write_text("# a lesson\n#   programs: bad.py\ntarget bad.py\n"
                                    "continue\n")
    main(["run", str(tmp_path / "s.gwb"), "--allow-programs"])
    out = capsys.readouterr().out
    assert '  File "bad.py", line 1, in <module>\n' in out
    assert "  error: bad.py:1: RuntimeError: boom\n  exit status 1\n" in out
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("continue\nquit\n"))
    main(["repl", "bad.py"])
    out = capsys.readouterr().out
    assert "  error: bad.py:1: RuntimeError: boom\n  exit status 1\n" in out
