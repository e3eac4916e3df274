"""A script's `target X.py` runs X with the user's rights (issue 15, security): replaying it needs
the user's consent, to the programs its `# programs:` header names: `gewb run --allow-programs`,
or y at the REPL's (and the app's) question. Refusing is one line naming the program and the
flag, and the program does not run. A line the user types is the user's own consent."""
import io
import sys
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error, Finished
from workbench.script.consent import Consent, ConsentRefused, named_programs
from workbench.commands.replay import replay

# A host program that leaves a mark when it runs: the honest test of "it did not run".
PROGRAM = "from pathlib import Path\nPath(__file__).with_name('ran.txt').write_text('ran')\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "s.gwb").write_text("# a lesson\n#   programs: prog.py\ntarget prog.py\n"
                                    "continue\n")
    return tmp_path


def _ran(folder: Path) -> bool:
    return (folder / "ran.txt").exists()


def test_gewb_run_refuses_in_one_line_naming_the_program_and_the_flag(folder, capsys):
    assert main(["run", str(folder / "s.gwb")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"gewb run: s.gwb runs the host program {folder / 'prog.py'}: pass "
                   f"--allow-programs to let it (it runs with your rights)\n")
    assert not _ran(folder)


def test_gewb_run_allow_programs_runs_it(folder, capsys):
    assert main(["run", str(folder / "s.gwb"), "--allow-programs"]) == 0
    assert "exit status 0" in capsys.readouterr().out and _ran(folder)


@pytest.mark.parametrize("header", ["# no header\n", "#   programs: other.py\n"])
def test_a_program_the_header_does_not_name_never_runs(folder, header, capsys):
    (folder / "s.gwb").write_text(header + "target prog.py\ncontinue\n")
    assert main(["run", str(folder / "s.gwb"), "--allow-programs"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == (
        "error: s.gwb:2: target prog.py: a host program this script's header does not name: "
        "add `# programs: prog.py` to it, then replay it with --allow-programs")
    assert not _ran(folder)


def test_a_face_that_asks_names_the_program_and_yes_runs_it(folder):
    questions = []
    result = replay(folder / "s.gwb", consent=Consent(ask=lambda q: questions.append(q) or True))
    assert result.errors == [] and _ran(folder)
    assert questions == [f"s.gwb runs the host program {folder / 'prog.py'} (Python, with your "
                         f"rights). Run it?"]


def test_no_is_refused_before_anything_runs(folder):
    with pytest.raises(ConsentRefused, match=r"prog.py: not run \(you answered no; "
                                             r"--allow-programs agrees up front\)"):
        replay(folder / "s.gwb", consent=Consent(ask=lambda q: False))
    assert not _ran(folder)


def test_a_line_the_user_types_is_their_consent(folder):
    def never(question: str) -> bool:
        raise AssertionError("asked")
    session = DebugSession(base_dir=folder, consent=Consent(ask=never))
    session.execute("target prog.py")
    assert isinstance(session.execute("continue")[-1], Finished) and _ran(folder)
    session.close()


def test_source_asks_and_a_nested_script_keeps_its_own_limits(folder):
    (folder / "outer.gwb").write_text("source s.gwb\n")
    answers = iter([True])
    session = DebugSession(base_dir=folder, consent=Consent(ask=lambda q: next(answers)))
    outcomes = session.execute("source outer.gwb")
    assert not any(isinstance(o, Error) for o in outcomes) and _ran(folder)
    assert session.programs is None and session.base_dir == folder   # typing again after it
    (folder / "bare.gwb").write_text("target prog.py\n")
    (out,) = [o for o in session.execute("source bare.gwb") if isinstance(o, Error)]
    assert out.message.startswith("bare.gwb:1: target prog.py: a host program this script's")
    session.close()


def test_a_script_that_sources_itself_is_one_line(folder):
    (folder / "loop.gwb").write_text("source loop.gwb\n")
    session = DebugSession(base_dir=folder)
    (out,) = [o for o in session.execute("source loop.gwb") if isinstance(o, Error)]
    assert out.message == "loop.gwb:1: source loop.gwb: it is running already (a script " \
                          "sourcing itself)"
    session.close()


def test_the_repl_asks_y_n(folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.chdir(folder)
    # piped: each y/N is the line after the command that asks it
    monkeypatch.setattr(sys, "stdin", io.StringIO("source s.gwb\nn\nsource s.gwb\ny\nquit\n"))
    assert main(["repl"]) == 0
    out = capsys.readouterr().out
    assert "error: s.gwb runs the host program" in out and "you answered no" in out
    assert "exit status 0" in out and _ran(folder)


def test_save_script_names_the_programs_it_opens(folder):
    session = DebugSession(base_dir=folder)
    session.execute("target prog.py")
    session.execute("save-script saved/again.gwb")
    session.close()
    text = (folder / "saved" / "again.gwb").read_text()
    assert named_programs(text) == ["../prog.py"]
    assert replay(folder / "saved" / "again.gwb", consent=Consent(allow=True)).errors == []
