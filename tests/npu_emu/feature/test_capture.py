"""ACL Graph capture: single and cross-stream, errors, task groups, many executions."""
import numpy as np
import pytest

from npu_emu_testing import empty, read, vec
from npu_emu.base.errors import (ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                                 ACL_ERROR_RT_STREAM_CAPTURED, ACL_ERROR_RT_STREAM_UNJOINED,
                                 CaptureError)
from npu_emu.feature.capture import (ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
                                     ACL_MODEL_RI_CAPTURE_STATUS_NONE)
from npu_emu.feature.model import ModelExecuted


def capture_fork_join(rt):
    s, t = rt.create_stream(), rt.create_stream()
    x = vec(rt, np.zeros(16, np.float32))
    y, z, w = empty(rt, (16,)), empty(rt, (16,)), empty(rt, (16,))
    fork, join = rt.create_event(), rt.create_event()
    rt.capture.begin(s)
    s.launch_kernel("Relu", [x], [y])
    s.record_event(fork)
    t.wait_event(fork)                       # t joins the capture
    t.launch_kernel("Neg", [y], [w])
    t.record_event(join)
    rt.capture.task_group_begin(s)
    s.launch_kernel("Mul", [y, y], [z])
    group = rt.capture.task_group_end(s)
    s.wait_event(join)
    assert rt.capture.status(t)[0] == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
    model = rt.capture.end(s)
    return model, group, (s, t), (x, y, z, w)


def test_capture_records_instead_of_running_then_executes_100_times(rt):
    model, _, (s, t), (x, y, z, w) = capture_fork_join(rt)
    assert rt.device().scheduler.retired == 0 or all(
        "Relu" not in str(e) for e in rt.recorder.events if type(e).__name__ == "SqeCompleted")
    assert rt.capture.status(s) == (ACL_MODEL_RI_CAPTURE_STATUS_NONE, None)
    caller = rt.create_stream()
    host = rt.host.register(np.zeros(16, np.float32))
    rng = np.random.default_rng(1)
    for _ in range(100):
        data = rng.standard_normal(16).astype(np.float32)
        rt.device().memory.view(x.addr, (16,), np.float32)[:] = data
        model.execute_async(caller)
        assert caller.synchronize() == 0
        relu = np.maximum(data, 0)
        np.testing.assert_array_equal(read(rt, z), relu * relu)
        np.testing.assert_array_equal(read(rt, w), -relu)
    assert sum(isinstance(e, ModelExecuted) for e in rt.recorder.events) == 100
    assert host


def test_a_task_update_replaces_the_group_between_executions(rt):
    model, group, (s, _), (x, y, z, _) = capture_fork_join(rt)
    rt.device().memory.view(x.addr, (16,), np.float32)[:] = 3
    rt.capture.task_update_begin(s, group)
    s.launch_kernel("Add", [y, y], [z])
    rt.capture.task_update_end(s)
    assert model.execute() == 0
    assert read(rt, z).tolist() == [6.0] * 16
    rt.capture.task_update_begin(s, group)
    with pytest.raises(CaptureError, match="must launch 1 tasks"):
        rt.capture.task_update_end(s)


def test_a_captured_stream_cannot_be_synchronized_and_its_capture_goes_on(rt):
    """The runtime refuses aclrtSynchronizeStream on a capturing stream with
    ACL_ERROR_RT_STREAM_CAPTURED (api_error.cc) and nothing else: the capture stays active and
    ends into a model that runs; a stream outside the capture synchronizes as ever."""
    s, other = rt.create_stream(), rt.create_stream()
    rt.capture.begin(s)
    s.launch_timed("K", 10)
    other.launch_timed("eager", 5)
    assert other.synchronize() == 0

    def retired():
        return [e.task.name for e in rt.recorder.events if type(e).__name__ == "SqeCompleted"]
    assert any(name.startswith("eager") for name in retired())
    with pytest.raises(CaptureError, match=rf"stream \(stream_id={s.id}\) during the capture "
                                           r"stage is not supported") as err:
        s.synchronize()
    assert err.value.code == ACL_ERROR_RT_STREAM_CAPTURED
    assert rt.capture.status(s)[0] == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
    model = rt.capture.end(s)
    assert not any(name.startswith("K") for name in retired())
    run = rt.create_stream()
    model.execute_async(run)
    assert run.synchronize() == 0 and any(name.startswith("K") for name in retired())


def test_querying_while_capturing_is_an_error_and_invalidates_the_capture(rt):
    s = rt.create_stream()
    rt.capture.begin(s)
    s.launch_timed("K", 10)
    with pytest.raises(CaptureError, match="cannot query a stream"):
        s.query()
    with pytest.raises(CaptureError) as err:
        rt.capture.end(s)
    assert err.value.code == ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED


def test_a_joined_stream_must_be_joined_back(rt):
    s, t = rt.create_stream(), rt.create_stream()
    fork = rt.create_event()
    rt.capture.begin(s)
    s.record_event(fork)
    t.wait_event(fork)
    t.launch_timed("K", 10)
    with pytest.raises(CaptureError) as err:
        rt.capture.end(s)
    assert (err.value.code == ACL_ERROR_RT_STREAM_UNJOINED
            and f"stream(s) rt{t.id}" in str(err.value))
    s.launch_timed("eager again", 1)         # the streams are free again
    assert s.synchronize() == 0


def test_two_streams_can_capture_at_once_into_separate_models(rt):
    a, b = rt.create_stream(), rt.create_stream()
    rt.capture.begin(a)
    rt.capture.begin(b)
    a.launch_timed("A", 10)
    b.launch_timed("B", 20)
    ma, mb = rt.capture.end(a), rt.capture.end(b)
    assert ma is not mb and ma.execute() == 0 and mb.execute() == 0
