"""The REPL face (workbench/repl.py), driven through prompt-toolkit's pipe input (no terminal)."""
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from workbench.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_the_repl_steps_a_target_and_keeps_history(tmp_path, monkeypatch, capsys):
    history = tmp_path / "history"
    monkeypatch.setenv("GEWB_HISTORY", str(history))
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
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("help\n")
        pipe.close()
        assert main(["repl"]) == 0
    assert "commands (help COMMAND for more):" in capsys.readouterr().out
