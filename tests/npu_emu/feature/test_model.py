"""Model (aclmdlRI): build, bind, execute, labels, stream switch, AutoSplit, abort, timeout."""
import numpy as np
import pytest

from npu_emu_testing import empty, make_runtime, read, vec
from npu_emu.base.errors import (ACL_ERROR_RT_MODEL_ABORT_NORMAL, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                                 ModelStateError, StreamModelError, StreamTaskFullError)
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_DEFAULT, ACL_MODEL_STREAM_FLAG_HEAD
from npu_emu.feature.auto_split import SlaveStreamCreated
from npu_emu.feature.model import ModelLoaded
from npu_emu.scheduler.events import LabelJumped, StreamState
from npu_emu.scheduler.task import TaskType
from npu_emu.world import World

UINT32 = 12


def test_stream_flags_are_the_runtimes():
    assert (ACL_MODEL_STREAM_FLAG_HEAD, ACL_MODEL_STREAM_FLAG_DEFAULT) == (0x0, 0x7FFFFFFF)


def test_model_streams_are_inactive_until_execute_and_results_repeat(rt950):
    rt = rt950
    s = rt.create_stream()
    model = rt.model_build_begin()
    model.set_name("double")
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    x, y = vec(rt, np.arange(8, dtype=np.float32)), empty(rt, (8,))
    s.launch_kernel("Add", [x, x], [y])
    model.end_task(s)
    assert s.state == StreamState.INACTIVE and s.pending == 0    # AutoSplit: host buffer
    model.build_end()
    assert s.pending == 2
    for _ in range(3):
        assert model.execute() == 0
    np.testing.assert_array_equal(read(rt, y), 2 * np.arange(8))
    assert s.state == StreamState.INACTIVE
    with pytest.raises(ModelStateError, match="no more tasks"):
        s.launch_timed("late", 1)


def test_execute_async_on_a_stream_then_synchronize(rt):
    s, caller = rt.create_stream(), rt.create_stream()
    model = rt.model_build_begin()
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    s.launch_timed("K", 100)
    model.end_task(s)
    model.build_end()
    model.execute_async(caller)
    model.execute_async(caller)
    assert caller.synchronize() == 0
    assert caller.pending == 0
    executes = [e for e in rt.recorder.events if type(e).__name__ == "ModelExecuted"]
    assert len(executes) == 2


def test_build_errors_are_typed(rt):
    s = rt.create_stream()
    model = rt.model_build_begin()
    with pytest.raises(StreamModelError):
        model.bind_stream(rt.default_stream(), ACL_MODEL_STREAM_FLAG_HEAD)
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    with pytest.raises(StreamModelError):
        rt.model_build_begin().bind_stream(s)
    model.build_end()
    with pytest.raises(ModelStateError, match="end graph must be called"):
        model.execute()
    model.destroy()
    assert s.model is None and s.state == StreamState.IDLE
    s.launch_timed("eager again", 1)
    assert s.synchronize() == 0


def build_loop(rt, iterations, auto_split=None):
    """Head stream s loops with labels; each pass activates worker w, which adds x into acc and
    records an event s waits on. Returns (model, acc, counter, x)."""
    model = rt.model_build_begin(auto_split)
    s, w = rt.create_stream(), rt.create_stream()
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    model.bind_stream(w, ACL_MODEL_STREAM_FLAG_DEFAULT)
    x = vec(rt, np.arange(16, dtype=np.float32))
    acc = vec(rt, np.zeros(16, np.float32))
    zero, one = vec(rt, np.zeros(1, np.int32)), vec(rt, np.ones(1, np.int32))
    limit, counter = vec(rt, np.array([iterations], np.int32)), empty(rt, (1,), np.int32)
    cond, index = empty(rt, (1,), np.bool_), empty(rt, (1,), np.uint32)
    loop, done = model.create_label(), model.create_label()
    w_done = rt.create_event()
    s.memcpy_async(counter.addr, zero.addr, 4)
    s.memcpy_async(acc.addr, vec(rt, np.zeros(16, np.float32)).addr, 64)
    s.label_set(loop)
    s.active_stream(w)
    w.launch_kernel("Add", [acc, x], [acc])
    w.record_event(w_done)
    s.launch_kernel("Add", [counter, one], [counter])
    s.launch_kernel("Less", [counter, limit], [cond])
    s.launch_kernel("Cast", [cond], [index], {"to": UINT32})
    s.wait_event(w_done)
    s.label_switch_by_index(index.addr, [done, loop])
    s.label_set(done)
    model.end_task(s)
    model.build_end()
    return model, acc, counter, x


@pytest.mark.parametrize("iterations", [1, 4, 9])
def test_a_label_loop_across_two_streams_runs_n_times(rt, iterations):
    model, acc, counter, x = build_loop(rt, iterations)
    for _ in range(2):   # the loop restarts cleanly on every execution
        assert model.execute() == 0
        assert read(rt, counter)[0] == iterations
        np.testing.assert_array_equal(read(rt, acc), iterations * read(rt, x))
    jumps = [e for e in rt.recorder.events if isinstance(e, LabelJumped)]
    assert len(jumps) == 2 * iterations


def test_stream_switch_takes_the_branch_its_condition_picks(rt):
    model = rt.model_build_begin()
    s, then_s = rt.create_stream(), rt.create_stream()
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    model.bind_stream(then_s, ACL_MODEL_STREAM_FLAG_DEFAULT)
    flag = vec(rt, np.array([7], np.int64))
    out = vec(rt, np.zeros(4, np.float32))
    ones = vec(rt, np.ones(4, np.float32))
    joined = rt.create_event()
    s.stream_switch(flag.addr, 0, 7, then_s)     # if flag == 7: run then_s
    then_s.launch_kernel("Add", [out, ones], [out])
    model.end_task(s)
    model.build_end()
    model.execute()
    rt.device().synchronize()
    assert read(rt, out).tolist() == [1, 1, 1, 1]
    rt.device().memory.view(flag.addr, (1,), np.int64)[0] = 3
    model.execute()
    rt.device().synchronize()
    assert read(rt, out).tolist() == [1, 1, 1, 1]
    assert joined.id >= 0


def test_autosplit_creates_slave_streams_and_gives_the_same_results():
    results = {}
    # on a 950, a stream holding 7 SQEs is full at a limit of 48: 7 + 1 + 32 reserved + 8 >= 48
    for limit, split in ((48, True), (32767, True), (None, False)):
        config = {"host_sq_max_count": limit} if limit else {}
        config["soc_version"] = "Ascend950"
        rt = make_runtime(**config)
        with World(runtime=rt).entered():
            rt.set_device(0)
            model, acc, counter, _ = build_loop(rt, 3, auto_split=split)
            assert model.execute() == 0
            results[(limit, split)] = read(rt, acc)
        slaves = [e for e in rt.recorder.events if isinstance(e, SlaveStreamCreated)]
        assert (len(slaves) > 0) == (limit == 48)
        if limit == 48:
            assert all(len(s.sq.entries) <= 8 for s in model.streams)
            assert len(model.streams) == 2 + len(slaves)
    first = results[(48, True)]
    assert all(np.array_equal(first, r) for r in results.values())


def test_without_autosplit_a_full_sq_fails_at_submission_with_its_code():
    rt = make_runtime(sq_depth=8)
    with World(runtime=rt).entered():
        rt.set_device(0)
        model = rt.model_build_begin(auto_split=False)
        s = rt.create_stream()
        model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
        assert [e.task.type for e in rt.recorder.events if type(e).__name__ == "SqeSubmitted"] \
            == [TaskType.MODEL_MAINTAINCE]   # bound to the hardware at once
        for _ in range(8):
            s.launch_timed("K", 1)
        with pytest.raises(StreamTaskFullError) as err:
            s.launch_timed("K", 1)
        assert err.value.code == 507002
    loaded = [e for e in rt.recorder.events if isinstance(e, ModelLoaded)]
    assert loaded == []


def test_a_timeout_aborts_the_model_and_leaves_the_device_usable(rt):
    model = rt.model_build_begin()
    head, caller, other = rt.create_stream(), rt.create_stream(), rt.create_stream()
    model.bind_stream(head, ACL_MODEL_STREAM_FLAG_HEAD)
    head.wait_event(rt.create_event())
    model.end_task(head)
    model.build_end()
    model.execute_async(caller)
    t0 = rt.device().now
    assert caller.synchronize(timeout_ms=3) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert rt.device().now == t0 + 3_000_000 and not model.running
    assert caller.synchronize() == ACL_ERROR_RT_MODEL_ABORT_NORMAL
    assert [f.kind for f in rt.faults] == ["timeout"]
    other.launch_timed("K", 5)
    assert other.synchronize() == 0
    assert model.execute(timeout_ms=1) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT


def test_abort_stops_a_running_model_mid_flight(rt):
    model = rt.model_build_begin()
    head, caller = rt.create_stream(), rt.create_stream()
    model.bind_stream(head, ACL_MODEL_STREAM_FLAG_HEAD)
    for _ in range(10):
        head.launch_timed("K", 1000)
    model.end_task(head)
    model.build_end()
    model.execute_async(caller)
    ts = rt.device().scheduler
    ts.run_until(lambda r: r.task.name == "K" and r.pos == 3)
    model.abort()
    assert caller.synchronize() == ACL_ERROR_RT_MODEL_ABORT_NORMAL
    assert head.state == StreamState.INACTIVE
    assert model.execute() == 0     # the model runs again from the start


def test_unbind_returns_a_stream_to_eager_use_and_tells_the_hardware(rt):
    model = rt.model_build_begin(auto_split=False)
    s, t = rt.create_stream(), rt.create_stream()
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    model.bind_stream(t, ACL_MODEL_STREAM_FLAG_DEFAULT)
    model.unbind_stream(t)
    assert t.model is None and model.streams == [s]
    maint = [e.task.name for e in rt.recorder.events if type(e).__name__ == "SqeCompleted"
             and e.task.type == TaskType.MODEL_MAINTAINCE]
    assert maint == [f"ModelMaintaince(bind rt{s.id} to m{model.id})",
                     f"ModelMaintaince(bind rt{t.id} to m{model.id})",
                     f"ModelMaintaince(unbind rt{t.id} to m{model.id})"]
    t.launch_timed("eager", 1)
    assert t.synchronize() == 0


def _maintenance(rt) -> list[str]:
    return [e.task.name for e in rt.recorder.events if type(e).__name__ == "SqeCompleted"
            and e.task.type == TaskType.MODEL_MAINTAINCE]


@pytest.mark.parametrize("auto_split", [False, True])
def test_destroy_unbinds_every_stream_on_the_hardware_and_frees_them(rt, auto_split):
    # the runtime's ~Model: UnbindStream per bound stream, a MODEL_MAINTAINCE SQE (MMT_STREAM_DEL)
    model = rt.model_build_begin(auto_split=auto_split)
    s, t = rt.create_stream(), rt.create_stream()
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    model.bind_stream(t, ACL_MODEL_STREAM_FLAG_DEFAULT)
    s.launch_timed("K", 10)
    model.end_task(s)
    model.build_end()
    assert model.execute() == 0
    before = _maintenance(rt)
    model.destroy()
    assert _maintenance(rt)[len(before):] == [f"ModelMaintaince(unbind rt{s.id} to m{model.id})",
                                               f"ModelMaintaince(unbind rt{t.id} to m{model.id})"]
    assert s.model is None and t.model is None and rt.models == []
    t.launch_timed("eager", 1)
    assert t.synchronize() == 0


def test_destroying_a_model_autosplit_never_sent_tells_the_hardware_nothing(rt):
    model = rt.model_build_begin(auto_split=True)
    s = rt.create_stream()
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)   # in the host buffer until LoadComplete
    model.destroy()
    assert _maintenance(rt) == [] and s.model is None


def test_without_autosplit_a_910b_model_stream_takes_its_sqes_at_once(rt):
    """The 910B has no AutoSplit: a bound stream's launches go straight into its device SQ, and
    GE's build must have split the streams to fit (maxTaskNumPerStream)."""
    s = rt.create_stream()
    model = rt.model_build_begin()
    model.bind_stream(s, ACL_MODEL_STREAM_FLAG_HEAD)
    x, y = vec(rt, np.arange(8, dtype=np.float32)), empty(rt, (8,))
    s.launch_kernel("Add", [x, x], [y])
    model.end_task(s)
    assert model.auto_split is None
    assert s.state == StreamState.INACTIVE and s.pending == 2
    model.build_end()
    assert model.execute() == 0
    np.testing.assert_array_equal(read(rt, y), 2 * np.arange(8))
