"""Deadlock reports and the race detector."""
import numpy as np
import pytest

from npu_emu_testing import empty, make_runtime, vec
from npu_emu.base.errors import DeadlockError
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_DEFAULT, ACL_MODEL_STREAM_FLAG_HEAD
from npu_emu.world import World


def test_a_wait_on_an_event_never_recorded_is_a_deadlock_naming_stream_sqe_and_event(rt):
    s1, s2 = rt.create_stream(), rt.create_stream()
    ev = rt.create_event()
    s1.launch_timed("K", 10)
    s2.launch_timed("before", 10)
    s2.wait_event(ev)
    with pytest.raises(DeadlockError) as err:
        s2.synchronize()
    (blocked,) = err.value.blocked
    assert blocked.stream_id == s2.id and "SQE 1 of stream" in blocked.sqe
    assert blocked.waits_for == f"event {ev.id}, which is never recorded"
    assert [f.kind for f in rt.faults] == ["deadlock"]
    assert s1.synchronize() == 0      # other streams are unaffected


def test_the_wait_for_chain_names_a_recorder_that_is_blocked_or_inactive(rt):
    s1, s2 = rt.create_stream(), rt.create_stream()
    e1, e2 = rt.create_event(), rt.create_event()
    s1.wait_event(e2)
    s1.record_event(e1)
    s2.wait_event(e1)
    s2.record_event(e2)
    with pytest.raises(DeadlockError, match="recorded by EventRecord") as err:
        s2.synchronize()
    assert len(err.value.blocked) == 2

    model = rt.model_build_begin()
    head, idle = rt.create_stream(), rt.create_stream()
    model.bind_stream(head, ACL_MODEL_STREAM_FLAG_HEAD)
    model.bind_stream(idle, ACL_MODEL_STREAM_FLAG_DEFAULT)
    e3 = rt.create_event()
    idle.record_event(e3)
    head.wait_event(e3)
    model.end_task(head)
    model.build_end()
    with pytest.raises(DeadlockError, match="inactive \\(never activated\\)"):
        model.execute()


def racy_program(priorities, wait):
    rt = make_runtime(race_check=True)
    with World(runtime=rt).entered():
        rt.set_device(0)
        s1, s2 = rt.create_stream(priorities[0]), rt.create_stream(priorities[1])
        x = vec(rt, np.ones(256, np.float32))
        y, z = empty(rt, (256,)), empty(rt, (256,))
        s1.launch_kernel("Relu", [x], [y])
        if wait:
            ev = rt.create_event()
            s1.record_event(ev)
            s2.wait_event(ev)
        s2.launch_timed("slow start", 5000 if priorities[1] else 1)
        s2.launch_kernel("Neg", [y], [z])
        s1.synchronize()
        s2.synchronize()
    rt.close()
    return rt


@pytest.mark.parametrize("priorities", [(0, 0), (0, 1), (1, 0)])
def test_the_race_detector_names_both_tasks_whatever_order_ran(priorities):
    rt = racy_program(priorities, wait=False)
    (race,) = [f for f in rt.faults if f.kind == "race"]
    assert race.message.startswith("Neg (task 2, SQE 1 of stream rt2) and "
                                   "Relu (task 0, SQE 0 of stream rt1) both touch")


def test_a_correct_program_gets_no_race_report():
    assert racy_program((0, 0), wait=True).faults == []


def test_freeing_memory_without_synchronizing_its_user_is_a_race(rt):
    rt.enable_race_check()
    s, other = rt.create_stream(), rt.create_stream()
    x = vec(rt, np.ones(8, np.float32))
    s.launch_kernel("Relu", [x], [x])
    other.launch_timed("long", 10_000)
    other.synchronize()       # the device ran s's Relu too, but the host never synced s
    rt.free(x.addr)
    (race,) = rt.faults
    assert "Relu" in race.message and "the host (free)" in race.message


def test_a_task_that_runs_after_its_memory_was_freed_faults(rt):
    s = rt.create_stream()
    x = vec(rt, np.ones(8, np.float32))
    s.launch_kernel("Relu", [x], [x])
    rt.free(x.addr)
    with pytest.raises(Exception, match="was freed"):
        s.synchronize()
    assert [f.kind for f in rt.faults] == ["task"]


def test_a_task_for_a_unit_the_device_lacks_stalls_with_a_clear_reason():
    from npu_emu.scheduler.cost_model import CostModel, Unit
    rt = make_runtime(cost=CostModel(units={Unit.SDMA: 1}))
    with World(runtime=rt).entered():
        rt.set_device(0)
        s = rt.create_stream()
        x = vec(rt, np.ones(4, np.float32))
        s.memcpy_async(x.addr, x.addr, 16)       # SDMA: fine
        s.launch_timed("DVPP work", 10, Unit.DVPP)
        with pytest.raises(DeadlockError, match="units this device does not have"):
            s.synchronize()
