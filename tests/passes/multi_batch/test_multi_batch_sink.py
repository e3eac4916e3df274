"""Multi-batch models sunk to the emulated device, both ways GE has sunk gears: today's GE lowers
the Case to labels (MapIndex on the AI CPU computes the branch index, LabelSwitchByIndex jumps);
GE's SwitchN route (--switchn) starts one stream per gear from a StreamSwitchN. Either way the
loader finds the gear from the input's shape (GetCurDynamicDims), writes its values into
ascend_mbatch_shape_data, and hands back the gear's output shape; the numbers are
onnxruntime's on the same input."""
import numpy as np
import onnxruntime as ort
import pytest

from ge_core.model_task_type import ModelTaskType
from ge_core.om.proto.ge_ir_pb2 import OpDef
from ge_core.runtime.errors import ModelInputError
from ge_core.session import Session
from multi_batch_testing import (assert_agree, compile_gears, conv_model, relu_add_model,
                                 run_sunk, two_input_model)
from npu_emu.scheduler.events import LabelJumped, SqeCompleted
from npu_emu.world import World

ROUTES = [False, True]
ROUTE_IDS = ["labels", "switchn"]
BATCH = dict(input_shape="x:-1,3,4,4", dynamic_batch_size="1,2,4")


@pytest.fixture(scope="module", params=ROUTES, ids=ROUTE_IDS)
def conv_om(request):
    return request.param, compile_gears(conv_model(), switchn=request.param, **BATCH)


def _x(*dims):
    return np.random.default_rng(sum(dims)).random(dims).astype(np.float32)


@pytest.mark.parametrize("batch", [1, 2, 4])
def test_the_gear_of_the_input_runs_and_gives_onnxruntimes_numbers(conv_om, batch):
    _, ge_model = conv_om
    run = run_sunk(conv_model(), ge_model, {"x": _x(batch, 3, 4, 4)})
    assert run.gear == [1, 2, 4].index(batch)
    assert run.device["y"].shape == (batch, 64)
    assert_agree(run)


def test_a_shape_in_no_gear_is_refused_in_one_line(conv_om):
    _, ge_model = conv_om
    with pytest.raises(ModelInputError, match=r"input shapes x \[3, 3, 4, 4\] are in no gear "
                                              r"\(gears: x \[1, 3, 4, 4\]; x \[2, 3, 4, 4\]"):
        run_sunk(conv_model(), ge_model, {"x": _x(3, 3, 4, 4)})


def test_labels_route_switches_on_mapindex():
    # CaseOpLabelMaker: LabelSwitchByIndex over the gears' labels, its index MapIndex's, run as
    # an AI CPU kernel; the label tasks on one stream, a gear's other streams started by its
    # StreamActive. The loader's jump lands on the gear's label.
    ge_model = compile_gears(conv_model(), **BATCH)
    tasks = ge_model.task_def.task
    switch = next(t for t in tasks if t.HasField("label_switch_by_index"))
    assert switch.label_switch_by_index.label_max == 3
    kernel_ex = [OpDef.FromString(ge_model.task_def.op[t.id]).type
                 for t in tasks if t.type == ModelTaskType.KERNEL_EX]
    assert kernel_ex == ["MapIndex"]
    labels = {t.stream_id for t in tasks if t.type in (
        ModelTaskType.LABEL_SET, ModelTaskType.STREAM_LABEL_GOTO,
        ModelTaskType.STREAM_LABEL_SWITCH_BY_INDEX)}
    assert len(labels) == 1
    started = {t.stream_active.active_stream_id for t in tasks
               if t.type == ModelTaskType.STREAM_ACTIVE and t.stream_id in labels}
    assert started and started.isdisjoint(ge_model.head_streams)
    run = run_sunk(conv_model(), ge_model, {"x": _x(2, 3, 4, 4)})
    jumps = [e.label_id for e in run.events if isinstance(e, LabelJumped)]
    # Labels: leave first (GE's order), then one per gear: gear 1 is label 2.
    assert jumps[0] == 2


def test_switchn_route_starts_only_the_gears_stream():
    ge_model = compile_gears(conv_model(), switchn=True, **BATCH)
    switch_tasks = [t for t in ge_model.task_def.task if t.type == ModelTaskType.STREAM_SWITCH_N]
    assert len(switch_tasks) == 1
    switch = switch_tasks[0].stream_switch_n
    assert (switch.size, switch.element_size, list(switch.target_value)) == (1, 3, [1, 2, 4])
    gear_streams = list(switch.true_stream_id)
    # The gear streams and the Merge's are started by tasks; only the switch's is a head.
    assert set(ge_model.head_streams).isdisjoint(gear_streams)
    assert ge_model.head_streams == [switch_tasks[0].stream_id]
    run = run_sunk(conv_model(), ge_model, {"x": _x(2, 3, 4, 4)})
    busy = {run.model_streams.index(e.task.stream.id) for e in run.events
            if isinstance(e, SqeCompleted) and e.task.stream.id in run.model_streams}
    assert gear_streams[1] in busy
    assert busy.isdisjoint({gear_streams[0], gear_streams[2]})
    assert_agree(run)


@pytest.mark.parametrize("switchn", ROUTES, ids=ROUTE_IDS)
@pytest.mark.parametrize("hw", [(4, 4), (8, 6)])
def test_dynamic_image_size(switchn, hw):
    ge_model = compile_gears(conv_model(), switchn=switchn, input_shape="x:2,3,-1,-1",
                             dynamic_image_size="4,4;8,6")
    run = run_sunk(conv_model(), ge_model, {"x": _x(2, 3, *hw)})
    assert run.device["y"].shape == (2, 4 * hw[0] * hw[1])
    assert_agree(run)


@pytest.mark.parametrize("switchn", ROUTES, ids=ROUTE_IDS)
def test_dynamic_dims_over_two_inputs(switchn):
    ge_model = compile_gears(two_input_model(), switchn=switchn,
                             input_shape="x:-1,8;z:-1,4", dynamic_dims="1,1;3,3")
    run = run_sunk(two_input_model(), ge_model, {"x": _x(3, 8), "z": _x(3, 4)})
    assert run.gear == 1
    assert_agree(run)


def test_the_caller_may_name_the_gear_as_acl_does():
    # aclmdlSetDynamicBatchSize writes the gear's values into the extra input itself.
    ge_model = compile_gears(relu_add_model(), dynamic_batch_size="2,5")
    x = _x(5, 3)
    run = run_sunk(relu_add_model(), ge_model,
                   {"x": x, "ascend_mbatch_shape_data": np.array([5], np.int32)})
    assert run.gear == 1
    assert_agree(run)


def test_a_session_takes_ges_gear_options():
    # Session.add_graph with ge.inputShape / ge.dynamicBatchSize, as TorchAir or a TF adapter
    # passes them; each run takes the gear of its input.
    proto = conv_model()
    session_ort = ort.InferenceSession(proto.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
    with World().entered():
        session = Session()
        session.add_graph(1, proto, {"ge.inputShape": "x:-1,3,4,4",
                                     "ge.dynamicBatchSize": "1,2,4"})
        try:
            for batch in (4, 1):
                x = _x(batch, 3, 4, 4)
                (y,) = session.run_graph(1, {"x": x})
                np.testing.assert_allclose(y, session_ort.run(None, {"x": x})[0], rtol=1e-5,
                                           atol=1e-6)
        finally:
            session.finalize()
