"""A host program's exit status is Python's: an exception it does not catch ends it with 1 (as
`python bad.py` would), sys.exit(N) with N; shown the same by the engine, the REPL and `gewb
run` (the app's log: tests/tui/test_app.py)."""
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from debugger_testing import debugger, finished
from workbench.cli import main

BAD = 'raise RuntimeError("boom")\n'


@pytest.mark.parametrize("source, summary", [
    (BAD, ("error: bad.py:1: RuntimeError: boom", "exit status 1")),
    ("x = 1\n\n\ndef f():\n    return {}['key']\n\n\nf()\n",
     ("error: bad.py:5: KeyError: 'key'", "exit status 1")),
    ("import sys\nsys.exit(3)\n", ("exit status 3",)),
    ("import sys\nsys.exit('a message')\n", ("exit status 1",)),
    ("print('fine')\n", ("exit status 0",)),
])
def test_the_engine_ends_a_program_with_python_s_exit_status(tmp_path: Path, source, summary):
    (tmp_path / "bad.py").write_text(source)
    d = debugger(str(tmp_path / "bad.py"))
    try:
        assert finished(d.cont()).summary == summary
    finally:
        d.close()


def test_gewb_run_and_the_repl_show_exit_status_1_after_an_exception(tmp_path: Path, capsys,
                                                                     monkeypatch):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "s.gwb").write_text("# a lesson\n#   programs: bad.py\ntarget bad.py\n"
                                    "continue\n")
    main(["run", str(tmp_path / "s.gwb"), "--allow-programs"])
    out = capsys.readouterr().out
    assert "  error: bad.py:1: RuntimeError: boom\n  exit status 1\n" in out
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.chdir(tmp_path)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("continue\nquit\n")
        main(["repl", "bad.py"])
    out = capsys.readouterr().out
    assert "  error: bad.py:1: RuntimeError: boom\n  exit status 1\n" in out
