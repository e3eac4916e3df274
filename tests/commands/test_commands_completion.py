"""Completion from the command table and the live target, and the pygments lexers."""
from pathlib import Path

import pytest
from pygments.token import Error as ErrorToken, Keyword, Name

from workbench.commands.completion import complete
from workbench.commands.lexers import GeIrLexer, GwbLexer
from workbench.commands.session import DebugSession

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def session():
    s = DebugSession(base_dir=ROOT)
    yield s
    s.close()


def test_command_names_and_units(session):
    assert complete(session, "rev") == (0, ["reverse-continue", "reverse-step"])
    assert complete(session, "step p") == (5, ["pass"])
    assert complete(session, "break ") == (6, ["call", "distribute", "fault", "label", "model",
                                               "node", "pass", "sqe", "wait"])
    assert complete(session, "info n")[1] == ["notifies"]
    assert complete(session, "handle ")[1] == ["acl-error", "all", "deadlock", "oom",
                                                "python-error", "race", "task", "timeout"]
    assert complete(session, "handle race n") == (12, ["nostop"])
    assert complete(session, "handle acl-error h") == (17, ["hide"])
    assert complete(session, "break call acl.rt.stream_w") == (
        11, ["acl.rt.stream_wait_event"])
    assert complete(session, "nonsense x") == (9, [])


def test_pass_and_node_names_come_from_ge_and_the_live_graph(session):
    assert "ConstantFoldingPass" in complete(session, "break pass Const")[1]
    session.execute("target sample_models/tiny_cnn.onnx")
    assert complete(session, "print node le") == (11, [])   # nothing parsed yet
    session.execute("step stage")
    assert complete(session, "print node le")[1] == ["left.w", "left_conv", "left_relu"]
    assert complete(session, "watch node left_conv ")[1] == ["anchors", "attr", "input",
                                                             "output"]
    assert "engine" in complete(session, "watch node left_conv attr ")[1]
    assert complete(session, "watch node left_conv output ")[1] == []
    assert "type=" in complete(session, "break node ")[1]


def test_ids_come_from_the_parked_device(session):
    session.execute("target sample_models/devrun/producer_consumer.py")
    session.execute("break wait event")
    session.execute("continue")
    assert complete(session, "break sqe rt_stream=")[1] == [f"rt_stream={i}" for i in range(4)]
    assert complete(session, "watch event ")[1] == ["0"]
    assert complete(session, "delete ")[1] == ["1"]


def test_file_paths(session):
    assert "sample_models/" in complete(session, "target sam")[1]
    start, found = complete(session, "target sample_models/devrun/dead")
    assert found == ["sample_models/devrun/deadlock.py"] and start == 7
    assert complete(session, "set ra")[1] == ["race-check"]
    assert complete(session, "set race-check ")[1] == ["off", "on"]


def test_the_command_lexer():
    tokens = list(GwbLexer().get_tokens("break sqe type=label_set stream=1 if time_ns > 5\n"))
    assert (Keyword, "break") in tokens and (Name.Builtin, "sqe") in tokens
    assert (Name.Attribute, "stream") in tokens and (Keyword, "if") in tokens
    script = (ROOT / "sample_models" / "lessons" / "25_a_label_loop.gwb").read_text()
    assert not [t for t in GwbLexer().get_tokens(script) if t[0] is ErrorToken]


def test_the_ir_lexer_reads_a_whole_dump():
    from ge_core.graph import dump_graph
    from ge_core.parser import parse_onnx
    text = dump_graph(parse_onnx(ROOT / "sample_models" / "tiny_cnn.onnx"))
    tokens = list(GeIrLexer().get_tokens(text))
    assert not [t for t in tokens if t[0] is ErrorToken]
    assert (Name.Variable, "%conv1") in tokens and (Name.Class, "Conv") in tokens
