"""The engines of GE's engine_conf.json beyond the core ones: DVPP (the image ops its graph
optimizer claims, and the NormalizeV2 it fuses), AICPU_ASCEND (CANN's own AI CPU kernels, ahead
of TensorFlow's) and DSA (random numbers); an Identity never reaches the GE-local engine; and an
AI Core branch running beside a DVPP branch on streams of their own, as the compiler builds it."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from ge_core.compiler import CompileOptions
from ge_core.compiler.engine_placer import ENGINE_BY_NAME, EnginePlacer, EnginePlacerError
from ge_core.compiler.task import generate_tasks
from ge_core.ge_options import RunMode
from ge_core.graph import ComputeGraph, GeShape, GeTensorDesc, OpDesc
from ge_core.graph.attr_names import ENGINE, OUTPUT_OFFSET, STREAM_ID
from ge_core.graph.types import DataType
from ge_core.model_task_type import KernelType, ModelTaskType
from ge_core.parser import parse_onnx
from ge_core.session.graph_manager import GraphManager
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.events import SqeDispatched
from npu_emu.world import World

sys.path.insert(0, str(Path(__file__).resolve().parent / "task"))
from build_testing import add_rts_node, annotate_build, onnx_graph  # noqa: E402

T = ModelTaskType
MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 3, 1, 1)
SCALE = np.array([4.4, 4.5, 4.4], np.float32).reshape(1, 3, 1, 1)


def image_model(prior: bool, conv: bool = False, size: int = 32) -> onnx.ModelProto:
    """img -> (img - MEAN) * SCALE [-> + relu(conv(feat))]: image normalisation, the Mul asking
    for DVPP when ``prior``; with ``conv`` an AI Core branch beside it, joined by an Add."""
    shape = [1, 3, size, size]
    nodes = [helper.make_node("Sub", ["img", "mean"], ["centred"], name="sub"),
             helper.make_node("Mul", ["centred", "scale"], ["norm" if conv else "y"], name="mul",
                              **({"_performance_prior": 1} if prior else {}))]
    inits = [numpy_helper.from_array(MEAN, "mean"), numpy_helper.from_array(SCALE, "scale")]
    inputs = [helper.make_tensor_value_info("img", TensorProto.FLOAT, shape)]
    if conv:
        w = np.random.default_rng(1).standard_normal((3, 3, 3, 3)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, "w"))
        inputs.append(helper.make_tensor_value_info("feat", TensorProto.FLOAT, shape))
        nodes += [helper.make_node("Conv", ["feat", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", ["c"], ["r"], name="relu"),
                  helper.make_node("Add", ["norm", "r"], ["y"], name="join")]
    graph = helper.make_graph(nodes, "image", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def onnxruntime(model: onnx.ModelProto, feeds: dict) -> np.ndarray:
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for node in model.graph.node:   # onnxruntime knows no _performance_prior
        kept = [a for a in node.attribute if not a.name.startswith("_")]
        del node.attribute[:]
        node.attribute.extend(kept)
    return ort.InferenceSession(model.SerializeToString()).run(None, feeds)[0]


def feeds(size: int = 32) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"img": rng.random((1, 3, size, size), dtype=np.float32),
            "feat": rng.standard_normal((1, 3, size, size), dtype=np.float32)}


def build(model: onnx.ModelProto, **options):
    manager = GraphManager(CompileOptions(dump=None, **options))
    graph = manager.parse(model)
    manager.compile(graph)
    return graph, manager, manager.build(graph).ge_model


def test_engines_carry_ges_names_costs_and_flags():
    # engine_conf.json and docs/en/design/features/engine.md
    facts = {name: (e.cost, e.attach, e.independent, e.skip_assign_stream)
             for name, e in ENGINE_BY_NAME.items()}
    assert facts["DNN_VM_DVPP"] == (5, True, False, False)
    assert facts["DNN_VM_AICPU_ASCEND"] == (3, True, False, False)
    assert facts["DSAEngine"] == (2, False, False, False)
    costs = [e.cost for e in EnginePlacer().engines]
    assert costs == sorted(costs)


def test_dvpp_takes_image_normalisation_only_when_asked():
    sub_mul = {n.type for n in build(image_model(prior=False))[0]}
    assert {"Sub", "Mul"} <= sub_mul and "NormalizeV2" not in sub_mul
    graph, manager, ge_model = build(image_model(prior=True))
    norm = next(n for n in graph if n.type == "NormalizeV2")
    assert norm.op_desc.get_attr(ENGINE) == "DNN_VM_DVPP"
    assert [T(t.type).name for t in ge_model.task_def.task] == ["DVPP", "END_GRAPH"]
    x = {"img": feeds()["img"]}
    expected = onnxruntime(image_model(prior=True), x)
    for hybrid in (False, True):
        with World().entered():
            got = manager.run(ge_model if not hybrid else graph, x,
                              RunMode.HYBRID if hybrid else RunMode.AUTO)["y"]
        np.testing.assert_array_equal(got, expected)


def test_dvpp_refuses_what_its_store_cannot_take():
    # an image too small for the media unit: the fusion's ops stay on the Vector unit
    graph = build(image_model(prior=True, size=2))[0]
    assert {n.type: n.op_desc.get_attr(ENGINE) for n in graph if n.type in ("Sub", "Mul")} == \
        {"Sub": "VectorEngine", "Mul": "VectorEngine"}


def test_the_specified_engine_is_the_only_one_asked():
    graph = parse_onnx(image_model(prior=True))
    with pytest.raises(EnginePlacerError, match="specified, DNN_VM_DVPP, is excluded"):
        build(image_model(prior=True), exclude_engines=("DNN_VM_DVPP",))
    assert graph.find_node("mul").op_desc.get_attr(ENGINE) is None


def test_ai_core_runs_beside_dvpp_on_a_stream_of_its_own():
    model = image_model(prior=True, conv=True)
    graph, manager, ge_model = build(model)
    stream = {n.type: n.op_desc.get_attr(STREAM_ID) for n in graph}
    assert stream["NormalizeV2"] != stream["FusedConv"]
    with World().entered() as world:
        dispatched = []
        world.bus.subscribe(lambda e: dispatched.append(e) if isinstance(e, SqeDispatched)
                            else None)
        got = manager.run(ge_model, feeds())["y"]
    spans = {e.task.unit: (e.time_ns, e.end_ns) for e in dispatched
             if e.task.unit in (Unit.DVPP, Unit.AI_CORE)}
    (dvpp_start, dvpp_end), (core_start, core_end) = spans[Unit.DVPP], spans[Unit.AI_CORE]
    assert dvpp_start < core_end and core_start < dvpp_end   # at the same time
    np.testing.assert_allclose(got, onnxruntime(model, feeds()), rtol=1e-5, atol=1e-6)


def test_integer_ops_run_on_canns_own_ai_cpu_kernels_before_tensorflows():
    # The AI Core store's Add and Maximum take no int16 (hicann/ops-math's definitions); Add has
    # an AI CPU kernel in hicann/ops-math (AICPU_ASCEND, cost 3), Max only TF's (cost 4)
    nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
             helper.make_node("Max", ["s", "b"], ["y"], name="max")]
    graph = onnx_graph(nodes, {"a": [4], "b": [4]}, {"y": [4]}, elem=TensorProto.INT16)
    engines = {n.name: n.op_desc.get_attr(ENGINE) for n in graph}
    assert (engines["add"], engines["max"]) == ("DNN_VM_AICPU_ASCEND", "DNN_VM_AICPU")
    tasks = generate_tasks(annotate_build(graph)).task
    kinds = [(T(t.type).name, t.kernel.context.kernel_type) for t in tasks if t.type != T.END_GRAPH]
    assert kinds == [("KERNEL", KernelType.AI_CPU), ("KERNEL_EX", 0)]


@pytest.mark.parametrize("elem, div_engine", [(TensorProto.INT32, "VectorEngine"),
                                               (TensorProto.INT64, "DNN_VM_AICPU_ASCEND")])
def test_the_vector_store_takes_the_integer_dtypes_it_lists(elem, div_engine):
    """Add and Max take int32 and int64 on the AI Core; Div int32 but not int64."""
    nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
             helper.make_node("Max", ["s", "b"], ["m"], name="max"),
             helper.make_node("Div", ["m", "b"], ["y"], name="div")]
    graph = onnx_graph(nodes, {"a": [4], "b": [4]}, {"y": [4]}, elem=elem)
    engines = {n.name: n.op_desc.get_attr(ENGINE) for n in graph}
    assert (engines["add"], engines["max"]) == ("VectorEngine",) * 2
    assert engines["div"] == div_engine


def test_gather_and_scatter_nd_take_int64_indices_on_the_vector_store():
    """CANN's GatherV2 and ScatterNdUpdate (hicann/ops-nn) list int32 and int64 indices for the
    AI Core: an int64-indexed Gather or ScatterND of floats is not an AI CPU op."""
    nodes = [helper.make_node("Gather", ["x", "i"], ["row"], name="gather", axis=0),
             helper.make_node("ScatterND", ["x", "j", "row"], ["y"], name="scatter")]
    graph = onnx_graph(nodes, {"x": [3, 4]}, {"y": [3, 4]},
                       extra_inputs={"i": (TensorProto.INT64, [1]),
                                     "j": (TensorProto.INT64, [1, 1])})
    engines = {n.name: n.op_desc.get_attr(ENGINE) for n in graph}
    assert (engines["gather"], engines["scatter"]) == ("VectorEngine",) * 2


def test_dsa_ops_become_dsa_tasks():
    graph = annotate_build(onnx_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                                      {"x": [8]}, {"y": [8]}))
    relu = graph.find_node("relu")
    dsa = add_rts_node(graph, "uniform", "DSARandomUniform", relu, graph.output_node,
                       **{STREAM_ID: 0, OUTPUT_OFFSET: [1 << 20]})
    dsa.op_desc.output_descs = [relu.op_desc.output_descs[0]]
    assert EnginePlacer().place(dsa).name == "DSAEngine"
    dsa.op_desc.set_attr(ENGINE, "DSAEngine")
    task = next(t for t in generate_tasks(graph).task if t.type == T.DSA)
    assert (task.dsa_task.distribution_type, task.dsa_task.sqe_type) == (1, 15)
    assert task.dsa_task.args.output_addr == 1 << 20


def test_an_identity_reaching_placement_is_a_copy_never_ge_local():
    graph = ComputeGraph("g")
    op = OpDesc("id", "Identity", 1, 1)
    op.input_descs = [GeTensorDesc(GeShape((4,)), DataType.DT_FLOAT)]
    op.output_descs = [GeTensorDesc(GeShape((4,)), DataType.DT_FLOAT)]
    node = graph.add_node(op)
    assert EnginePlacer().place(node).name == "DNN_VM_AICPU_ASCEND"
    with pytest.raises(EnginePlacerError, match="a pass should have removed it before placement"):
        EnginePlacer(exclude=["DNN_VM_AICPU_ASCEND", "DNN_VM_HOST_CPU"]).place(node)
