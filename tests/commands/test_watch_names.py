"""`watch node NAME` names a node of the live target (issue 15: a watch on a node that does not
exist was accepted): refused in one line when the graph has no such node, said to be unchecked
when there is no graph yet, refused for a host program, which has none."""
from pathlib import Path

import pytest

from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error, Printed

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def session():
    s = DebugSession(base_dir=ROOT)
    s.execute("target sample_models/tiny_cnn.onnx")
    yield s
    s.close()


def test_a_node_the_graph_lacks_is_refused_with_near_names(session):
    session.execute("step stage")
    (out,) = session.execute("watch node conv anchors")
    assert out == Error("watch node conv: no node 'conv' in the graph at this point (did you "
                        "mean conv1, conv1.w, conv1.b?)")
    (out,) = session.execute("watch node nosuch attr stream_id")
    assert out == Error("watch node nosuch: no node 'nosuch' in the graph at this point")
    assert session.debugger.watches == {}
    (out,) = session.execute("watch node conv1 attr engine")
    assert out == Printed("watch 1: node conv1 attr engine = <unset>")


def test_before_the_model_is_parsed_the_name_is_said_to_be_unchecked(session):
    (out,) = session.execute("watch node conv1 attr engine")
    assert out == Printed("watch 1: node conv1 attr engine = <no node conv1> (no graph yet, so "
                          "the node's name cannot be checked)")


def test_a_host_program_has_no_nodes_to_watch():
    s = DebugSession(base_dir=ROOT)
    s.execute("target sample_models/devrun/label_loop.py")
    (out,) = s.execute("watch node conv1 anchors")
    assert out == Error("watch node conv1: label_loop.py is a host program, with no graph "
                        "(watch event, notify or stream)")
    s.close()


def test_a_watch_of_node_with_no_name_is_refused_with_its_usage(session):
    """A bare `watch node` (the fuzzer's) was an internal error: the node's name was read before
    the watch's words were checked."""
    (out,) = session.execute("watch node")
    assert out == Error("usage: watch node NAME anchors | watch node NAME attr KEY | "
                        "watch node NAME input|output I")
    assert session.debugger.watches == {}
