"""Fusion launch (gang scheduling), HCCL, snapshot/restore, the Chrome trace timeline."""
import json
import threading

import numpy as np

from npu_emu_testing import empty, make_runtime, read, vec
from npu_emu.base.trace import TraceBus
from npu_emu.core.kernel_task import make_kernel_task
from npu_emu.feature.fusion_launch import fusion_launch
from npu_emu.feature.hccl import hccl_launch, make_hccl_task
from npu_emu.scheduler.cost_model import CostModel, Unit
from npu_emu.scheduler.events import SqeDispatched
from npu_emu.snapshot import snapshot
from npu_emu.timeline import Timeline
from npu_emu.world import World


def test_a_fused_task_starts_only_when_all_its_units_are_free():
    rt = make_runtime(cost=CostModel(units={Unit.AI_CORE: 1, Unit.AI_CPU: 1, Unit.HCCL: 1}))
    with World(runtime=rt).entered():
        dev = rt.set_device(0)
        busy_cpu, fused_s, busy_core = rt.create_stream(), rt.create_stream(), rt.create_stream()
        busy_cpu.launch_timed("cpu work", 5000, Unit.AI_CPU)
        x, y = vec(rt, np.arange(4, dtype=np.float32)), empty(rt, (4,))
        core = make_kernel_task(dev, "Relu", (x,), (y,), unit=Unit.AI_CORE, duration_ns=1000)
        cpu = make_kernel_task(dev, "Neg", (x,), (x,), unit=Unit.AI_CPU, duration_ns=2000)
        fused = fusion_launch(fused_s, [core, cpu])
        busy_core.launch_timed("core work", 100, Unit.AI_CORE)
        dev.synchronize()
    starts = {e.task.name: e.time_ns for e in rt.recorder.events if isinstance(e, SqeDispatched)}
    # the core was free at 0, but the fused task waited for the AI CPU (free at 5000)
    assert starts["core work"] == 0 and starts[fused.name] == 5000
    assert fused.duration == 2000
    with World(runtime=rt).entered():
        assert read(rt, y).tolist() == [0, 1, 2, 3] and read(rt, x).tolist() == [0, -1, -2, -3]


def test_hccl_all_reduce_on_one_rank_copies_over_the_link(rt):
    s = rt.create_stream()
    send, recv = vec(rt, np.arange(8, dtype=np.float32)), empty(rt, (8,))
    task = hccl_launch(s, "AllReduce", send.addr, recv.addr, 8, np.float32)
    s.synchronize()
    assert task.unit == Unit.HCCL and read(rt, recv).tolist() == list(range(8))
    assert make_hccl_task(rt.device(), "Broadcast", send.addr, recv.addr, 8, "float32").nbytes == 32


def program(rt, stop_after=None, path=None):
    """Phase 1 (always): submit work on two streams; run `stop_after` SQEs and snapshot."""
    dev = rt.set_device(0)
    s1, s2 = rt.create_stream(), rt.create_stream()
    a = vec(rt, np.linspace(0, 1, 32, dtype=np.float32))
    b, c = empty(rt, (32,)), empty(rt, (32,))
    ev = rt.create_event()
    for _ in range(5):
        s1.launch_kernel("Sin", [a], [b])
        s1.launch_kernel("Add", [a, b], [a])
    s1.record_event(ev)
    s2.wait_event(ev)
    s2.launch_kernel("Mul", [a, a], [c])
    if stop_after is not None:
        for _ in range(stop_after):
            dev.scheduler.step()
        snapshot.save(rt, path)
    return c


def finish(rt):
    dev = rt.device(0)
    dev.synchronize()
    return dev.memory.live_blocks(), [dev.memory.read(a, n) for a, n in dev.memory.live_blocks()]


def test_snapshot_mid_run_then_restore_gives_identical_final_memory(tmp_path):
    path = tmp_path / "mid.snap"
    straight = make_runtime()
    with World(runtime=straight).entered():
        program(straight)
        expected = finish(straight)
    saved = make_runtime()
    with World(runtime=saved).entered():
        program(saved, stop_after=4, path=path)
        assert finish(saved) == expected
    restored = snapshot.restore(path)
    with World(runtime=restored).entered():
        assert restored.device(0).scheduler.retired == 4
        assert finish(restored) == expected
        assert restored.device(0).now == straight.device(0).now


def test_the_timeline_is_chrome_trace_json_with_streams_units_and_flows(tmp_path, rt):
    timeline = Timeline()
    rt.bus.subscribe(timeline)
    s1, s2 = rt.create_stream(), rt.create_stream()
    ev = rt.create_event()
    s1.launch_timed("MatMulLike", 3000, Unit.AI_CORE)
    s1.launch_timed("Other", 2000, Unit.AI_CORE)
    s1.record_event(ev)
    s2.launch_timed("Parallel", 1000, Unit.AI_CORE)
    s2.wait_event(ev)
    rt.device().synchronize()
    out = tmp_path / "t.json"
    timeline.write(out)
    trace = json.loads(out.read_text())["traceEvents"]
    slices = [e for e in trace if e["ph"] == "X"]
    names = {e["args"]["name"] for e in trace if e.get("name") == "thread_name"}
    assert {f"stream {s1.id}", f"stream {s2.id}", "AI_CORE 0", "AI_CORE 1"} <= names
    assert {"MatMulLike", "Other", "Parallel"} <= {e["name"] for e in slices}
    flows = [e for e in trace if e["ph"] in "sf"]
    assert [e["ph"] for e in flows] == ["s", "f"] and flows[0]["tid"] == s1.id
    assert flows[1]["tid"] == s2.id and flows[0]["id"] == flows[1]["id"]


def test_a_snapshot_leaves_out_the_bus_and_its_observers(tmp_path):
    """A debugger's observers hold locks, which cannot be saved; the state does not need them:
    the restored runtime's scheduler emits into the bus current at restore."""
    class LockingObserver:
        def __init__(self):
            self.lock = threading.Lock()
            self.seen = 0

        def __call__(self, event):
            with self.lock:
                self.seen += 1

    rt = make_runtime()
    observer = LockingObserver()
    rt.bus.subscribe(observer)
    path = tmp_path / "observed.snap"
    with World(runtime=rt).entered():
        program(rt, stop_after=3, path=path)
    assert observer.seen > 0
    later = TraceBus()
    with World(bus=later).entered():
        restored = snapshot.restore(path)
    assert restored.device(0).scheduler.bus is later and restored.device(0).scheduler.retired == 3
