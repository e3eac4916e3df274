"""`watch node NAME input|output I`: a tensor desc, re-read at each DescUpdated of that desc, so
it stops where InferShape (or any pass) replaces it, old -> new, in the pass that did it."""
from pathlib import Path

import pytest

from workbench.commands.session import DebugSession
from workbench.debugger.outcomes import Error, Printed, Stopped

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def session():
    s = DebugSession(base_dir=ROOT)
    s.execute("target sample_models/fold_and_infer.onnx")
    s.execute("break pass InferShapeForPreprocess")
    s.execute("continue")   # parsed: the Reshape's output is not known until its shape folds
    yield s
    s.close()


def test_a_desc_watch_stops_where_infer_shape_replaces_the_desc(session):
    (out,) = session.execute("watch node reshape output 0")
    assert out == Printed("watch 2: node reshape output 0 = f32[?,?]")
    (out,) = session.execute("watch node add_ones input 0")   # the Reshape's reader
    assert out == Printed("watch 3: node add_ones input 0 = f32[?,?]")
    (stop,) = session.execute("continue")
    assert isinstance(stop, Stopped)
    assert stop.event == "DescUpdated node=reshape io=output index=0 old=f32[?,?] new=f32[2,12]"
    assert [r.text for r in stop.reasons] == ["watch 2 (node reshape output 0): f32[?,?] -> "
                                              "f32[2,12]"]
    assert stop.where.endswith("InferShapePass > %reshape (Reshape)")
    (stop,) = session.execute("continue")   # then its reader's input desc, as GE's
    assert stop.event == "DescUpdated node=add_ones io=input index=0 old=f32[?,?] new=f32[2,12]"
    assert [r.text for r in stop.reasons] == ["watch 3 (node add_ones input 0): f32[?,?] -> "
                                              "f32[2,12]"]


def test_a_desc_watch_needs_an_index(session):
    for word in ("first", "-1", "1_0"):   # none an index a DescUpdated can have
        (out,) = session.execute(f"watch node reshape output {word}")
        assert out == Error("watch node NAME output I: I is the output's index, 0 or more, "
                            f"not {word!r}")
    (out,) = session.execute("watch node reshape output 7")
    assert out == Printed("watch 2: node reshape output 7 = <no output 7>")
