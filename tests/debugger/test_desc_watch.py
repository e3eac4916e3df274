"""`watch node NAME input|output I`: a tensor desc, re-read at each DescUpdated of that desc, so
it stops where InferShape (or any pass) replaces it, old -> new, in the pass that did it."""
from dataclasses import replace
from pathlib import Path

import pytest

from ge_core.graph.events import DescUpdated
from ge_core.graph.ge_tensor import GeShape
from ge_core.graph.types import Format
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


def test_a_desc_watch_set_before_the_parse_starts_at_the_parsed_desc_without_a_stop():
    """The node's appearing at the parse's end gives the desc its first value, which is no
    change of it (a data breakpoint's value is where it is set): the first stop is InferShape
    replacing it. It stopped at the parse's end, saying `<no node reshape> -> f32[?,?]`."""
    s = DebugSession(base_dir=ROOT)
    s.execute("target sample_models/fold_and_infer.onnx")
    (out,) = s.execute("watch node reshape output 0")
    assert out.text.startswith("watch 1: node reshape output 0 = <no node reshape> (no graph")
    (stop,) = s.execute("continue")
    assert [r.text for r in stop.reasons] == ["watch 1 (node reshape output 0): f32[?,?] -> "
                                              "f32[2,12]"]
    assert stop.where.endswith("InferShapePass > %reshape (Reshape)")
    assert s.debugger.watches[1].hits == 1
    s.close()


def test_a_change_of_the_desc_alone_in_a_field_its_text_leaves_out_stops_and_is_said(session):
    """A desc prints as its dtype and shape: a change of its format alone (NCHW -> NC1HWC0, as
    GE's FormatRefiner makes) sends a DescUpdated, and the watch re-read the same text and
    never stopped. It compares the whole desc, and a stop names each field that differs."""
    d = session.debugger
    watch = d.add_watch(["node", "reshape", "output", "0"])
    (hears,) = [action for listen, action in watch.entries(lambda: d.state, d.run.world.runtime)
                if listen.kind == DescUpdated.__name__]
    descs = d.state.find_node("reshape").op_desc.output_descs

    def changed(**fields) -> list[str]:
        """The desc replaced in the parked graph (no pass runs: nothing else hears it) and the
        watch handed the DescUpdated a pass's update would send."""
        old = descs[0]
        descs[0] = replace(old, **fields)
        reasons = []
        hears(DescUpdated(0, "reshape", "output", 0, str(old), str(descs[0])), reasons)
        return [r.text for r in reasons]

    spec = "watch 2 (node reshape output 0): "
    assert changed(format=Format.FORMAT_NCHW) == [spec + "f32[?,?] format=ND -> f32[?,?] "
                                                  "format=NCHW"]
    assert changed(format=Format.FORMAT_NC1HWC0) == [spec + "f32[?,?] format=NCHW -> "
                                                     "f32[?,?] format=NC1HWC0"]
    assert changed(origin_format=Format.FORMAT_NCHW) == [
        spec + "f32[?,?] origin_format=unset -> f32[?,?] origin_format=NCHW"]
    assert changed(shape=GeShape((2, 12))) == [spec + "f32[?,?] -> f32[2,12]"]   # as before
    assert changed() == []   # the same desc again: no change
    assert watch.value == "f32[2,12]"
