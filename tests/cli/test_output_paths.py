"""Paths the user names for output, the same in the CLI and the debugger's commands (issue 15):
missing parent folders are made; a path that cannot be written is one line naming it; file names
made from the model's graph names stay inside the folder chosen."""
from __future__ import annotations

from pathlib import Path

import pytest

from v1_testing import TINY
from workbench.cli import main
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error

UNWRITABLE = "/proc/gewb-no/such"   # no folder can be made under /proc, even by root


def _cli_writes(tmp: Path, target: str) -> dict[str, list[str]]:
    """Each option that writes a file, with ``target`` as its path."""
    return {"exec --trace": ["exec", TINY, "--trace", f"{target}/t.json"],
            "exec --output": ["exec", TINY, "--output", f"{target}/o.npz"],
            "graph --dot": ["graph", TINY, "--dot", f"{target}/g.dot"],
            "compile -o": ["compile", TINY, "--no-cache", "-o", f"{target}/m.om"],
            "compile --dump": ["compile", TINY, "--no-cache", "--dump", f"{target}/dumps"]}


@pytest.mark.parametrize("option", list(_cli_writes(Path("."), "x")))
def test_the_cli_makes_missing_folders(option, tmp_path, capsys):
    argv = _cli_writes(tmp_path, str(tmp_path / "new" / "deeper"))[option]
    assert main(argv) == 0
    written = list((tmp_path / "new" / "deeper").iterdir())
    assert written and all(p.stat().st_size for p in written if p.is_file())


@pytest.mark.parametrize("option", list(_cli_writes(Path("."), "x")))
def test_the_cli_names_a_path_it_cannot_write(option, tmp_path, capsys):
    assert main(_cli_writes(tmp_path, UNWRITABLE)[option]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot write" in err and UNWRITABLE in err
    assert "Error" not in err and "internal error" not in err


def test_a_folder_given_as_an_output_file_is_one_line(tmp_path, capsys):
    assert main(["exec", TINY, "--output", str(tmp_path)]) == 2
    assert "cannot write (it is a folder)" in capsys.readouterr().err


def _session(tmp_path: Path) -> DebugSession:
    session = DebugSession(base_dir=tmp_path)
    session.execute(f"target {TINY}")
    session.execute("step stage")
    return session


@pytest.mark.parametrize("command, written", [
    ("save-script new/deeper/s.gwb", "new/deeper/s.gwb"),
    ("export trace new/deeper/t.json", "new/deeper/t.json"),
    ("dump new/deeper", "new/deeper"),
])
def test_the_debugger_makes_missing_folders_too(command, written, tmp_path):
    session = _session(tmp_path)
    outcomes = session.execute(command)
    assert not any(isinstance(o, Error) for o in outcomes), outcomes
    assert (tmp_path / written).exists()
    session.close()


@pytest.mark.parametrize("command", [f"save-script {UNWRITABLE}/s.gwb",
                                     f"export trace {UNWRITABLE}/t.json", f"dump {UNWRITABLE}"])
def test_the_debugger_names_a_path_it_cannot_write(command, tmp_path):
    session = _session(tmp_path)
    [outcome] = session.execute(command)
    assert isinstance(outcome, Error)
    assert "cannot write" in outcome.message and "internal error" not in outcome.message
    session.close()


def test_dump_file_names_from_graph_names_stay_in_the_folder(tmp_path):
    """A graph named ``../../escaped`` (names come from the model) is dumped inside DIR."""
    session = _session(tmp_path)
    session.debugger.state.graph.name = "../../escaped"
    session.execute("dump out/d")
    inside = sorted(p.name for p in (tmp_path / "out" / "d").iterdir())
    assert inside and all("escaped" in name and "/" not in name for name in inside)
    assert not list(tmp_path.parent.glob("*escaped*"))
    session.close()
