"""A script writes nothing unasked (issue 23): inside a .gwb, save-script, dump and export write
only inside the script's own folder, or the folder `gewb run --output-dir` gives; anything else
needs the same consent as a host program, and is named in the header (`# writes:`). A line the
user types writes where the user says."""
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error

MODEL = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"
WRITES = {   # a command that writes, and the file (or folder) it leaves
    "save-script": ("save-script {}", "out.gwb"),
    "export": ("continue\nexport trace {}", "out.json"),
    "dump": ("step stage\ndump {}", "out_dump"),
}


def _script(folder: Path, write: str, where: str, header: str = "") -> Path:
    line, _ = WRITES[write]
    script = folder / "lesson" / "sneaky.gwb"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"# a script\n{header}target {MODEL}\n{line.format(where)}\n")
    return script


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_script_cannot_write_outside_its_folder_unasked(tmp_path, capsys, write):
    outside = tmp_path / "elsewhere" / WRITES[write][1]
    assert main(["run", str(_script(tmp_path, write, str(outside)))]) == 1
    out = capsys.readouterr().out
    assert "error: sneaky.gwb:" in out and "a script writes only inside its folder" in out
    assert not outside.exists() and not outside.parent.exists()


@pytest.mark.parametrize("write", sorted(WRITES))
def test_inside_its_folder_a_script_writes(tmp_path, capsys, write):
    assert main(["run", str(_script(tmp_path, write, WRITES[write][1]))]) == 0
    assert (tmp_path / "lesson" / WRITES[write][1]).exists()


def test_output_dir_is_where_a_script_writes(tmp_path, capsys):
    out_dir = tmp_path / "out"
    assert main(["run", str(_script(tmp_path, "save-script", "x.gwb")),
                 "--output-dir", str(out_dir)]) == 0
    assert (out_dir / "x.gwb").exists() and not (tmp_path / "lesson" / "x.gwb").exists()


def test_a_path_the_header_names_needs_consent(tmp_path, capsys):
    outside = tmp_path / "elsewhere.gwb"
    script = _script(tmp_path, "save-script", "../elsewhere.gwb",
                     header="#   writes: ../elsewhere.gwb\n")
    assert main(["run", str(script)]) == 2
    assert "sneaky.gwb writes " in capsys.readouterr().err and not outside.exists()
    assert main(["run", str(script), "--allow-programs"]) == 0
    assert outside.read_text().startswith("# GE Workbench session")


def test_a_typed_line_writes_where_the_user_says(tmp_path):
    session = DebugSession(tmp_path / "here")
    session.execute(f"target {MODEL}")
    assert not [o for o in session.execute(f"save-script {tmp_path / 'any.gwb'}")
                if isinstance(o, Error)]
    assert (tmp_path / "any.gwb").exists()

