"""No escape sequence reaches the terminal (issue 23): a model whose graph, node and output names
and doc string, a script whose `say` lines, and a host program whose prints carry a screen
clear (ESC [2J), an OSC 52 clipboard write and an OSC title reach every face escaped, as
`\\x1b...` text (workbench/terminal_text.py)."""
from __future__ import annotations

import asyncio
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from tui_testing import make_app, run
from workbench.cli import main
from workbench.commands.render import render
from workbench.commands.session import DebugSession
from workbench.terminal_text import printable

SEQUENCES = {"clear": "\x1b[2J", "clipboard": "\x1b]52;c;cHduZWQ=\x07",
             "title": "\x1b]0;pwned\x07", "c1 csi": "\x9b2J", "bidi": "\u202e"}
EVIL = "".join(SEQUENCES.values())
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def _raw(text: str) -> list[str]:
    return [c for c in RAW if c in text]


@pytest.fixture
def evil_model(tmp_path: Path) -> Path:
    name = f"relu{EVIL}"
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], [f"y{EVIL}"], name=name, doc_string=EVIL)],
        f"graph{EVIL}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info(f"y{EVIL}", TensorProto.FLOAT, [2])], doc_string=EVIL)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "evil.onnx"
    onnx.save(model, path)
    return path


@pytest.fixture
def evil_program(tmp_path: Path) -> Path:
    path = tmp_path / "evil.py"
    path.write_text(f"print({EVIL!r})\n")
    return path


def test_printable_escapes_each_sequence_and_keeps_newlines():
    for name, seq in SEQUENCES.items():
        shown = printable(f"a{seq}b\n\tc")
        assert not _raw(shown), name
        assert shown.startswith("a\\") and shown.endswith("b\n\tc")
    assert printable("\x1b[2J") == "\\x1b[2J"


def test_gewb_graph_prints_names_and_docs_escaped(evil_model, capsys):
    assert main(["graph", str(evil_model)]) == 0
    out = capsys.readouterr().out
    assert "\\x1b[2J" in out and not _raw(out)


def test_gewb_run_say_lines_and_prints_escaped(evil_model, tmp_path, capsys):
    script = tmp_path / "s.gwb"
    script.write_text(f"say hello{EVIL}\ntarget evil.onnx\nstep stage\n"
                      f"print node relu{EVIL}\ncontinue\n")
    main(["run", str(script)])
    out = capsys.readouterr().out
    assert "hello\\x1b[2J" in out and not _raw(out)


def test_repl_lines_escape_node_events_and_program_output(evil_model, evil_program):
    session = DebugSession(evil_model.parent)
    outcomes = session.execute(f"target {evil_model.name}") + session.execute("step stage") \
        + session.execute(f"print node relu{EVIL}") + session.execute("continue")
    session.execute(f"target {evil_program.name}")
    outcomes += session.execute("continue")
    session.close()
    lines = "\n".join(line for o in outcomes for line in render(o))
    assert "\\x1b]52;c;" in lines and not _raw(lines)


def _screen(app) -> str:
    """What the app would send to a terminal now, every line filter applied."""
    return app.screen._compositor.render_full_update().render_segments(app.console)


def test_the_app_graph_and_log_panes_show_them_escaped(evil_model, evil_program):
    async def drive() -> tuple[str, str]:
        app = make_app(str(evil_model))
        async with app.run_test(size=(200, 50)) as pilot:
            await run(pilot, "step stage", f"print node relu{EVIL}", f"say {EVIL}")
            model_screen = _screen(app)
            await run(pilot, f"target {evil_program}", "continue")
            return model_screen, _screen(app)
    for screen in asyncio.run(drive()):
        assert "\x1b]" not in screen and "\x1b[2J" not in screen and "\x07" not in screen


def test_the_consent_dialog_shows_the_resolved_path_escaped(tmp_path):
    (tmp_path / "lesson").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "evil.py").write_text("print('ran')\n")
    header = "intro_demo.py\x1b[8m/../../elsewhere/evil.py"
    lesson = tmp_path / "lesson" / "l.gwb"
    lesson.write_text(f"#   programs: {header}\nsay hi\n")

    async def question() -> str:
        app = make_app(lesson=lesson)
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            return app.screen.text
    asked = asyncio.run(question())
    assert "elsewhere/evil.py" in asked and "\x1b" not in asked
