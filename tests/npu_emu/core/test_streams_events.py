"""Streams, events, notifies, the scheduler's stepping and determinism."""
import numpy as np
import pytest

from npu_emu_testing import empty, make_runtime, read, vec
from npu_emu.base.errors import (ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, AclError, DeadlockError,
                                 TaskFaultError)
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.events import SqeCompleted, SqeDispatched
from npu_emu.scheduler.task import TaskType
from npu_emu.scheduler.task_scheduler import Retired
from npu_emu.world import World


def producer_consumer(rt, wait=True):
    s1, s2 = rt.create_stream(), rt.create_stream()
    x = vec(rt, np.linspace(-1, 1, 64, dtype=np.float32))
    t, y, z = empty(rt, (64,)), empty(rt, (64,)), empty(rt, (64,))
    ev = rt.create_event()
    s1.launch_kernel("Exp", [x], [t])
    s1.launch_kernel("Relu", [t], [y])
    if wait:
        s1.record_event(ev)
        s2.wait_event(ev)
    s2.launch_kernel("Add", [y, y], [z])
    assert s2.synchronize() == 0 and s1.synchronize() == 0
    return x, z, ev


def test_two_stream_producer_consumer_with_an_event(rt):
    x, z, ev = producer_consumer(rt)
    np.testing.assert_allclose(read(rt, z), 2 * np.exp(read(rt, x)), rtol=1e-6)
    assert ev.query() and ev.timestamp_ns is not None


def test_without_the_wait_the_consumer_reads_stale_memory(rt):
    x, z, _ = producer_consumer(rt, wait=False)
    assert not np.allclose(read(rt, z), 2 * np.exp(read(rt, x)))


def test_event_reset_elapsed_time_and_several_waiters(rt):
    s1, s2, s3 = rt.create_stream(), rt.create_stream(), rt.create_stream()
    start, end = rt.create_event(), rt.create_event()
    with pytest.raises(AclError) as err:
        start.elapsed_ms(end)
    assert err.value.code == ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    s1.record_event(start)
    s1.launch_timed("Busy", 2_000_000)
    s1.record_event(end)
    s2.wait_event(end)
    s3.wait_event(end)       # an eager wait does not consume the event
    rt.device().synchronize()
    assert start.elapsed_ms(end) == pytest.approx(2.001, abs=0.01)
    s1.reset_event(end)
    s1.synchronize()
    assert not end.query()


def test_notify_record_and_wait_consume_the_signal(rt):
    s1, s2 = rt.create_stream(), rt.create_stream()
    n = rt.create_notify()
    s2.wait_notify(n)
    s1.record_notify(n)
    s2.synchronize()
    assert n.value == 1 and not n.signalled


def test_a_notify_reset_from_the_host_makes_the_next_wait_block(rt):
    s1, s2 = rt.create_stream(), rt.create_stream()
    n = rt.create_notify()
    s1.record_notify(n)
    s1.synchronize()
    assert n.signalled
    n.reset()
    s2.wait_notify(n)
    with pytest.raises(DeadlockError, match="NotifyWait"):
        s2.synchronize()
def test_callbacks_run_in_stream_order(rt):
    s = rt.create_stream()
    seen = []
    s.launch_timed("K", 500)
    s.launch_callback(seen.append, "after K")
    assert seen == []
    s.synchronize()
    assert seen == ["after K"]


def test_step_retires_exactly_one_sqe_and_run_until_stops_on_a_predicate(rt):
    s = rt.create_stream()
    for i in range(5):
        s.launch_timed(f"K{i}", 100 * (i + 1))
    ts = rt.device().scheduler
    first = ts.step()
    assert isinstance(first, Retired) and first.task.name == "K0" and first.time_ns == 100
    assert ts.retired == 1 and s.pending == 4
    hit = ts.run_until(lambda r: r.task.name == "K3")
    assert hit.pos == 3 and ts.retired == 4
    assert ts.step().task.name == "K4" and ts.step() is None


def test_streams_run_in_parallel_on_units_and_queue_when_units_are_busy():
    rt = make_runtime()
    rt.configure(cost=rt.config.cost.__class__(units={Unit.AI_CORE: 1, Unit.SDMA: 1}))
    with World(runtime=rt).entered():
        rt.set_device(0)
        a, b, c = (rt.create_stream(priority=p) for p in (1, 0, 0))
        for s in (a, b, c):
            s.launch_timed("K", 1000, Unit.AI_CORE)
        rt.device().synchronize()
    starts = {e.task.stream.id: e.time_ns for e in rt.recorder.events
              if isinstance(e, SqeDispatched)}
    # one core: the higher-priority streams (priority 0, then creation order) go first
    assert [starts[s.id] for s in (b, c, a)] == [0, 1000, 2000]


def test_a_full_sq_blocks_the_host_until_the_device_frees_a_slot():
    rt = make_runtime(sq_depth=4)
    with World(runtime=rt).entered():
        rt.set_device(0)
        s = rt.create_stream()
        for _ in range(10):
            s.launch_timed("K", 10)
            assert s.pending <= 4
        s.synchronize()
    assert sum(isinstance(e, SqeCompleted) for e in rt.recorder.events) == 10


def test_a_failing_kernel_is_a_device_fault_reported_at_synchronize(rt):
    s = rt.create_stream()
    x = vec(rt, np.ones(4, np.float32))
    small = empty(rt, (2,))
    s.launch_kernel("Relu", [x], [small])
    s.launch_timed("after", 10)
    with pytest.raises(TaskFaultError, match="does not fit"):
        s.synchronize()
    assert [f.kind for f in rt.faults] == ["task"] and s.pending == 0
    assert s.synchronize() == 0     # reported once, the stream goes on


def test_a_kernel_refusing_its_attributes_is_said_in_the_kernels_words(rt):
    """A Softmax whose axis an OM's corrupted bytes made 2**40 (the fuzzer's): said as the
    kernel says it, with no Python class in the fault and no numpy wording of a C int."""
    s = rt.create_stream()
    x, y = vec(rt, np.ones(4, np.float32)), empty(rt, (4,))
    s.launch_kernel("Softmax", [x], [y], {"axis": 2**40})
    with pytest.raises(TaskFaultError) as info:
        s.synchronize()
    assert str(info.value).endswith("Softmax (task 0, SQE 0 of stream rt1) failed: axis "
                                    "1099511627776 is out of range for a 1-d input")
    assert rt.faults[-1].message.endswith("out of range for a 1-d input")


def test_task_type_ids_are_the_runtimes():
    assert (TaskType.KERNEL_AICORE, TaskType.EVENT_RECORD, TaskType.STREAM_WAIT_EVENT,
            TaskType.MODEL_EXECUTE, TaskType.NOTIFY_WAIT, TaskType.NOTIFY_RECORD,
            TaskType.STREAM_ACTIVE, TaskType.LABEL_SET, TaskType.MODEL_END_GRAPH) == \
        (0, 2, 3, 13, 14, 15, 19, 20, 67)


def run_program():
    rt = make_runtime(race_check=True)
    with World(runtime=rt).entered():
        rt.set_device(0)
        producer_consumer(rt)
        s = rt.create_stream()
        for i in range(20):
            s.launch_timed(f"K{i}", 37 * i + 5, Unit.AI_CORE if i % 2 else Unit.AI_VECTOR)
        rt.device().synchronize()
    rt.close()
    return rt.recorder


def test_the_same_program_twice_gives_the_same_trace_hash():
    first, second = run_program(), run_program()
    assert len(first.events) > 50 and first.digest() == second.digest()
