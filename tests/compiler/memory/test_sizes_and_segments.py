"""Sizes, alignment, the segments (feature map, zero-copy I/O, weights) and the attributes
memory assignment writes on the nodes."""
import pytest
from onnx import TensorProto, helper

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.memory import (FEATURE_MAP, WEIGHT, ZERO_COPY_INPUT, ZERO_COPY_OUTPUT,
                                     assign_memory, check_no_overlap)
from ge_core.compiler.model_builder import BuildError, build_model
from ge_core.graph import GeShape, GeTensorDesc
from ge_core.graph.attr_names import INPUT_OFFSET, OUTPUT_OFFSET, WORKSPACE, WORKSPACE_BYTES
from ge_core.graph.types import DataType
from ge_core.om.logical_memory import WEIGHT_BASE, tensor_size
from ge_core.parser import parse_onnx
from npu_emu.base.trace import TraceBus, TraceRecorder
from npu_emu.world import World
from mem_testing import BLOCK, GraphBuilder, chain


@pytest.mark.parametrize("dims, dtype, size", [
    ((1, 3, 5, 5), DataType.DT_FLOAT, 352),   # 300 -> 320, + 32
    ((120,), DataType.DT_FLOAT, 512),         # 480 -> 480, + 32
    ((0,), DataType.DT_FLOAT, 32),            # an empty tensor takes 32
    ((3,), DataType.DT_INT64, 64),            # 24 -> 32, + 32
    ((5,), DataType.DT_BOOL, 64),             # one byte each
])
def test_tensor_size_is_ges(dims, dtype, size):
    assert tensor_size(GeTensorDesc(GeShape(dims), dtype)) == size


def segments_graph() -> GraphBuilder:
    """Two inputs of different sizes, a weight, two outputs."""
    b = GraphBuilder()
    x_big = b.data("x_big", shape=(1000,), index=0)
    x_small = b.data("x_small", shape=(10,), index=1)
    w = b.node("w", "Const", shape=(100,), stream=-1)
    a = b.node("a", "Add", x_big, x_big, shape=(1000,))
    c = b.node("c", "Mul", x_small, w)
    r = b.node("r", "Relu", a, shape=(1000,))
    s = b.node("s", "Relu", c)
    b.output(r, s)
    return b


def test_segments_and_their_alignment():
    plan = assign_memory(segments_graph().graph)
    check_no_overlap(plan)
    fm = plan.segment(FEATURE_MAP)
    assert {r.label for r in fm} == {"a:0", "c:0"}
    assert all(r.offset % BLOCK == 0 for r in fm)
    assert plan.feature_map_bytes == 4096 + 512 == plan.no_reuse_bytes  # both live together
    # Zero-copy right after the feature map, 32-aligned: outputs, then inputs smallest first.
    zero_copy = plan.segment(ZERO_COPY_OUTPUT) + plan.segment(ZERO_COPY_INPUT)
    assert [(r.label, r.offset - plan.feature_map_bytes) for r in zero_copy] == [
        ("r:0", 0), ("s:0", 4032), ("x_small:0", 4544), ("x_big:0", 4640)]
    assert plan.zero_copy_bytes == 4032 + 512 + 96 + 4032
    assert [(r.label, r.offset) for r in plan.segment(WEIGHT)] == [("w:0", WEIGHT_BASE)]
    assert plan.weight_bytes == 512 and plan.variable_bytes == 0


def test_every_node_gets_its_offsets():
    b = segments_graph()
    plan = assign_memory(b.graph)
    for node in b.graph:
        op = node.op_desc
        assert op.get_attr(OUTPUT_OFFSET) == [plan.row(a.label).offset
                                              for a in node.out_data_anchors]
        assert op.get_attr(INPUT_OFFSET) == [
            a.peer.owner.op_desc.get_attr(OUTPUT_OFFSET)[a.peer.idx] for a in node.in_data_anchors]
        assert op.get_attr(WORKSPACE) == [] and op.get_attr(WORKSPACE_BYTES) == []


def test_offsets_are_set_where_watches_see_them():
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    with World(bus=bus).entered():
        b = chain(2)
    assign_memory(b.graph)
    keys = {(e.node, e.key) for e in rec.events if type(e).__name__ == "AttrSet"}
    assert {("op1", OUTPUT_OFFSET), ("op2", INPUT_OFFSET), ("out", INPUT_OFFSET),
            ("op1", WORKSPACE)} <= keys


def test_workspaces_are_placed_and_freed_after_their_node():
    b = chain(3)
    for name in ("op1", "op2"):
        b.graph.find_node(name).op_desc.set_attr(WORKSPACE_BYTES, [1000])
    plan = assign_memory(b.graph)
    check_no_overlap(plan)
    ws1, ws2 = plan.row("op1:ws0"), plan.row("op2:ws0")
    assert (ws1.first, ws1.last, ws1.size) == (1, 1, 1000)
    assert b.graph.find_node("op1").op_desc.get_attr(WORKSPACE) == [ws1.offset]
    # op1's workspace is free again when op2 runs: GE's blocks give it to op2's output.
    assert plan.row("op2:0").offset == ws1.offset != ws2.offset



@pytest.mark.parametrize("dim", [1 << 33, (1 << 63) - 1])
def test_a_tensor_larger_than_the_feature_map_span_is_refused_before_planning(dim):
    """f32[2^33] is 32 GiB + 32 bytes: more than the logical span; f32[2^63-1] would overflow
    the planner's int64 sizes (it said 'internal error: OverflowError')."""
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [dim]) for n in ("x", "y")]
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])],
                                                "huge", vi[:1], vi[1:]),
                              opset_imports=[helper.make_opsetid("", 13)])
    size = tensor_size(GeTensorDesc(GeShape((dim,)), DataType.DT_FLOAT))
    with World().entered():
        graph = parse_onnx(model)
        compile_graph(graph, CompileOptions(dump=None))
        with pytest.raises(BuildError) as refused:
            build_model(graph)
    assert str(refused.value) == (f"graph huge: x:0 is f32[{dim}], {size:,} bytes: more than "
                                  f"the 34,359,738,368 bytes of logical addresses a feature "
                                  f"map has")
