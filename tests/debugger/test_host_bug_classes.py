"""Each host-program bug class (tests/host_bug_classes.py) through the REPL and a `.gwb`
script run by `gewb run`, and through `gewb devrun`; the app: tests/tui/test_host_programs.py."""
import io
import shutil
import sys
from pathlib import Path

import pytest

from workbench.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from host_bug_classes import BUGS, EXPECTED  # noqa: E402


def _in_order(out: str, lines: list[str]) -> None:
    at = 0
    for line in lines:
        found = out.find(line, at)
        assert found >= 0, f"{line!r} not in\n{out}"
        at = found + len(line)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_repl_reports_each_bug_class(name, tmp_path, capsys, monkeypatch):
    shutil.copy(BUGS / name, tmp_path / name)
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("handle all nostop\ncontinue\nquit\n"))
    main(["repl", name])
    _in_order(capsys.readouterr().out, EXPECTED[name][0])


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_script_reports_each_bug_class(name, tmp_path, capsys):
    shutil.copy(BUGS / name, tmp_path / name)
    script = tmp_path / "s.gwb"
    script.write_text(f"# a bug\n#   programs: {name}\ntarget {name}\nhandle all nostop\n"
                      "continue\n")
    main(["run", str(script), "--allow-programs"])
    _in_order(capsys.readouterr().out, EXPECTED[name][0])


@pytest.mark.parametrize("name, status", [("unpacked_handle.py", 1), ("wrong_stream.py", 0),
                                          ("freed_buffer.py", 1), ("forgotten_record.py", 1),
                                          ("raise_in_helper.py", 1), ("exit_3.py", 3)])
def test_devrun_reports_each_bug_class_and_exits_non_zero_when_a_call_failed(name, status,
                                                                             capsys):
    assert main(["devrun", str(BUGS / name)]) == status
    out = capsys.readouterr().out
    for line in EXPECTED[name][0]:
        if not line.startswith("exit status"):
            assert line in out
