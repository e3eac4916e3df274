"""Record and replay: a saved session replays to its transcript byte for byte; a bad line is
reported as file:line and stops the replay unless --keep-going; --expect shows a diff."""
import shutil
from pathlib import Path

from workbench.cli import main
from workbench.commands.session import DebugSession
from workbench.commands.replay import replay

ROOT = Path(__file__).resolve().parents[2]

SESSION = ["target tiny_cnn.onnx", "break pass IdentityPass", "continue",
           "watch node gap anchors", "continue", "print tensor conv1.w", "finish", "diff",
           "step node 3", "next", "reverse-step", "passes", "print node residual_add", "set seed 1",
           "run-to pass PrunePass", "goto 42", "where", "info breakpoints", "info watches",
           "delete 2", "continue", "disable 1", "continue", "print tensor prob", "timeline",
           "enable 1", "reverse-continue"]


def test_a_saved_session_replays_to_the_same_transcript_byte_for_byte(tmp_path):
    shutil.copy(ROOT / "sample_models" / "tiny_cnn.onnx", tmp_path)
    session = DebugSession(base_dir=tmp_path)
    for line in SESSION + ["print node no_such_node", "frobnicate"]:
        session.execute(line)   # the two failing lines are not saved
    session.execute("save-script lesson.gwb")
    session.close()
    script = tmp_path / "lesson.gwb"
    assert script.read_text().splitlines()[1:] == SESSION
    result = replay(script)
    assert result.errors == []
    assert result.transcript == session.transcript()
    assert replay(script).transcript == result.transcript   # and again


def test_save_script_elsewhere_keeps_the_target_reachable(tmp_path):
    session = DebugSession(base_dir=ROOT)
    session.execute("target sample_models/tiny_cnn.onnx")
    session.execute("step stage")
    session.execute(f"save-script {tmp_path / 'sub' / 's.gwb'}")
    session.close()
    result = replay(tmp_path / "sub" / "s.gwb")
    assert result.errors == [] and "stopped at tick" in result.transcript


def test_a_bad_line_reports_file_and_line_and_stops(tmp_path):
    script = tmp_path / "bad.gwb"
    script.write_text(f"target {ROOT / 'sample_models' / 'tiny_cnn.onnx'}\n"
                      "# a comment\n\nbreak pass NoSuchThing\nstep stage\n")
    result = replay(script)
    assert result.errors == ["bad.gwb:4: no pass named 'NoSuchThing' (GE's passes: "
                             + result.errors[0].split("(GE's passes: ")[1]]
    assert "> step stage" not in result.transcript
    assert result.transcript.splitlines()[-1].startswith("error: bad.gwb:4: no pass named")
    going = replay(script, keep_going=True)
    assert "> step stage" in going.transcript and len(going.errors) == 1


def test_say_and_pause_make_a_lesson(tmp_path):
    script = tmp_path / "lesson.gwb"
    script.write_text("say Hello, GE.\npause\nsay   spaced   out\n")
    assert replay(script).transcript == "Hello, GE.\n[pause]\nspaced   out\n"


def test_gewb_run_prints_the_transcript_and_checks_it(tmp_path, capsys):
    script = tmp_path / "s.gwb"
    script.write_text(f"target {ROOT / 'sample_models' / 'tiny_cnn.onnx'}\nstep stage\n")
    assert main(["run", str(script)]) == 0
    transcript = capsys.readouterr().out
    assert transcript.splitlines()[2] == "> step stage"
    expected = tmp_path / "s.expected.txt"
    expected.write_text(transcript)
    assert main(["run", str(script), "--expect", str(expected)]) == 0
    assert "transcript matches" in capsys.readouterr().out
    expected.write_text(transcript.replace("StageBegin stage=Prepare", "StageBegin stage=X"))
    assert main(["run", str(script), "--expect", str(expected)]) == 1
    out = capsys.readouterr().out
    assert "-  event: StageBegin stage=X graph=tiny_cnn" in out
    assert "+  event: StageBegin stage=Prepare graph=tiny_cnn" in out
    assert "transcript differs" in out


def test_gewb_run_errors(tmp_path, capsys):
    assert main(["run", str(tmp_path / "missing.gwb")]) == 2
    assert "no such script" in capsys.readouterr().err
    script = tmp_path / "bad.gwb"
    script.write_text("step\n")
    assert main(["run", str(script)]) == 1
    out = capsys.readouterr().out
    assert out == "> step\nerror: bad.gwb:1: no target: open one with `target FILE`\n"


def test_a_script_that_is_not_utf8_is_one_line_naming_the_file_and_byte(tmp_path, capsys):
    script = tmp_path / "latin1.gwb"
    script.write_bytes(b"# caf\xc3\xa9 is fine\nsay hello\nsay caf\xe9\n")
    assert main(["run", str(script)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"gewb run: {script}: not UTF-8 text (byte 33, line 3: 0xe9)\n"
    script.write_bytes(b"\xef\xbb\xbfsay with a byte-order mark\n")
    assert main(["run", str(script)]) == 0
    assert capsys.readouterr().out == "with a byte-order mark\n"


def test_quit_ends_a_script_there(tmp_path):
    script = tmp_path / "q.gwb"
    script.write_text("say one\nquit\nsay two\n")
    assert replay(script).transcript == "one\n> quit\n"


def test_an_expected_transcript_that_is_not_utf8_is_one_line_naming_it(tmp_path, capsys):
    script, expected = tmp_path / "ok.gwb", tmp_path / "expected.txt"
    script.write_text("say hello\n")
    expected.write_bytes(b"hello\n\xff\xfe\n")
    assert main(["run", str(script), "--expect", str(expected)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"gewb run: {expected}: not UTF-8 text (byte 6, line 2: 0xff)\n"
