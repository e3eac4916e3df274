"""Label lowering (ge_core.compiler.label): If and Loop sunk to the emulated device as label
tasks, giving the host executor's and onnxruntime's numbers; the ModelTaskDef carries the label
tasks GE would emit, the label tasks on one stream; the loop's tensors are out of reuse."""
import warnings

import numpy as np
import onnx
import pytest

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.label import LabelMakerError, assign_functional_labels
from ge_core.compiler.model_builder import BuildError, BuildOptions
from ge_core.compiler.stream.logical_stream_passes.assign_label_body_streams_pass import region_of
from ge_core.compiler.stream.stream_utils import stream_of
from ge_core.compiler.stream.sync_events import regions_of
from ge_core.graph.attr_names import (ATTR_MODEL_LABEL_NUM, ATTR_NAME_LABEL_SWITCH_LIST,
                                      LABEL_BODIES, LABEL_REGION)
from ge_core.om.logical_memory import VAR_BASE, tensor_size
from ge_core.model_task_type import ModelTaskType
from ge_core.om.proto.ge_ir_pb2 import OpDef
from ge_core.parser import parse_onnx
from labels_testing import (assert_agree, compile_model, if_in_loop_model, if_model,
                            loop_cond_model, loop_trip_model, run_everywhere, vi)
from onnx import TensorProto as T, helper
from onnx.backend.test.case import node as node_cases
from workbench.cli import main

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
W = np.full((2, 3), 3, np.float32)


def _label_tasks(ge_model) -> list[tuple[str, object]]:
    """(kind, label id or the switch's labels) per label task, in task order: LABEL_SET,
    STREAM_LABEL_GOTO ("GOTO") and STREAM_LABEL_SWITCH_BY_INDEX ("SWITCH_BY_INDEX")."""
    task_def, out = ge_model.task_def, []
    for task in task_def.task:
        if task.type == ModelTaskType.LABEL_SET:
            out.append(("LABEL_SET", task.label_set.label_id))
        elif task.type == ModelTaskType.STREAM_LABEL_GOTO:
            out.append(("GOTO", task.label_goto_ex.label_id))
        elif task.type == ModelTaskType.STREAM_LABEL_SWITCH_BY_INDEX:
            op = OpDef.FromString(task_def.op[task.id])
            labels = list(op.attr[ATTR_NAME_LABEL_SWITCH_LIST].list.i)
            assert task.label_switch_by_index.label_max == len(labels)
            out.append(("SWITCH_BY_INDEX", labels))
    return out


@pytest.fixture(scope="module")
def if_om():
    return compile_model(if_model())


@pytest.mark.parametrize("cond", [True, False], ids=["then", "else"])
def test_if_takes_either_branch_on_the_device(if_om, cond):
    assert_agree(run_everywhere(if_model(), {"x0": X, "c": np.array(cond), "w": W}, if_om))


def test_if_becomes_a_switch_on_else_then_and_three_labels(if_om):
    # GE's IfLabelMaker: false -> index 0 -> else, true -> 1 -> then; labels then, else, leave.
    assert _label_tasks(if_om) == [("SWITCH_BY_INDEX", [1, 0]), ("LABEL_SET", 0),
                                   ("GOTO", 2), ("LABEL_SET", 1), ("LABEL_SET", 2)]
    assert int(if_om.task_def.attr[ATTR_MODEL_LABEL_NUM]) == 3
    jumps = {ModelTaskType.LABEL_SET, ModelTaskType.STREAM_LABEL_GOTO,
             ModelTaskType.STREAM_LABEL_SWITCH_BY_INDEX}
    assert len({t.stream_id for t in if_om.task_def.task if t.type in jumps}) == 1


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_loop_runs_its_trip_count_and_carries_values_across_slots(trips):
    feeds = {"M": np.array(trips, np.int64), "a0": X, "b0": W, "x": W}
    assert_agree(run_everywhere(loop_trip_model(), feeds))


def test_loop_labels_check_the_condition_then_jump_back():
    # GE's WhileLabelMaker: false -> index 0 -> leave, true -> 1 -> body.
    assert _label_tasks(compile_model(loop_trip_model())) == [
        ("LABEL_SET", 0), ("SWITCH_BY_INDEX", [2, 1]), ("LABEL_SET", 1), ("GOTO", 0),
        ("LABEL_SET", 2)]


@pytest.mark.parametrize("cond, limit", [(True, 100.0), (True, 1.0), (False, 100.0)])
def test_loop_stops_on_the_condition_its_body_computes(cond, limit):
    feeds = {"c0": np.array(cond), "acc0": np.ones((2, 3), np.float32),
             "limit": np.array(limit, np.float32)}
    assert_agree(run_everywhere(loop_cond_model(), feeds))


def test_onnx_if_case_on_the_device():
    """ONNX's own If case, against the outputs the wheel ships."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cases' numpy references overflow on purpose
        case = next(c for c in node_cases.collect_testcases(None) if c.name == "test_if")
    inputs, expected = case.data_sets[0]
    feeds = {i.name: v for i, v in zip(case.model.graph.input, inputs)}
    runs = run_everywhere(case.model, feeds)
    assert_agree(runs)
    np.testing.assert_allclose(list(runs.device.values())[0], expected[0], rtol=1e-6)


@pytest.mark.parametrize("trips", [0, 3, 4])
def test_if_inside_a_loop(trips):
    feeds = {"M": np.array(trips, np.int64), "acc0": X, "x": W}
    assert_agree(run_everywhere(if_in_loop_model(), feeds))


@pytest.mark.parametrize("make", [if_model, loop_trip_model, if_in_loop_model])
def test_events_leave_a_lowered_region_only_from_its_leaving_label_set(make):
    """GE sends a body's events out only from its end node (stream_allocator.cc,
    InsertEventsForSubgraph): a record anywhere else in an If or a loop is skipped with the
    branch not taken, or repeated per trip, for a wait outside that comes once."""
    graph = compile_model(make()).graph
    order = graph.topological_sort()
    last = {n.op_desc.get_attr(LABEL_REGION): n for n in order
            if n.op_desc.get_attr(LABEL_REGION) is not None}
    waits = {n.op_desc.get_attr("event_id"): n.out_control_nodes()[0]
             for n in order if n.type == "Recv"}
    sends = [n for n in order if n.type == "Send"]
    assert sends
    for send in sends:
        src, dst = send.in_control_nodes()[0], waits[send.op_desc.get_attr("event_id")]
        for region in regions_of(src) - regions_of(dst):
            assert src is last[region] and src.type == "LabelSet", (src.name, dst.name)


@pytest.mark.parametrize("make", [if_model, loop_trip_model, if_in_loop_model])
def test_each_body_runs_partly_on_its_regions_stream(make):
    """GE gives a subgraph's first stream its parent node's (logical_stream_allocator.cc,
    UpdateAssignedSubgraphs), and an inner If is one node of the loop body: the loop body
    cannot move wholesale onto a stream of its own."""
    graph = compile_model(make()).graph
    order = graph.topological_sort()
    region_stream = {n.op_desc.get_attr(LABEL_REGION): stream_of(n) for n in order
                     if n.op_desc.get_attr(LABEL_REGION) is not None}
    body_streams: dict[str, set[int]] = {}
    for node in order:
        for body in node.op_desc.get_attr(LABEL_BODIES) or ():
            body_streams.setdefault(body, set()).add(stream_of(node))
    assert body_streams
    for body, streams in body_streams.items():
        assert region_stream[region_of(body)] in streams, body


def test_nested_labels_are_numbered_per_model():
    # The inner If is lowered first (ids 0-2), inside the Loop's body (ids 3-5).
    tasks = _label_tasks(compile_model(if_in_loop_model()))
    assert tasks == [("LABEL_SET", 3), ("SWITCH_BY_INDEX", [5, 4]), ("LABEL_SET", 4),
                     ("SWITCH_BY_INDEX", [1, 0]), ("LABEL_SET", 0), ("GOTO", 2),
                     ("LABEL_SET", 1), ("LABEL_SET", 2), ("GOTO", 3), ("LABEL_SET", 5)]


@pytest.mark.parametrize("make", [loop_trip_model, if_in_loop_model])
def test_the_loop_tensors_are_kept_out_of_reuse(make):
    built = atc(parse_onnx(make()), CompileOptions(dump=None), BuildOptions()).built
    assert [s.stage for s in built.stages][:2] == ["AssignFunctionalLabels",
                                                   "AssignLogicalStreams"]
    graph = built.ge_model.graph
    assert not graph.subgraphs
    in_loop = [n for n in graph.topological_sort() if n.name.startswith("loop0")
               and n.type != "Const"]
    assert in_loop and all(n.op_desc.get_attr("no_reuse_mem_flag") for n in in_loop)
    # Each value written back by ref lands in the buffer the body reads.
    for node in in_loop:
        if node.op_desc.get_attr("reuse_input_index") == 1:
            assert node.op_desc.get_attr("output_offset") == \
                [node.op_desc.get_attr("input_offset")[1]]
    # No feature-map byte a loop tensor holds is held by a tensor outside the loop.
    def spans(nodes):
        return {(addr, addr + tensor_size(desc)) for n in nodes
                for addr, desc in zip(n.op_desc.get_attr("output_offset") or [],
                                      n.op_desc.output_descs) if addr < VAR_BASE}
    outside = [n for n in graph.topological_sort() if n not in in_loop]
    inside_spans = spans(in_loop)
    assert inside_spans
    assert not [(a, b) for a in inside_spans for b in spans(outside) if a[0] < b[1] and b[0] < a[1]]


def test_scan_outputs_of_a_run_time_length_are_refused_with_a_reason():
    body = helper.make_graph([helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                              helper.make_node("Identity", ["v_in"], ["v_out"]),
                              helper.make_node("Identity", ["v_in"], ["scan"])], "body",
                             [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("v_in", [2])],
                             [vi("cond_out", [], T.BOOL), vi("v_out", [2]), vi("scan", [2])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "v0"], ["v", "s"], name="loop0", body=body)],
        "g", [vi("M", [], T.INT64), vi("v0", [2])], [vi("v", [2]), vi("s", None)])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    # M is an input: the scan output's length is known only at run time, so the static build
    # refuses it first; the maker refuses it too, for any caller that lowers a graph itself.
    with pytest.raises(BuildError, match="--mode hybrid"):
        compile_model(proto)
    with pytest.raises(LabelMakerError, match="scan output 0 has a length known only at run "
                                                 "time.*--mode hybrid"):
        assign_functional_labels(parse_onnx(proto))


def test_om_info_names_the_label_tasks_as_ge_does(tmp_path, capsys):
    # GE's RTS engine: LabelSwitchByIndexOp and LabelGotoExOp write MODEL_TASK_STREAM_LABEL_*
    model_path, om_path = tmp_path / "if.onnx", tmp_path / "if.om"
    onnx.save(if_model(), model_path)
    assert main(["compile", str(model_path), "-o", str(om_path), "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["om-info", str(om_path)]) == 0
    kinds = {line.split()[2]: line.split()[1] for line in capsys.readouterr().out.splitlines()
             if line.startswith("  ") and "(Label" in line}
    assert kinds == {"if0_LabelSwitchByIndex": "STREAM_LABEL_SWITCH_BY_INDEX",
                     "if0_LabelSet": "LABEL_SET", "if0_LabelGotoEx": "STREAM_LABEL_GOTO",
                     "if0_LabelSet_1": "LABEL_SET", "if0_LabelSet_2": "LABEL_SET"}


def test_gewb_exec_sinks_a_model_with_control_flow(tmp_path, capsys):
    proto = loop_trip_model()
    model_path = tmp_path / "loop.onnx"
    onnx.save(proto, model_path)
    feeds = {"M": np.array(3, np.int64), "a0": X, "b0": W, "x": W}
    args = ["exec", str(model_path), "--output", str(tmp_path / "out.npz")]
    for name, value in feeds.items():
        np.save(tmp_path / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    assert main(args) == 0
    assert "loop.onnx: sink (v1 DavinciModel): " in capsys.readouterr().out
    saved = np.load(tmp_path / "out.npz")
    runs = run_everywhere(proto, feeds)
    for name, expected in runs.onnxruntime.items():
        np.testing.assert_allclose(saved[name], expected, rtol=1e-6)
