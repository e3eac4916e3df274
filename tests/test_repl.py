"""The REPL face (workbench/repl.py): at a terminal, driven through prompt-toolkit's pipe input;
and with its commands piped in."""
import io
import sys
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from workbench.cli import main

ROOT = Path(__file__).resolve().parents[1]


class _Terminal(io.StringIO):
    """stdin as a terminal: the REPL prompts with prompt-toolkit (whose input the test pipes)."""

    def isatty(self) -> bool:
        return True


def test_the_repl_steps_a_target_and_keeps_history(tmp_path, monkeypatch, capsys):
    history = tmp_path / "history"
    monkeypatch.setenv("GEWB_HISTORY", str(history))
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.chdir(ROOT)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("break pass PrunePass\ncontinue\nprint node gap\nbogus\nquit\n")
        assert main(["repl", "sample_models/tiny_cnn.onnx"]) == 0
    out = capsys.readouterr().out
    assert "target tiny_cnn.onnx: ONNX model" in out
    assert "stopped at tick 382: breakpoint 1 (pass PrunePass), hit 1" in out
    assert "error: unknown command 'bogus'" in out
    assert "continue" in history.read_text()


def test_the_repl_shows_a_graph_attribute_set_as_it_shows_a_node_attribute_set(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.chdir(ROOT)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("break pass RefreshContinuousStreams\ncontinue\nfinish\nstep event\n"
                       "where\nquit\n")
        assert main(["repl", "sample_models/parallel_branches.onnx"]) == 0
    out = capsys.readouterr().out
    assert "stopped at tick 484: step event\n" \
           "  event: GraphAttrSet graph=parallel_branches key=stream_num old=None new=2\n" in out
    assert "tick 484: GraphAttrSet graph=parallel_branches key=stream_num old=None new=2" in out


def test_the_repl_ends_at_end_of_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.setattr(sys, "stdin", _Terminal())
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("help\n")
        pipe.close()
        assert main(["repl"]) == 0
    assert "commands (help COMMAND for more):" in capsys.readouterr().out


def test_piped_commands_read_as_a_transcript_and_stay_out_of_the_history(tmp_path,
                                                                          monkeypatch, capsys):
    """On a pipe, prompt-toolkit warned that its input was no terminal, echoed each command
    twice amid blank lines, and wrote them into the user's history."""
    history = tmp_path / "history"
    monkeypatch.setenv("GEWB_HISTORY", str(history))
    monkeypatch.setattr(sys, "stdin", io.StringIO("break pass PrunePass\ncontinue\nbogus\n"))
    monkeypatch.chdir(ROOT)
    assert main(["repl", "sample_models/tiny_cnn.onnx"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "Warning" not in out and "" not in lines
    assert lines.count("(gewb) break pass PrunePass") == 1
    after = lines[lines.index("(gewb) continue") + 1]
    assert after.startswith("stopped at tick ") and "breakpoint 1 (pass PrunePass)" in after
    assert lines[-1].startswith("error: unknown command 'bogus'")   # input's end: the session's
    assert not history.exists()
