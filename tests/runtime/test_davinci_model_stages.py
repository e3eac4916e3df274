"""DavinciModel.init in GE's stages: each a StageBegin/StageEnd pair, each leaving the model in
the state the next stage builds on."""
import numpy as np
import pytest

from ge_core.graph import ComputeGraph, GeTensor, OpDesc
from ge_core.graph.attr_names import OUTPUT_OFFSET
from ge_core.om.logical_memory import VAR_BASE
from ge_core.model_task_type import ModelTaskType
from ge_core.runtime.errors import ModelLoadError
from ge_core.runtime.model_memory import (FEATURE_MAP, ModelMemory, Segment, VARIABLE, WEIGHT,
                                          trans_all_var_data)
from ge_core.runtime.v1 import DavinciModel, ModelManager
from ge_core.runtime.v1.davinci_model import INIT_STAGES
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_DEFAULT, ACL_MODEL_STREAM_FLAG_HEAD
from npu_emu.driver.events import MemAlloc
from npu_emu.feature.model import ModelState
from v1_testing import device_world, events, ge_model


def _init_watching(model: DavinciModel, world, check) -> dict[str, object]:
    """Run init, calling ``check(stage)`` at each StageEnd; returns what each call returned."""
    seen = {}
    world.bus.subscribe(lambda e: isinstance(e, StageEnd) and
                        seen.setdefault(e.stage, check(e.stage)))
    model.init()
    return seen


def test_the_stages_are_ges_in_order_each_a_begin_end_pair():
    m = ge_model()
    with device_world() as world:
        DavinciModel(1, m).init()
        stages = [(type(e).__name__, e.stage) for e in world.recorder.events
                  if isinstance(e, (StageBegin, StageEnd))]
    assert stages == [(kind, s) for s in INIT_STAGES for kind in ("StageBegin", "StageEnd")]
    assert INIT_STAGES == ("InitModelMem", "InitIoNodes", "TransAllVarData", "InitNodes",
                           "DoTaskSink")


def test_init_model_mem_allocates_the_feature_map_and_uploads_the_weights():
    m = ge_model()
    with device_world() as world:
        model = DavinciModel(1, m)
        seen = _init_watching(model, world, lambda stage: list(model.memory.segments)
                              if stage == "InitModelMem" else None)
        segments = {s.name: s for s in seen["InitModelMem"]}
        assert segments[FEATURE_MAP].size == m.task_def.memory_size
        assert segments[WEIGHT].size == len(m.weights) > 0
        assert segments[VARIABLE].size == 0
        sizes = [e.size for e in events(world, MemAlloc)]
        assert sorted(sizes) == sorted([m.task_def.memory_size, len(m.weights)])
        base = segments[WEIGHT].device_base
        assert world.runtime.device().memory.read(base, len(m.weights)) == m.weights


def test_init_io_nodes_finds_the_zero_copy_inputs_and_outputs():
    with device_world() as world:
        model = DavinciModel(1, ge_model())
        seen = _init_watching(model, world, lambda stage: (
            [z.io.name for z in model.io.zero_copy_inputs], [z and z.io.name
                                                          for z in model.io.zero_copy_outputs])
            if stage == "InitIoNodes" else None)
    assert seen["InitIoNodes"] == (["input"], ["prob"])
    (offset,) = model.io.zero_copy_inputs
    assert offset.bound == offset.internal   # the model's own buffer until a caller binds one


def test_init_nodes_makes_the_op_list_and_the_runtime_resources():
    m = ge_model()
    with device_world() as world:
        model = DavinciModel(1, m)
        seen = _init_watching(model, world, lambda stage: (
            len(model.op_list), len(model.streams), len(model.events),
            model.rt_model.state) if stage == "InitNodes" else None)
    assert seen["InitNodes"] == (len(m.task_def.op), m.stream_num, m.task_def.event_num,
                                 ModelState.BUILDING)
    assert model.op_list[0].name == "relu1"


def test_do_task_sink_binds_head_streams_sinks_every_task_and_ends_the_build():
    m = ge_model(stream_max_parallel_num=4)
    with device_world():
        model = DavinciModel(1, m)
        model.init()
        assert model.rt_model.state is ModelState.LOADED
        flags = [s.flag for s in model.streams]
        expected = [ACL_MODEL_STREAM_FLAG_HEAD if i in m.head_streams
                    else ACL_MODEL_STREAM_FLAG_DEFAULT for i in range(m.stream_num)]
        assert flags == expected
        assert len(model.task_infos) == len(m.task_def.task)
        assert all(info.task is not None for info in model.task_infos)
        assert [t.type for t in m.task_def.task][-1] == ModelTaskType.END_GRAPH
        assert model.rt_model.has_end_graph


def test_trans_all_var_data_copies_variables_initial_values():
    graph = ComputeGraph("vars")
    value = np.arange(6, dtype=np.float32)
    var = graph.add_node(OpDesc("v", "Variable", 0, 1, {"value": GeTensor(value)}))
    var.op_desc.output_descs[0] = GeTensor(value).desc
    var.op_desc.set_attr(OUTPUT_OFFSET, [VAR_BASE + 512])
    with device_world() as world:
        device = world.runtime.device()
        base = device.malloc(4096)
        memory = ModelMemory(device, [Segment(VARIABLE, 4096, base, True)])
        assert trans_all_var_data(memory, graph) == 1
        np.testing.assert_array_equal(device.memory.view(base + 512, (6,), np.float32), value)


def test_a_failed_load_releases_what_it_made():
    m = ge_model()
    m.task_def.task[0].kernel.args = b"\x00" * 7    # not a table of u64 addresses
    with device_world() as world:
        free = world.runtime.device().memory.free_bytes()
        with pytest.raises(ModelLoadError, match="task 0 .*relu1.*u64"):
            ModelManager.get_instance().load_model(m)
        assert world.runtime.device().memory.free_bytes() == free
        assert world.runtime.models == []
        assert ModelManager.get_instance().model_map == {}
