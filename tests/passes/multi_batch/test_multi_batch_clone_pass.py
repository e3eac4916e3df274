"""MultiBatchClonePass and MultiBatchPass (GE's graph/passes/multi_batch/): one copy of the graph
per gear under a Case, weights kept once in the root, inputs at the largest gear; each gear's
nodes labelled Batch_<i>. The passes run in the pipeline like any other: they show in the pass
table and on the trace bus, so `break pass` stops at them."""
import numpy as np
import onnxruntime as ort
import pytest

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import dump_graph
from ge_core.graph.attr_names import ATTR_NAME_BATCH_LABEL, ATTR_NAME_DYNAMIC_OUTPUT_DIMS
from ge_core.ops import infer_graph
from ge_core.parser import parse_onnx
from ge_core.passes import PassBegin, PassManager
from ge_core.passes.multi_batch import (MultiBatchClonePass, MultiBatchOptionError,
                                        MultiBatchOptions)
from multi_batch_testing import conv_model, relu_add_model, two_input_model
from npu_emu.world import World

CLONED = """\
graph g (7 nodes)
  %ascend_mbatch_shape_data : Data() -> i32[1] => [%ascend_mbatch_shape_mapindex:0] \
{_is_multi_batch_shape_data=True, index=1, mbatch-inserted-node=True}
  %ascend_mbatch_shape_const : Const() -> i32[2] => [%ascend_mbatch_shape_mapindex:1] \
{value=<i32[2] [1,4]>}
  %ascend_mbatch_shape_mapindex : MapIndex(%ascend_mbatch_shape_data:0, \
%ascend_mbatch_shape_const:0) -> i32[] => [%ascend_mbatch_shape_case:0]
  %x : Data() -> f32[4,3] => [%ascend_mbatch_shape_case:1] \
{_all_origin_gears_inputs=['ND:DT_FLOAT:x:12:2:1,3','ND:DT_FLOAT:x:48:2:4,3'], \
_mbatch_origin_input_dims=[-1,3], index=0, mbatch-switch-name='ascend_mbatch_shape_case'}
  %b : Const() -> f32[3] => [%ascend_mbatch_shape_case:2] {value=<f32[3] [1.,2.,3.]>}
  %ascend_mbatch_shape_case : Case(%ascend_mbatch_shape_mapindex:0, %x:0, %b:0) -> f32[4,3] \
=> [%NetOutput:0]; [^%NetOutput] @Batch_0 @Batch_1 \
{_batch_num=2, _pred_value_0=[1], _pred_value_1=[4], mbatch-inserted-node=True, \
mbatch_dynamic_type=1, user_designate_shape_order=[]}
  %NetOutput : NetOutput(%ascend_mbatch_shape_case:0, ^%ascend_mbatch_shape_case) -> ()
subgraph Batch_0 of %ascend_mbatch_shape_case (5 nodes)
  %x_ascend_mbatch_batch_0 : Data() -> f32[1,3] => [%Relu_0_ascend_mbatch_batch_0:0] \
{_mbatch_origin_input_dims=[-1,3], index=0, parent_node_index=1}
  %b_ascend_mbatch_batch_0 : Data() -> f32[3] => [%Add_1_ascend_mbatch_batch_0:1] \
{index=1, parent_node_index=2}
  %Relu_0_ascend_mbatch_batch_0 : Relu(%x_ascend_mbatch_batch_0:0) -> f32[1,3] \
=> [%Add_1_ascend_mbatch_batch_0:0]
  %Add_1_ascend_mbatch_batch_0 : Add(%Relu_0_ascend_mbatch_batch_0:0, %b_ascend_mbatch_batch_0:0) \
-> f32[1,3] => [%NetOutput_ascend_mbatch_batch_0:0]
  %NetOutput_ascend_mbatch_batch_0 : NetOutput(%Add_1_ascend_mbatch_batch_0:0) -> ()
subgraph Batch_1 of %ascend_mbatch_shape_case (5 nodes)
  %x_ascend_mbatch_batch_1 : Data() -> f32[4,3] => [%Relu_0_ascend_mbatch_batch_1:0] \
{_mbatch_origin_input_dims=[-1,3], index=0, parent_node_index=1}
  %b_ascend_mbatch_batch_1 : Data() -> f32[3] => [%Add_1_ascend_mbatch_batch_1:1] \
{index=1, parent_node_index=2}
  %Relu_0_ascend_mbatch_batch_1 : Relu(%x_ascend_mbatch_batch_1:0) -> f32[4,3] \
=> [%Add_1_ascend_mbatch_batch_1:0]
  %Add_1_ascend_mbatch_batch_1 : Add(%Relu_0_ascend_mbatch_batch_1:0, %b_ascend_mbatch_batch_1:0) \
-> f32[4,3] => [%NetOutput_ascend_mbatch_batch_1:0]
  %NetOutput_ascend_mbatch_batch_1 : NetOutput(%Add_1_ascend_mbatch_batch_1:0) -> ()
"""


def _cloned(proto, **options):
    graph = parse_onnx(proto)
    clone = MultiBatchClonePass(MultiBatchOptions(**options))
    PassManager("Prepare").add_pass(clone.name, clone).run(graph)
    infer_graph(graph)
    return graph


def test_the_graph_becomes_a_case_over_one_copy_per_gear():
    # GE's layout: ascend_mbatch_shape_data and the gear table feed MapIndex, whose index picks
    # the Case's branch; x at the largest gear; the weight b once, in the root, read in each
    # gear by a Data (ChangeConstToData); every copied node renamed _ascend_mbatch_batch_<i>.
    assert dump_graph(_cloned(relu_add_model(), dynamic_batch_size="1,4")) == CLONED


@pytest.mark.parametrize("batch", [1, 4])
def test_each_gear_computes_what_the_model_does(batch):
    # The host executor runs the Case: MapIndex finds the gear, the gear's copy runs.
    proto = relu_add_model()
    graph = _cloned(proto, dynamic_batch_size="1,4")
    x = np.linspace(-1, 1, batch * 3, dtype=np.float32).reshape(batch, 3)
    y = HostExecutor(graph).run({"x": x, "ascend_mbatch_shape_data": np.array([batch], np.int32)})
    expected = ort.InferenceSession(proto.SerializeToString(),
                                    providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(y["y"], expected)


def test_reshape_in_a_gear_reads_its_shape_through_the_case():
    # The Reshape's shape is a root Const the gear sees as a Data: InferShape follows the Data
    # to its parent's input (GE's GetInputConstData crosses subgraphs), so each gear is static.
    graph = _cloned(conv_model(), input_shape="x:-1,3,4,4", dynamic_batch_size="2,3")
    outs = [graph.subgraph(f"Batch_{i}").output_node.op_desc.input_descs[0].shape.dims
            for i in range(2)]
    assert outs == [(2, 64), (3, 64)]


def test_dynamic_dims_split_each_gear_across_the_inputs():
    graph = _cloned(two_input_model(), input_shape="x:-1,8;z:-1,4", dynamic_dims="1,1;2,2;5,5")
    x = graph.subgraph("Batch_2").find_node("x_ascend_mbatch_batch_2")
    z = graph.subgraph("Batch_2").find_node("z_ascend_mbatch_batch_2")
    assert x.op_desc.output_descs[0].shape.dims == (5, 8)
    assert z.op_desc.output_descs[0].shape.dims == (5, 4)
    assert graph.find_node("ascend_mbatch_shape_data").op_desc.output_descs[0].shape.dims == (2,)


def test_the_pipeline_runs_the_gear_passes_in_ges_places():
    world = World()
    begins = []
    world.bus.subscribe(lambda e: begins.append(e) if isinstance(e, PassBegin) else None)
    with world.entered():
        graph = parse_onnx(relu_add_model())
        result = compile_graph(graph, CompileOptions(
            dump=None, multi_batch=MultiBatchOptions(dynamic_batch_size="1,2,4")))
    # NormalizeGraph's ProcessMultiBatch, then MultiBatchPass at the end of stage 1
    # (OptimizeStage1_3) and again before the build (OptimizeStage2::ControlAttrOptimize).
    ran = [(r.stage, r.name) for r in result.passes if r.graph == "g"]
    assert ran[0] == ("Prepare", "MultiBatchClonePass")
    assert [s for s, n in ran if n == "MultiBatchPass"] == ["OptimizeOriginalGraph",
                                                            "OptimizeStage2"]
    assert ("Prepare", "MultiBatchClonePass", "g") in [(b.stage, b.pass_name, b.graph)
                                                       for b in begins]
    labels = {n.op_desc.get_attr(ATTR_NAME_BATCH_LABEL) for i in range(3)
              for n in graph.subgraph(f"Batch_{i}") if n.type == "Relu"}
    assert labels == {"Batch_0", "Batch_1", "Batch_2"}
    # GetDynamicOutputShape: output 0's shape in each gear, for the loader.
    assert graph.output_node.op_desc.get_attr(ATTR_NAME_DYNAMIC_OUTPUT_DIMS) == \
        ["0,0,1,3", "1,0,2,3", "2,0,4,3"]


def test_the_equivalence_check_runs_through_the_gears():
    graph = parse_onnx(conv_model())
    result = compile_graph(graph, CompileOptions(
        dump=None, check_equivalence=True,
        multi_batch=MultiBatchOptions(input_shape="x:-1,3,4,4", dynamic_batch_size="1,2")))
    assert result.equivalence.checks > 0 and result.equivalence.first is None
    assert random_feeds(graph)["ascend_mbatch_shape_data"].tolist() == [2]   # the largest


def test_a_model_without_a_dynamic_dim_is_refused():
    with pytest.raises(MultiBatchOptionError, match="needs an input with a -1 dim"):
        _cloned(conv_model(), input_shape="x:1,3,4,4", dynamic_batch_size="1,2")


def test_dynamic_dims_need_every_dynamic_input_named():
    with pytest.raises(MultiBatchOptionError, match="must be set in --input_shape"):
        _cloned(two_input_model(), input_shape="x:-1,8", dynamic_dims="1;2")


def test_input_shape_must_name_an_input():
    with pytest.raises(MultiBatchOptionError, match="names y, not an input"):
        _cloned(relu_add_model(), input_shape="y:-1,3", dynamic_batch_size="1,2")
