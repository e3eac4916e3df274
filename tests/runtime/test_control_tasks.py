"""The TaskInfos the light models never need, on a tiny_cnn extended by hand after its softmax:
StreamActive / StreamSwitch starting a DEFAULT stream, MemcpyAsync, events between them,
LabelGoto / LabelSwitchByIndex jumping over a copy that would clobber the output, and an HCCL
collective. The device's output must be what those tasks imply."""
import numpy as np

from ge_core.executor import HostExecutor
from ge_core.graph import DataType
from ge_core.graph.attr_names import (ATTR_MODEL_LABEL_NUM, ATTR_NAME_LABEL_SWITCH_LIST,
                                      INPUT_OFFSET)
from ge_core.om.ge_model import GeModel
from ge_core.om.logical_memory import WEIGHT_BASE
from ge_core.model_task_type import MemcpyKind, ModelTaskType
from ge_core.om.proto.task_pb2 import TaskDef
from ge_core.om.weights import Weights
from ge_core.parser import parse_onnx
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_DEFAULT
from npu_emu.scheduler.events import SqeCompleted
from npu_emu.scheduler.task import TaskType
from v1_testing import TINY, device_world, events, feeds_for, ge_model, host_outputs, load

T = ModelTaskType
PROB, FC_OUT, PROB_BYTES = 11264, 5632, 40   # tiny_cnn's logical addresses (see its om-info)


def _extended() -> tuple[GeModel, int]:
    m = ge_model()
    tasks = list(m.task_def.task)
    softmax = next(t.id for t in tasks if m.op(t.id).type == "Softmax")
    assert m.op(softmax).output_i[0] == PROB and m.op(softmax).input_i[0] == FC_OUT
    aside = m.task_def.memory_size
    m.task_def.memory_size += 512
    m.task_def.stream_num = 3
    m.task_def.event_num = 2
    m.task_def.attr[ATTR_MODEL_LABEL_NUM] = "1"

    def task(kind: ModelTaskType, stream: int, event_id: int = 0) -> TaskDef:
        return TaskDef(id=softmax, type=kind, stream_id=stream, event_id=event_id)

    def copy(dst: int, src: int) -> TaskDef:
        t = task(T.MEMCPY_ASYNC, 0)
        c = t.memcpy_async
        c.dst, c.dst_max, c.src, c.count, c.kind = dst, 96, src, 96, MemcpyKind.DEVICE_TO_DEVICE
        return t

    aside_copy, clobber = copy(aside, PROB), copy(PROB, FC_OUT)
    aside_copy.stream_id, clobber.stream_id = 2, 1
    active = task(T.STREAM_ACTIVE, 1)
    active.stream_active.active_stream_id = 2
    goto, label = task(T.STREAM_LABEL_GOTO, 1), task(T.LABEL_SET, 1)
    goto.label_goto_ex.label_id = label.label_set.label_id = 0
    record, wait = task(T.EVENT_RECORD, 2, event_id=1), task(T.EVENT_WAIT, 1, event_id=1)
    end = tasks.pop()
    assert end.type == T.END_GRAPH
    del m.task_def.task[:]
    m.task_def.task.extend([*tasks, active, aside_copy, record, wait, goto, clobber, label, end])
    return m, aside


def test_stream_active_memcpy_events_and_labels_work_as_sunk():
    feeds = feeds_for()
    m, aside = _extended()
    assert m.head_streams == [0, 1]
    with device_world() as world:
        model = load(m)
        assert model.streams[2].flag == ACL_MODEL_STREAM_FLAG_DEFAULT
        outputs = model.nn_execute(feeds)
        copies = [e.task for e in events(world, SqeCompleted) if e.task.type == TaskType.MEMCPY]
        kept = world.runtime.device().memory.view(model.resolve(aside), (1, 10), np.float32)
        np.testing.assert_array_equal(kept, outputs["prob"])
    np.testing.assert_allclose(outputs["prob"], host_outputs(TINY, feeds)["prob"], rtol=1e-5,
                               atol=1e-6)
    # the copy aside, never the clobber (NnExecute's own copies are aclrtMemcpy, no SQE)
    assert len(copies) == 1
    assert model.task_infos[-3].task not in copies
    assert copies[0].count == PROB_BYTES   # the data's bytes, not GE's padded size


def _with_tasks(m: GeModel, extra: list[TaskDef]) -> GeModel:
    """``extra`` inserted before END_GRAPH."""
    *tasks, end = m.task_def.task
    del m.task_def.task[:]
    m.task_def.task.extend([*tasks, *extra, end])
    return m


def test_hccl_all_reduce_on_one_rank_copies_send_to_recv():
    feeds = feeds_for()
    m = ge_model()
    softmax = next(t.id for t in m.task_def.task if m.op(t.id).type == "Softmax")
    hccl = TaskDef(id=softmax, type=T.HCCL, stream_id=1)
    hccl.kernel_hccl.hccl_type = "HcomAllReduce"
    with device_world() as world:
        outputs = load(_with_tasks(m, [hccl])).nn_execute(feeds)
        kinds = {e.task.type for e in events(world, SqeCompleted)}
    host = HostExecutor(parse_onnx(TINY), keep_values=True)
    host.run(feeds)
    np.testing.assert_allclose(outputs["prob"], host.values["fc:0"], rtol=1e-5, atol=1e-6)
    assert TaskType.CCU_LAUNCH in kinds


def test_stream_switch_and_label_switch_by_index_steer_the_model():
    """StreamSwitch (fc's output equal to itself: true) starts stream 2, which copies the output
    aside; LabelSwitchByIndex reads index 1 (a uint32 appended to the weights) and jumps to L1,
    past a clobbering copy at L0."""
    feeds = feeds_for()
    m = ge_model()
    graph_op = {n.name: n for n in m.graph.all_nodes()}
    softmax = next(t.id for t in m.task_def.task if m.op(t.id).type == "Softmax")
    send = next(t.id for t in m.task_def.task if t.type == T.EVENT_RECORD)
    index_at = WEIGHT_BASE + len(m.weights)
    m.weights = Weights.of(bytes(m.weights) + np.array([1], np.uint32).tobytes())
    switch_op = graph_op[m.op(send).name].op_desc     # any op: the task reads its attrs
    switch_op.set_attr(INPUT_OFFSET, [index_at])
    switch_op.set_attr(ATTR_NAME_LABEL_SWITCH_LIST, [0, 1])
    aside = m.task_def.memory_size
    m.task_def.memory_size += 512
    m.task_def.stream_num, m.task_def.event_num = 3, 2
    m.task_def.attr[ATTR_MODEL_LABEL_NUM] = "2"

    stream_switch = TaskDef(id=softmax, type=T.STREAM_SWITCH, stream_id=1)
    s = stream_switch.stream_switch
    s.true_stream_id, s.value, s.value_ptr, s.data_type = 2, 0, FC_OUT, DataType.DT_FLOAT
    copy_aside = TaskDef(id=softmax, type=T.MEMCPY_ASYNC, stream_id=2)
    clobber = TaskDef(id=softmax, type=T.MEMCPY_ASYNC, stream_id=1)
    for t, dst, src in ((copy_aside, aside, PROB), (clobber, PROB, FC_OUT)):
        c = t.memcpy_async
        c.dst, c.dst_max, c.src, c.count, c.kind = dst, 96, src, 96, MemcpyKind.DEVICE_TO_DEVICE
    record = TaskDef(id=softmax, type=T.EVENT_RECORD, stream_id=2, event_id=1)
    wait = TaskDef(id=softmax, type=T.EVENT_WAIT, stream_id=1, event_id=1)
    label_switch = TaskDef(id=send, type=T.STREAM_LABEL_SWITCH_BY_INDEX, stream_id=1)
    label_switch.label_switch_by_index.label_max = 2
    labels = [TaskDef(id=softmax, type=T.LABEL_SET, stream_id=1) for _ in range(2)]
    labels[1].label_set.label_id = 1
    _with_tasks(m, [stream_switch, copy_aside, record, wait, label_switch, labels[0], clobber,
                    labels[1]])
    with device_world() as world:
        model = load(m)
        outputs = model.nn_execute(feeds)
        kept = world.runtime.device().memory.view(model.resolve(aside), (1, 10), np.float32)
        np.testing.assert_array_equal(kept, outputs["prob"])
    np.testing.assert_allclose(outputs["prob"], host_outputs(TINY, feeds)["prob"], rtol=1e-5,
                               atol=1e-6)
