"""DoTaskSink's Distribute: one TaskDistributed per TaskDef, in task order, naming the task type,
the model's stream, the device stream and the node - emitted before the task reaches the model,
so a breakpoint there sees the TaskInfo with its task not yet sunk. And the trace of a load and
an execution is the same on every run."""
import numpy as np

from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.v1 import DavinciModel
from ge_core.events import TaskDistributed
from ge_core.runtime.v1.task_info import TASK_INFOS
from v1_testing import device_world, events, feeds_for, ge_model, light, load


def test_task_distributed_events_follow_the_task_list():
    m = ge_model(light("inception_v1"), stream_max_parallel_num=4)
    with device_world() as world:
        model = load(m)
        seen = events(world, TaskDistributed)
    assert [e.index for e in seen] == list(range(len(m.task_def.task)))
    for e, task in zip(seen, m.task_def.task):
        assert e.task_type == ModelTaskType(task.type).name
        assert e.stream_id == task.stream_id
        assert e.rt_stream_id == model.streams[task.stream_id].id
        assert e.node == m.op(task.id).name and e.op_type == m.op(task.id).type
        assert e.model_id == model.model_id
    kinds = {e.task_type for e in seen}
    assert {"KERNEL", "EVENT_RECORD", "EVENT_WAIT", "END_GRAPH"} <= kinds


def test_distribute_stops_before_the_task_is_on_the_stream():
    """On a chip with AutoSplit (a 950) a distributed task waits in its stream's host buffer,
    and the announcement comes before it is there."""
    m = ge_model()
    with device_world(soc_version="Ascend950") as world:
        model = DavinciModel(1, m)
        sunk_when_announced = []

        def watch(event):
            if isinstance(event, TaskDistributed):
                info = model.task_infos[event.index]
                sunk_when_announced.append((info.task, len(info.stream.host_buffer)))
        world.bus.subscribe(watch)
        model.init()
    per_stream: dict[int, int] = {}
    for (task, queued), t in zip(sunk_when_announced, m.task_def.task):
        assert task is None
        assert queued == per_stream.get(t.stream_id, 0)
        per_stream[t.stream_id] = queued + 1


def test_every_task_type_the_builder_emits_has_a_task_info():
    T = ModelTaskType
    emitted = {T.KERNEL, T.KERNEL_EX, T.HCCL, T.EVENT_RECORD, T.EVENT_WAIT, T.NOTIFY_RECORD,
               T.NOTIFY_WAIT, T.STREAM_ACTIVE, T.STREAM_SWITCH, T.LABEL_SET, T.STREAM_LABEL_GOTO,
               T.STREAM_LABEL_SWITCH_BY_INDEX, T.MEMCPY_ASYNC, T.END_GRAPH}
    assert emitted <= set(TASK_INFOS)


def test_notify_sync_models_run_too():
    feeds = feeds_for()
    m = ge_model(use_notify=True)
    assert {ModelTaskType.NOTIFY_RECORD, ModelTaskType.NOTIFY_WAIT} <= \
        {ModelTaskType(t.type) for t in m.task_def.task}
    with device_world():
        first = load(m).nn_execute(feeds)
    with device_world():
        second = load(ge_model()).nn_execute(feeds)
    np.testing.assert_array_equal(first["prob"], second["prob"])


def test_a_notify_model_waits_on_notifies_each_wait_clearing_its_own():
    """ge.event=notify: the streams wait on notifies, never on an event; a notify is one-shot,
    so each wait clears the notify it passed and the next execution's wait blocks again until
    its record: two executions, race-checked, both right."""
    from npu_emu.scheduler.events import (EventWaitBlocked, NotifyRecorded, NotifyWaitBlocked,
                                          NotifyWaitSatisfied)
    feeds = feeds_for(light("inception_v1"))
    m = ge_model(light("inception_v1"), stream_max_parallel_num=4, use_notify=True)
    assert m.task_def.event_num == 0
    with device_world(race_check=True) as world:
        model = load(m)
        first = model.nn_execute(feeds)
        records = len(events(world, NotifyRecorded))
        second = model.nn_execute(feeds)
        assert not world.runtime.faults
        assert not events(world, EventWaitBlocked)
        satisfied = events(world, NotifyWaitSatisfied)
        waits = {e.notify_id for e in satisfied}
        assert waits and not any(model.device.notify_flags[i] for i in waits)
        assert len(events(world, NotifyRecorded)) == 2 * records
        assert events(world, NotifyWaitBlocked)
    for name, value in first.items():
        np.testing.assert_array_equal(value, second[name])


def _traced_run() -> str:
    m = ge_model()
    with device_world() as world:
        model = load(m)
        model.nn_execute(feeds_for())
        model.nn_execute(feeds_for(seed=1))
        return world.recorder.digest()


def test_the_same_load_and_executions_give_the_same_trace():
    assert _traced_run() == _traced_run()
