"""The REPL face (workbench/repl.py): at a terminal, driven through prompt-toolkit's pipe input;
and with its commands piped in."""
import io
import signal
import sys
import threading
from pathlib import Path

import prompt_toolkit
import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from workbench.cli import main

ROOT = Path(__file__).resolve().parents[1]
# a test that raises SIGINT: Python handles signals in the main thread only
takes_signals = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                   reason="signals reach the main thread only")


class _Terminal(io.StringIO):
    """stdin as a terminal: the REPL prompts with prompt-toolkit (whose input the test pipes)."""

    def isatty(self) -> bool:
        return True


def _typed(tmp_path, monkeypatch, text: str, *argv: str) -> int:
    """``gewb repl ARGV`` at a terminal (from the repo's root), ``text`` typed into it."""
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.chdir(ROOT)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(text)
        return main(["repl", *argv])


def test_the_repl_steps_a_target_and_keeps_history(tmp_path, monkeypatch, capsys):
    history = tmp_path / "history"
    assert _typed(tmp_path, monkeypatch, "break pass PrunePass\ncontinue\nprint node gap\n"
                  "bogus\nquit\n", "sample_models/tiny_cnn.onnx") == 0
    out = capsys.readouterr().out
    assert "target tiny_cnn.onnx: ONNX model" in out
    assert "stopped at tick 382: breakpoint 1 (pass PrunePass), hit 1" in out
    assert "error: unknown command 'bogus'" in out
    assert "continue" in history.read_text()


def test_the_repl_shows_a_graph_attribute_set_as_it_shows_a_node_attribute_set(
        tmp_path, monkeypatch, capsys):
    assert _typed(tmp_path, monkeypatch, "break pass RefreshContinuousStreams\ncontinue\n"
                  "finish\nstep event\nwhere\nquit\n",
                  "sample_models/parallel_branches.onnx") == 0
    out = capsys.readouterr().out
    assert "stopped at tick 472: step event\n" \
           "  event: GraphAttrSet graph=parallel_branches key=stream_num old=None new=2\n" in out
    assert "tick 472: GraphAttrSet graph=parallel_branches key=stream_num old=None new=2" in out


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


def test_a_piped_session_answers_y_n_from_the_next_line_and_survives_bad_bytes(
        tmp_path, monkeypatch, capsys):
    """A lesson naming a host program asks first: piped, the next line is the answer (its end
    no). Bytes that are no UTF-8 ended the session in a UnicodeDecodeError; a line's control
    characters were echoed raw."""
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.chdir(ROOT)
    lesson = "sample_models/lessons/30_hunting_sync_bugs.gwb"
    raw = f"source {lesson}\nn\nhelp \x1b[31mred\n\xff\xfe bogus\n".encode("latin-1")
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")   # strict, as most locales
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["repl"]) == 0
    out = capsys.readouterr().out
    assert "[y/N] n" in out and "exit status" not in out   # refused: the program never ran
    assert "\x1b" not in out and "(gewb) help \\x1b[31mred" in out
    assert "(gewb) \ufffd\ufffd bogus" in out


def test_allow_programs_agrees_up_front_as_the_refusal_says(tmp_path, monkeypatch, capsys):
    """The refusal says `--allow-programs agrees up front`: the REPL took no such flag."""
    monkeypatch.setenv("GEWB_HISTORY", str(tmp_path / "history"))
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "source sample_models/lessons/30_hunting_sync_bugs.gwb\n"))
    assert main(["repl", "--allow-programs"]) == 0
    out = capsys.readouterr().out
    assert "[y/N]" not in out and "> target ../devrun/missing_wait.py" in out


def test_a_malformed_mouse_report_is_ignored_and_the_session_goes_on(tmp_path, monkeypatch,
                                                                     capsys):
    """ESC [ 31 m typed (or a terminal's stray report) parses as a mouse event, whose handler
    in prompt-toolkit raised ValueError out of the prompt: the REPL ended in a traceback and
    the debugging session with it. The REPL asks for no mouse, so it takes none: the line
    goes on being typed."""
    assert _typed(tmp_path, monkeypatch, "step\nwhe\x1b[31mre\nquit\n",
                  "sample_models/tiny_cnn.onnx") == 0
    out = capsys.readouterr().out
    assert "stopped at tick" in out and "\ntick " in out   # `where` after the step


def test_the_y_n_question_takes_no_mouse_report_either(monkeypatch):
    from workbench.repl import ask_yes_no
    monkeypatch.setattr(sys, "stdin", _Terminal())
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("\x1b[31my\n")
        pipe.close()   # (else a prompt the report broke would wait for more)
        assert ask_yes_no("run it?") is True


@takes_signals
def test_a_ctrl_c_as_the_prompt_sets_up_interrupts_nothing(tmp_path, monkeypatch, capsys):
    """Ctrl-C at the prompt is a key (the terminal is raw); as a signal it comes only in the
    instants the prompt sets up or tears down, where the KeyboardInterrupt it raised broke
    prompt-toolkit's half-built event loop (a traceback as it was collected), and
    prompt-toolkit's own SIGINT handler tried to exit an application no longer running
    (another). Here one arrives as each prompt starts: it raises nothing, each line typed
    runs, and the REPL's handler is the one before once it ends."""
    ask, interrupted, sigint = PromptSession.prompt, [], []

    def prompt(self, *args, **kwargs):
        sigint.append(kwargs.get("handle_sigint"))
        try:   # Ctrl-C, as the prompt sets its terminal up (handled before raise_signal returns)
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            interrupted.append(True)
        return ask(self, *args, **kwargs)

    monkeypatch.setattr(PromptSession, "prompt", prompt)
    before = signal.getsignal(signal.SIGINT)
    assert _typed(tmp_path, monkeypatch, "step\nwhere\nquit\n", "sample_models/tiny_cnn.onnx") \
        == 0
    assert not interrupted and sigint == [False] * 3
    out = capsys.readouterr().out
    assert "stopped at tick" in out and "\ntick " in out and "interrupted" not in out
    assert signal.getsignal(signal.SIGINT) is before


@takes_signals
def test_a_ctrl_c_as_the_y_n_question_sets_up_answers_nothing(monkeypatch):
    """The y/N question's prompt likewise: a signal as it sets up no longer answers no (its
    KeyboardInterrupt did) before the user has read the question."""
    from workbench.repl import ask_yes_no
    sigint = []

    def prompt(message, **kwargs):
        sigint.append(kwargs.get("handle_sigint"))
        signal.raise_signal(signal.SIGINT)
        return "y"

    monkeypatch.setattr(prompt_toolkit, "prompt", prompt)
    monkeypatch.setattr(sys, "stdin", _Terminal())
    assert ask_yes_no("run it?") is True and sigint == [False]


def test_a_ctrl_c_as_an_answer_prints_stops_the_printing_not_the_session(tmp_path, monkeypatch,
                                                                        capsys):
    """A long answer (a big graph's pass table, a tensor) prints for a while: a Ctrl-C then
    ended the REPL ("gewb repl: interrupted", the target and its session gone)."""
    import workbench.repl as repl

    show, shown = repl._show, []

    def interrupted_once(outcomes):
        shown.append(outcomes)
        if len(shown) == 2:   # the answer to `passes`
            raise KeyboardInterrupt
        show(outcomes)

    monkeypatch.setattr(repl, "_show", interrupted_once)
    assert _typed(tmp_path, monkeypatch, "step\npasses\nwhere\nquit\n",
                  "sample_models/tiny_cnn.onnx") == 0
    out = capsys.readouterr().out
    assert "interrupted\n" in out and "\ntick " in out   # `where` answered after it
