"""The step gate: lock-step parking on trace events, and stepping never changes the trace."""
import threading
from pathlib import Path

import numpy as np
import pytest

from ge_core.executor import HostExecutor, NodeExecuted
from ge_core.graph import ComputeGraph, GraphUtils, OpDesc
from ge_core.graph.events import AttrSet, NodeAdded
from ge_core.parser import parse_onnx
from npu_emu.base.trace import TraceBus, TraceRecorder
from npu_emu.world import World, current_world
from workbench.debugger import StepGate
from workbench.debugger.step_gate import passing_through

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"


def build_and_run():
    """A whole program's worth of events: parse (node/anchor events), annotate, execute."""
    graph = parse_onnx(SAMPLE)
    for i, node in enumerate(graph.topological_sort()):
        node.op_desc.set_attr("stream_id", i % 2)
    x = np.linspace(0, 1, 3 * 16 * 16, dtype=np.float32).reshape(1, 3, 16, 16)
    return HostExecutor(graph).run({"input": x})["prob"]


def traced(stop):
    """Run build_and_run under a gate that parks on every event matching ``stop``."""
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    with World(bus=bus).entered():
        gate = StepGate(build_and_run, bus)
        stops = []
        while (event := gate.run_until(stop)) is not None:
            stops.append(event)
    assert gate.error is None
    return rec, stops, gate.result


def test_free_run_and_single_stepping_give_the_same_trace():
    free, stops_free, out_free = traced(lambda e: False)
    stepped, stops, out = traced(lambda e: True)
    assert stops_free == [] and len(stops) == len(stepped.events) > 100
    assert stepped.digest() == free.digest()
    np.testing.assert_array_equal(out, out_free)


def test_parks_on_the_matching_events_in_order():
    rec, stops, _ = traced(lambda e: isinstance(e, NodeExecuted))
    executed = [e for e in rec.events if isinstance(e, NodeExecuted)]
    assert stops == executed
    computed = [e.op_type for e in stops if e.op_type not in ("Data", "Const")]
    assert computed[:3] == ["Conv", "BatchNormalization", "Relu"]


def test_parked_worker_state_is_stable_and_inspectable():
    bus = TraceBus()
    seen = []

    def target():
        g = ComputeGraph("g")
        seen.append(g)
        a = g.add_node(OpDesc("a", "Data", 0, 1))
        b = g.add_node(OpDesc("b", "Relu", 1, 1))
        GraphUtils.add_edge(a.out_data_anchor(0), b.in_data_anchor(0))
        b.op_desc.set_attr("stream_id", 3)
        return "done"

    with World(bus=bus).entered():
        gate = StepGate(target, bus)
        ev = gate.run_until(lambda e: isinstance(e, NodeAdded) and e.node == "b")
        assert ev.node == "b" and seen[0].find_node("b").in_data_anchor(0).peer is None
        ev = gate.run_until(lambda e: isinstance(e, AttrSet))
        assert (ev.key, ev.old, ev.new) == ("stream_id", "None", "3")
        assert gate.run_until(lambda e: True) is None and gate.result == "done"


def test_the_worker_runs_in_the_world_the_gate_was_made_in():
    world = World()
    with world.entered():
        gate = StepGate(current_world, world.bus)
    assert gate.run_until(lambda e: True) is None and gate.result is world


def test_target_errors_are_kept_not_raised():
    bus = TraceBus()

    def target():
        raise ValueError("boom")

    gate = StepGate(target, bus)
    assert gate.run_until(lambda e: True) is None
    assert isinstance(gate.error, ValueError) and gate.finished


def test_close_abandons_a_parked_target():
    bus = TraceBus()
    reached_end = []

    def target():
        with World(bus=bus).entered():
            g = ComputeGraph("g")
            g.add_node(OpDesc("a", "Data", 0, 1))
            g.add_node(OpDesc("b", "Data", 0, 1))
        reached_end.append(True)

    gate = StepGate(target, bus)
    assert gate.run_until(lambda e: True) is not None
    gate.close()
    assert gate.finished and not reached_end and gate.error is None
    assert not bus.observed  # the gate unsubscribed itself


def test_closing_a_stuck_target_again_does_not_wait_for_it_again(monkeypatch):
    """A target stuck where no event comes is given up on once: a second close (goto closes
    the run it replaces, and discarding it closes it again) does not wait another while."""
    from workbench.debugger import step_gate
    monkeypatch.setattr(step_gate, "CLOSE_WAIT_S", 0.05)
    given_up = []
    monkeypatch.setattr(step_gate.gc_pause, "abandon", given_up.append)
    bus, release, started = TraceBus(), threading.Event(), threading.Event()

    def target():
        started.set()
        release.wait(10)   # stuck where no event comes

    gate = StepGate(target, bus)
    threading.Thread(target=gate.run_until, args=(lambda e: True,), daemon=True).start()
    assert started.wait(10)
    gate.close()
    gate.close()
    assert len(given_up) == 1
    release.set()


@pytest.mark.parametrize("n", [1, 7])
def test_stop_after_n_events_then_free_run_matches(n):
    free, _, _ = traced(lambda e: False)
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    with World(bus=bus).entered():
        gate = StepGate(build_and_run, bus)
        assert gate.run_until(lambda e: e.tick == n).tick == n
        assert gate.run_until(lambda e: False) is None
    assert rec.digest() == free.digest()


def test_a_worker_pausing_the_collector_lifts_the_pause_while_parked():
    """A compile pauses the collector (npu_emu/base/gc_pause.py); under a gate it still runs
    while the worker is parked, since the face runs meanwhile, and is paused again after."""
    import gc

    from npu_emu.base.gc_pause import gc_paused
    bus = TraceBus()
    running = []

    def target():
        with gc_paused(bus):
            running.append(gc.isenabled())
            bus.emit(NodeAdded, "g", "n", "Relu")   # parks here
            running.append(gc.isenabled())
        return gc.isenabled()

    assert gc.isenabled()
    with World(bus=bus).entered():
        gate = StepGate(target, bus)
        assert gate.run_until(lambda e: True) is not None
        parked = gc.isenabled()
        assert gate.run_until(lambda e: False) is None
    assert gate.error is None
    assert running == [False, False] and parked and gate.result is True and gc.isenabled()


def test_a_stop_is_handed_only_the_classes_it_hears_and_an_interrupt_any():
    """``run_until(stop, hears)``: the classes ``hears`` refuses never reach ``stop`` (nor are
    built); an interrupt parks at the very next event, whatever its class."""
    bus = TraceBus()
    handed = []

    def target():
        with World(bus=bus).entered():
            g = ComputeGraph("g")
            g.add_node(OpDesc("a", "Data", 0, 1))
            g.add_node(OpDesc("b", "Relu", 1, 1)).op_desc.set_attr("stream_id", 1)
            gate.interrupt()   # from the worker itself: deterministic, and safe from any thread
            g.add_node(OpDesc("c", "Relu", 1, 1))
        return "done"

    def stop(e):
        handed.append(type(e).__name__)
        return False

    gate = StepGate(target, bus)
    ev = gate.run_until(stop, lambda cls: cls is AttrSet)
    assert isinstance(ev, NodeAdded) and ev.node == "c" and ev.tick == 4
    assert handed == ["AttrSet", "NodeAdded"]   # the interrupt's park still shows it the event
    assert gate.run_until(lambda e: False) is None and gate.result == "done"


def test_a_receiver_parks_where_it_answers_true_and_a_thread_passing_through_is_never_received():
    """A stop given as a receiver (``hears`` answers a test on the fields) parks on the events
    it answers true for, built only then; a thread evaluating in the parked run
    (passing_through) has every event built and let pass, none handed to the receiver, which
    would have taken it for the run's."""
    bus = TraceBus()
    received = []

    def target():
        with World(bus=bus).entered():
            g = ComputeGraph("g")
            for name in "abc":
                g.add_node(OpDesc(name, "Relu", 1, 1))
        return "done"

    def receive(tick, graph, node, op_type):
        received.append(node)
        return node == "b"

    def hears(cls):
        return receive if cls is NodeAdded else False

    gate = StepGate(target, bus)
    ev = gate.run_until(lambda e: False, hears)
    assert isinstance(ev, NodeAdded) and ev.node == "b" and received == ["a", "b"]
    with passing_through(bus):
        bus.emit(NodeAdded, "g", "x", "Relu")   # would park this thread, were it received
    assert received == ["a", "b"]
    assert gate.run_until(lambda e: False, hears) is None and gate.result == "done"
    assert received == ["a", "b", "c"]
