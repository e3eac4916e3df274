"""The device under the debugger's step gate: parking on every retired SQE (the worker thread
drives the device inside its own API calls) changes nothing in the trace or the results."""
import numpy as np

from debugger_testing import empty, read, vec
from npu_emu.base.trace import TraceBus, TraceRecorder
from npu_emu.runtime import Runtime, RuntimeConfig
from npu_emu.scheduler.events import SqeCompleted
from npu_emu.world import World, current_bus
from workbench.debugger import StepGate


def target():
    rt = Runtime(RuntimeConfig(memory_bytes=1 << 20, race_check=True), current_bus())
    with World(runtime=rt).entered():
        rt.set_device(0)
        s1, s2 = rt.create_stream(), rt.create_stream()
        x = vec(rt, np.arange(32, dtype=np.float32))
        y, z = empty(rt, (32,)), empty(rt, (32,))
        ev = rt.create_event()
        s1.launch_kernel("Neg", [x], [y])
        s1.record_event(ev)
        s2.wait_event(ev)
        s2.launch_kernel("Mul", [y, y], [z])
        s2.synchronize()
        rt.close()
        return read(rt, z), rt.faults


def traced(stop):
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    with World(bus=bus).entered():
        gate = StepGate(target, bus)
        stops = []
        while (event := gate.run_until(stop)) is not None:
            assert isinstance(event, SqeCompleted) or not stops
            stops.append(event)
    assert gate.error is None
    return rec, stops, gate.result


def test_stepping_sqe_by_sqe_gives_the_free_run_trace():
    free, _, (z_free, faults) = traced(lambda e: False)
    stepped, stops, (z, _) = traced(lambda e: isinstance(e, SqeCompleted))
    assert len(stops) == 4 and faults == []
    assert [e.task.name for e in stops] == ["Neg", "EventRecord(e0)", "StreamWaitEvent(e0)",
                                            "Mul"]
    assert stepped.digest() == free.digest()
    np.testing.assert_array_equal(z, z_free)
    np.testing.assert_array_equal(z, np.arange(32, dtype=np.float32) ** 2)
