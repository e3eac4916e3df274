"""ComputeGraph <-> ModelDef: GE's input strings, attrs as AttrDef, descs, offsets in OpDef's
own fields, subgraphs, detached weights; a round trip gives the identical dump."""
import numpy as np
import pytest
from onnx import helper

from build_testing import annotate_build, if_graph, onnx_graph
from ge_core.graph import GeShape, GeTensor, GeTensorDesc, dump_graph
from ge_core.graph.attr_names import INPUT_OFFSET, OUTPUT_OFFSET, STREAM_ID
from ge_core.graph.dump import Detail
from ge_core.graph.types import DataType, Format
from ge_core.om.logical_memory import WEIGHT_BASE
from ge_core.om.model_serializer import graph_of, model_def, op_def
from ge_core.om.proto import ge_ir_pb2
from ge_core.om.tensor_serializer import SerializeError
from ge_core.om.weights import pack_weights

ATTRS = {"b": True, "i": -3, "f": 0.5, "s": "SAME_UPPER", "ints": [1, 2, 3], "floats": [0.25],
         "strs": ["a", "b"], "bools": [True, False], "empty": [],
         "arr": np.arange(6, dtype=np.int64).reshape(2, 3),
         "tensor": GeTensor(np.ones((2, 2), np.float16)),
         "arrs": [np.zeros(2, np.float32), np.ones(3, np.int32)]}


def round_trip(graph, weights=None, detach=False):
    data = model_def(graph, graph.name, detach_weights=detach).SerializeToString(
        deterministic=True)
    return graph_of(ge_ir_pb2.ModelDef.FromString(data), weights)


def relu_add():
    return onnx_graph([helper.make_node("Relu", ["x"], ["r"], name="relu"),
                       helper.make_node("Add", ["r", "x"], ["y"], name="add")],
                      {"x": [2, 3]}, {"y": [2, 3]})


def test_inputs_are_written_as_src_index_and_control_edges_as_minus_one():
    graph = relu_add()
    relu, add = graph.find_node("relu"), graph.find_node("add")
    relu.out_control_anchor.link_to(add.in_control_anchor)
    op = op_def(add)
    assert list(op.input) == ["relu:0", "x:0", "relu:-1"]
    assert list(op.input_desc[1].shape.dim) == [2, 3] and op.input_desc[1].layout == "ND"
    assert op.input_desc[1].dtype == ge_ir_pb2.DT_FLOAT and op.input_desc[1].size == 64
    assert (list(op_def(relu).dst_name), list(op_def(relu).dst_index)) == (["add", "add"],
                                                                           [0, -1])


def test_every_attr_kind_comes_back_as_it_was():
    graph = relu_add()
    graph.find_node("relu").op_desc.attrs.update(ATTRS)  # no watch needed in a test
    got = round_trip(graph).find_node("relu").op_desc.attrs
    arrays = {"arr": ([got["arr"]], [ATTRS["arr"]]), "arrs": (got["arrs"], ATTRS["arrs"])}
    for values, wants in arrays.values():
        for value, want in zip(values, wants, strict=True):
            assert type(value) is np.ndarray and value.dtype == want.dtype
            np.testing.assert_array_equal(value, want)
    tensor = got["tensor"]
    assert isinstance(tensor, GeTensor) and tensor.desc == ATTRS["tensor"].desc
    np.testing.assert_array_equal(tensor.data, ATTRS["tensor"].data)
    for key in ATTRS.keys() - arrays.keys() - {"tensor"}:
        assert (type(got[key]), got[key]) == (type(ATTRS[key]), ATTRS[key]), key


def test_an_unsupported_attr_names_the_node_and_the_attr():
    graph = relu_add()
    graph.find_node("relu").op_desc.attrs["odd"] = {"a": 1}
    with pytest.raises(SerializeError, match=r"node relu \(Relu\) attr odd: attribute value "
                                             r"of type dict is not supported"):
        model_def(graph, "g")


def test_offsets_and_streams_go_in_opdefs_own_fields_and_keep_none_apart_from_empty():
    graph = annotate_build(relu_add())
    x = graph.find_node("x").op_desc
    assert x.get_attr(INPUT_OFFSET) == [] and x.get_attr(STREAM_ID) == -1
    graph.find_node("relu").op_desc.set_attr(STREAM_ID, 0)
    graph.find_node("add").op_desc.del_attr(STREAM_ID)
    op = op_def(graph.find_node("relu"))
    assert op.HasField("stream_id") and op.stream_id == 0
    assert list(op.input_i) == graph.find_node("relu").op_desc.get_attr(INPUT_OFFSET)
    assert list(op.output_i) == graph.find_node("relu").op_desc.get_attr(OUTPUT_OFFSET)
    assert not {STREAM_ID, INPUT_OFFSET, OUTPUT_OFFSET} & set(op.attr)
    back = round_trip(graph)
    assert dump_graph(back) == dump_graph(graph)
    assert not back.find_node("add").op_desc.has_attr(STREAM_ID)
    assert back.find_node("x").op_desc.get_attr(INPUT_OFFSET) == []


def test_descs_keep_format_origin_and_absent_inputs():
    graph = relu_add()
    relu = graph.find_node("relu").op_desc
    relu.output_descs[0] = GeTensorDesc(GeShape((1, 2, 3, 4)), DataType.DT_FLOAT16,
                                        Format.FORMAT_NCHW, GeShape((1, 4, 2, 3)),
                                        Format.FORMAT_NHWC)
    relu.input_descs.append(GeTensorDesc(absent=True))
    relu.input_names.append("")
    back = round_trip(graph).find_node("relu").op_desc
    assert back.output_descs == relu.output_descs and back.input_descs == relu.input_descs


def test_out_anchor_peer_order_survives_even_when_not_insertion_order():
    graph = relu_add()
    x, relu, add = (graph.find_node(n) for n in ("x", "relu", "add"))
    x.out_data_anchors[0].peers.reverse()  # as a pass relinking consumers leaves them
    x.out_control_anchor.link_to(add.in_control_anchor)
    x.out_control_anchor.link_to(relu.in_control_anchor)
    relu.out_control_anchor.link_to(add.in_control_anchor)
    add.in_control_anchor.peers.reverse()
    back = round_trip(graph)
    assert dump_graph(back) == dump_graph(graph)
    assert "%x : Data() -> f32[2,3] => [%add:1,%relu:0]; [^%add,^%relu]" in dump_graph(back)


def test_if_subgraphs_come_back_under_their_parent():
    graph = if_graph()
    model = model_def(graph, "m")
    assert [g.name for g in model.graph] == ["g", "if_then_branch", "if_else_branch"]
    if_op = next(op for op in model.graph[0].op if op.type == "If")
    assert list(if_op.subgraph_name) == ["if_then_branch", "if_else_branch"]
    back = round_trip(graph)
    assert dump_graph(back, Detail.FULL) == dump_graph(graph, Detail.FULL)
    assert back.find_node("if").op_desc.subgraph_names == ["if_then_branch", "if_else_branch"]
    assert back.subgraph("if_then_branch").parent_node is back.find_node("if")


def test_detached_weights_live_in_the_weight_buffer_once():
    graph = annotate_build(onnx_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                                      {"x": [4]}, {"y": [4]},
                                      {"w": np.arange(4, dtype=np.float32)}))
    weights = bytes(pack_weights(graph))
    w = next(n for n in graph if n.type == "Const")
    ops = model_def(graph, "m", detach_weights=True).graph[0].op
    value = ops[graph.nodes.index(w)].attr["value"].t
    offset = w.op_desc.get_attr(OUTPUT_OFFSET)[0] - WEIGHT_BASE
    assert (value.data, value.desc.data_offset, value.desc.weight_size) == (b"", offset, 16)
    back = round_trip(graph, weights, detach=True)
    np.testing.assert_array_equal(back.find_node(w.name).op_desc.get_attr("value").data,
                                  np.arange(4, dtype=np.float32))
    with pytest.raises(SerializeError, match="outside the weights"):
        round_trip(graph, weights[:8], detach=True)


def test_node_order_and_graph_attrs_are_kept():
    graph = relu_add()
    back = round_trip(graph)
    assert [n.name for n in back.nodes] == [n.name for n in graph.nodes]
    assert back.attrs == graph.attrs and back.attrs["opset"] == 13


@pytest.mark.parametrize("dtype", [DataType.DT_BF16, DataType.DT_FLOAT8_E4M3FN,
                                   DataType.DT_FLOAT8_E5M2FNUZ, DataType.DT_INT4,
                                   DataType.DT_UINT4, DataType.DT_FLOAT4_E2M1])
def test_narrow_weights_keep_their_dtype_and_bytes(dtype):
    # GE's DataType numbers where GE has one (DT_BF16 = 27, DT_INT4 = 28, ...), ours past them.
    values = np.array([0.5, 1.0, 1.5, 0.0], np.float32).astype(dtype.to_numpy())
    graph = onnx_graph([helper.make_node("Identity", ["w"], ["y"], name="id")], {}, {"y": [4]},
                       {"w": values})
    w = next(n for n in graph if n.type == "Const")
    assert op_def(w).output_desc[0].dtype == int(dtype)
    back = round_trip(graph).find_node(w.name).op_desc.get_attr("value")
    assert back.desc.dtype == dtype and back.data.dtype == values.dtype
    np.testing.assert_array_equal(back.data.view(np.uint8), values.view(np.uint8))


def test_a_string_constant_is_laid_out_as_ges_string_heads():
    words = np.array([["a", "ünï"], ["", "code"]], dtype=object)
    graph = onnx_graph([helper.make_node("Identity", ["w"], ["y"], name="id")], {}, {"y": [2, 2]},
                       {"w": words})
    w = next(n for n in graph if n.type == "Const")
    raw = op_def(w).attr["value"].t.data
    heads = np.frombuffer(raw, np.int64, 8).reshape(4, 2)
    # StringHead {addr, len} per element: addr counts from the tensor's first byte.
    assert heads.tolist() == [[64, 1], [65, 5], [70, 0], [70, 4]]
    assert raw[64:] == "aünïcode".encode()
    back = round_trip(graph).find_node(w.name).op_desc.get_attr("value")
    assert back.desc.dtype == DataType.DT_STRING and back.data.tolist() == words.tolist()


def test_weight_buffer_lays_each_weight_at_its_offset_with_zero_gaps_and_overlaps_in_order():
    graph = annotate_build(onnx_graph([helper.make_node("Add", ["x", "w"], ["s"], name="add"),
                                       helper.make_node("Mul", ["s", "v"], ["y"], name="mul")],
                                      {"x": [2]}, {"y": [2]},
                                      {"w": np.array([1, 2], np.float32),
                                       "v": np.array([3, 4], np.float32)}))
    w, v = (graph.find_node(n) for n in ("w", "v"))
    w.op_desc.set_attr(OUTPUT_OFFSET, [WEIGHT_BASE + 4])    # bytes 0-3 a gap, w at 4-11
    v.op_desc.set_attr(OUTPUT_OFFSET, [WEIGHT_BASE + 16])   # 12-15 a gap, v at 16-23
    assert pack_weights(graph) == bytes(4) + np.array([1, 2], np.float32).tobytes() + bytes(4) \
        + np.array([3, 4], np.float32).tobytes()
    v.op_desc.set_attr(OUTPUT_OFFSET, [WEIGHT_BASE + 8])    # v over w's second element
    assert pack_weights(graph) == bytes(4) + np.array([1, 3, 4], np.float32).tobytes()
