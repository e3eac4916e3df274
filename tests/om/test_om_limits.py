"""A corrupted OM whose layout is intact (the checksum recomputed) is refused in one line naming
the field at fault, before anything is made from it: every count and index is held against the
file and GE's limits (issue 15's OM loader defects, one case per class)."""
from __future__ import annotations

import resource
from pathlib import Path

import pytest
from onnx import helper

from build_testing import annotate_build, onnx_graph
from ge_core.compiler.task import build_ge_model
from ge_core.graph.types import DataType
from ge_core.om import OmFileError, load_om, om_bytes, om_info
from ge_core.om.om_limits import MAX_EVENT_NUM, MAX_NOTIFY_NUM, MAX_STREAM_NUM
from ge_core.om.partition_table import ModelPartitionType as P
from ge_core.om.partition_table import pack_partitions
from ge_core.om.proto import ge_ir_pb2, task_pb2
from test_om_file import partitions, with_body


@pytest.fixture(scope="module")
def small_om() -> bytes:
    graph = annotate_build(onnx_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                                      {"x": [4]}, {"y": [4]}))
    return om_bytes(build_ge_model(graph, "small"))


def _edited(om: bytes, kind: P, edit) -> bytes:
    """``om`` with one partition decoded, edited and put back; the header agrees with it."""
    parts = dict(partitions(om))
    if kind == P.TBE_KERNELS:
        parts[kind] = edit(parts[kind])
    else:
        cls = task_pb2.ModelTaskDef if kind == P.TASK_INFO else ge_ir_pb2.ModelDef
        message = cls.FromString(parts[kind])
        edit(message)
        parts[kind] = message.SerializeToString()
    return with_body(pack_partitions(sorted(parts.items())))


def _refused(data: bytes, tmp_path) -> str:
    path = tmp_path / "bad.om"
    path.write_bytes(data)
    for read in (load_om, om_info):   # exec loads it; om-info shows it
        with pytest.raises(OmFileError) as err:
            read(path)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{path}: ")
    return text


def _set(field: str, value: int):
    return lambda m: setattr(m, field, value)


def _task0(field: str, value: int):
    return lambda m: setattr(m.task[0], field, value)


def _graph_attr(edit):
    return lambda m: edit(m.attr)


def _io_dtype(m: ge_ir_pb2.ModelDef) -> None:
    _op(m, "Data").output_desc[0].dtype = DataType.DT_UNDEFINED


def _op(m: ge_ir_pb2.ModelDef, op_type: str) -> ge_ir_pb2.OpDef:
    return next(op for op in m.graph[0].op if op.type == op_type)


def _relu_reads(src: str):
    return lambda m: _op(m, "Relu").input.__setitem__(0, src)


def _valueless_tensor_attr(m: ge_ir_pb2.ModelDef) -> None:
    desc = _op(m, "Relu").attr["bad"].t.desc
    desc.dtype = DataType.DT_UNDEFINED
    desc.shape.dim.append(2)


def _relu_input_dims(m: ge_ir_pb2.ModelDef) -> None:
    _op(m, "Relu").input_desc[0].shape.dim[0] = 5


def _relu_output_dims(m: ge_ir_pb2.ModelDef) -> None:
    _op(m, "Relu").output_desc[0].shape.dim[0] = 5
    _op(m, "NetOutput").input_desc[0].shape.dim[0] = 5


CASES = {
    "stream_num 2^32-1": (P.TASK_INFO, _set("stream_num", 2**32 - 1),
                          f"stream_num 4294967295 exceeds the limit of {MAX_STREAM_NUM}"),
    "event_num": (P.TASK_INFO, _set("event_num", MAX_EVENT_NUM + 1),
                  f"event_num {MAX_EVENT_NUM + 1} exceeds the limit of {MAX_EVENT_NUM}"),
    "notify_num": (P.TASK_INFO, lambda m: m.attr.__setitem__("notify_num", "99999"),
                   f"notify_num 99999 exceeds the limit of {MAX_NOTIFY_NUM}"),
    "a count that is not a number": (P.TASK_INFO, lambda m: m.attr.__setitem__("label_num", "x"),
                                     "label_num 'x' is not a count"),
    "task op index out of range": (P.TASK_INFO, _task0("id", 7),
                                   "task 0 names op index 7, the task list has"),
    "task on a stream the model lacks": (P.TASK_INFO, _task0("stream_id", 9),
                                         "task 0 is on stream 9, the model has"),
    "garbage OpDef": (P.TASK_INFO, lambda m: m.op.__setitem__(0, b"\xff\xff\xff"),
                      "op 0 of the task list does not decode as an OpDef"),
    "weight_size": (P.TASK_INFO, _set("weight_size", 12345),
                    "weight_size 12345 but the WEIGHTS_DATA partition holds"),
    "a missing model attribute": (P.MODEL_DEF, _graph_attr(lambda a: a.pop("stream_num")),
                                  "model attr stream_num is missing or not an int"),
    "a model attribute that disagrees": (
        P.MODEL_DEF, _graph_attr(lambda a: setattr(a["stream_num"], "i", 5)),
        "model attr stream_num = 5, the task list says 1"),
    "non-UTF-8 attribute string": (
        P.MODEL_DEF, lambda m: setattr(m.graph[0].op[0].attr["bad"], "s", b"\xff\xfe"),
        "string b'\\xff\\xfe' is not UTF-8"),
    "DT_UNDEFINED graph input": (P.MODEL_DEF, _io_dtype,
                                 "a static model's input or output needs a data type"),
    "an input desc its producer disagrees with": (
        P.MODEL_DEF, _relu_input_dims, "node relu input 0 is f32[5], its producer x makes f32[4]"),
    "an output desc its InferShape disagrees with": (
        P.MODEL_DEF, _relu_output_dims,
        "node relu (Relu) is written to make f32[5]; its inputs and attributes make f32[4]"),
    "an output its producer lacks": (P.MODEL_DEF, _relu_reads("x:3"),
                                     "input 'x:3': x has no output 3 (it has 1)"),
    "an output index that is no number": (P.MODEL_DEF, _relu_reads("x:-1"),
                                          "input 'x:-1': input 0 is a control input; "
                                          "the node has 1 input desc(s)"),
    "a tensor of a type that holds no values": (
        P.MODEL_DEF, _valueless_tensor_attr,
        "tensor ?[2] has data of type DT_UNDEFINED, which holds no values"),
    "a data input beyond the input descs": (
        P.MODEL_DEF, lambda m: _op(m, "Relu").ClearField("input_desc"),
        "input 'x:0': input 0 is a data input; the node has 0 input desc(s)"),
    "non-UTF-8 kernel names": (P.TBE_KERNELS, lambda raw: b"\xff" + raw,
                               "malformed partition TBE_KERNELS: kernel names are not UTF-8"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_corrupted_field_is_one_line_naming_it(case, small_om, tmp_path):
    kind, edit, reason = CASES[case]
    assert reason in _refused(_edited(small_om, kind, edit), tmp_path)


def test_stream_num_is_refused_before_anything_is_allocated(small_om, tmp_path):
    """2^32-1 streams once took 18 s and 5.8 GB (a dict of every stream id) before failing:
    under a 1 GiB address-space cap it is refused by the limit, not by running out."""
    data = _edited(small_om, P.TASK_INFO, _set("stream_num", 2**32 - 1))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_address_space() + (1 << 30), hard))
    try:
        _refused(data, tmp_path)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int:
    """This process's virtual size now (VmSize), in bytes."""
    with open("/proc/self/status") as f:
        line = next(ln for ln in f if ln.startswith("VmSize:"))
    return int(line.split()[1]) * 1024


@pytest.mark.parametrize("num", [0, 9])
def test_a_partition_count_ge_refuses(num, tmp_path):
    """GE's CheckPartitionTableNum: 1 to PARTITION_SIZE + kMaxIncreasePartitionNum (8)."""
    body = pack_partitions([(P.MODEL_DEF, b"x")] * max(num, 1))
    body = num.to_bytes(4, "little") + body[4:]
    text = _refused(with_body(body), tmp_path)
    assert f"partition table of {num} partitions: GE accepts 1 to 8" in text


def _sample_om() -> bytes:
    from ge_core.atc import atc
    from ge_core.compiler import CompileOptions
    from ge_core.compiler.model_builder import BuildOptions
    from ge_core.parser import parse_onnx
    sample = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"
    return om_bytes(atc(parse_onnx(sample), CompileOptions(dump=None), BuildOptions()).built
                    .ge_model)


def test_an_attribute_no_kernel_takes_is_refused_at_load(tmp_path):
    """The sample's FusedConv with an activation the fused kernels do not apply: refused when
    loaded, not met as a Python error on the device."""
    data = _edited(_sample_om(), P.MODEL_DEF, lambda m: setattr(
        _op(m, "FusedConv").attr["activation"], "s", b"Gelu"))
    assert "(FusedConv) does not fit its inputs and attributes: activation 'Gelu' is none the " \
           "fused kernels apply (Relu)" in _refused(data, tmp_path)


def test_an_attribute_list_shorter_than_the_op_reads_is_one_line_naming_it(tmp_path):
    """ONNX's checker keeps a parsed model's MaxPool from one stride for two spatial dims; an
    OM's InferShape met it as Python's 'list index out of range' (found by the om fuzz target)."""
    data = _edited(_sample_om(), P.MODEL_DEF, lambda m: _op(m, "MaxPool").attr["strides"]
                   .list.i.pop())
    assert "node pool1 (MaxPool) does not fit its inputs and attributes: MaxPool's InferShape " \
           "cannot read inputs (f32[1,8,16,16]) with attributes kernel_shape=[2, 2], " \
           "strides=[2]" in _refused(data, tmp_path)


def test_a_task_whose_op_lost_its_offsets_is_refused_at_load(small_om):
    from ge_core.om import load_om_bytes
    from ge_core.model_task_type import ModelTaskType
    from ge_core.runtime.errors import ModelLoadError
    from ge_core.session.graph_manager import GraphManager
    from npu_emu.world import World

    def switch(m: task_pb2.ModelTaskDef) -> None:
        m.task[0].type = ModelTaskType.STREAM_SWITCH
        m.task[0].stream_switch.data_type = DataType.DT_INT32
    data = _edited(_edited(small_om, P.TASK_INFO, switch), P.MODEL_DEF,
                   lambda m: _op(m, "Relu").ClearField("input_i"))
    with World().entered(), pytest.raises(ModelLoadError) as err:
        GraphManager.load(load_om_bytes(data))
    assert "its op has no input_offset (it reads None)" in str(err.value)


def test_a_stream_switch_on_operands_that_are_no_numbers_is_refused_at_load(small_om):
    """A STREAM_SWITCH TaskDef's data_type is what the TS compares: DT_UNDEFINED (a zeroed
    field) was met as Python's 'DT_UNDEFINED has no numpy dtype' (found by the om fuzz
    target)."""
    from ge_core.om import load_om_bytes
    from ge_core.model_task_type import ModelTaskType
    from ge_core.runtime.errors import ModelLoadError
    from ge_core.session.graph_manager import GraphManager
    from npu_emu.world import World

    def switch(m: task_pb2.ModelTaskDef) -> None:
        m.task[0].type = ModelTaskType.STREAM_SWITCH
        m.task[0].stream_switch.data_type = DataType.DT_UNDEFINED
    model = load_om_bytes(_edited(small_om, P.TASK_INFO, switch))
    with World().entered(), pytest.raises(ModelLoadError) as err:
        GraphManager.load(model)
    assert "(STREAM_SWITCH) of node" in str(err.value)
    assert "data type 0 holds no values" in str(err.value)


@pytest.mark.parametrize("edit", [_relu_output_dims, None], ids=["refused", "loaded"])
def test_checking_the_descs_leaves_no_edit_in_the_trace(edit, small_om, tmp_path):
    """check_descs infers each op on a copy: a desc its InferShape disagrees with is refused
    with the error alone, where the loaded graph's desc was once written and written back (two
    DescUpdated events just before the error); a model that passes is not written either."""
    from ge_core.graph.events import DescUpdated, NodeAdded
    from npu_emu.base.trace import TraceBus, TraceRecorder
    from npu_emu.world import World
    path = tmp_path / "model.om"
    path.write_bytes(small_om if edit is None else _edited(small_om, P.MODEL_DEF, edit))
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    with World(bus=bus).entered():
        if edit is None:
            load_om(path)
        else:
            with pytest.raises(OmFileError, match="its inputs and attributes make f32"):
                load_om(path)
    kinds = {type(e) for e in rec.events}
    assert NodeAdded in kinds and DescUpdated not in kinds   # the read was heard; no desc edit


def test_a_const_that_lost_its_value_does_not_crash_the_desc_check(tmp_path):
    """The desc check gave InferShape every Const input's weights, None too: an Add reading a
    Const whose value the file no longer holds ended load_om (and `gewb om-info`) in an
    AttributeError traceback."""
    shape = helper.make_tensor("s", 1, [4], [1, 2, 3, 4])
    g = annotate_build(onnx_graph([helper.make_node("Constant", [], ["s"], value=shape, name="c"),
                                   helper.make_node("Add", ["x", "s"], ["y"], name="r")],
                                  {"x": [4]}, {"y": [4]}))

    def drop(m: ge_ir_pb2.ModelDef) -> None:
        op = _op(m, "Const")
        for key in [k for k in op.attr if "weight" in k or k == "value"]:
            del op.attr[key]
    path = tmp_path / "c.om"
    path.write_bytes(_edited(om_bytes(build_ge_model(g, "small")), P.MODEL_DEF, drop))
    assert load_om(path).graph.find_node("r") is not None
