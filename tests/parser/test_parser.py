"""The ONNX parser: every model of the onnx wheel's suites, then hand-built models for the cases
the suites lack (If/Loop bodies, Constant, optional inputs, old opsets, errors).

Shapes are checked against two oracles: ONNX's shape inference (every tensor ONNX infers a static
shape for must get exactly that shape from our InferShape) and the shapes of the suites' shipped
input/output tensors.
"""
from __future__ import annotations

import glob
import os
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.test.case import node as node_cases

from ge_core.graph import ComputeGraph, DataType, GeTensorDesc, dump_graph, validate
from ge_core.ops.data_type import data_type_from_onnx
from ge_core.parser import ParseError, parse_onnx

DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")


def _suite(name: str) -> list:
    pattern = "*.onnx" if name == "light" else "*/model.onnx"
    return [pytest.param(path, id=f"{name}/{os.path.basename(path).split('.')[0]}"
                         if name == "light" else f"{name}/{path.split(os.sep)[-2]}")
            for path in sorted(glob.glob(os.path.join(DATA, name, pattern)))]


SUITES = _suite("light") + _suite("pytorch-converted") + _suite("pytorch-operator")


def _dims(desc: GeTensorDesc) -> tuple[int, ...] | None:
    return None if desc.shape.is_unknown_rank else desc.shape.dims


def _onnx_types(model: onnx.ModelProto) -> dict[str, tuple[DataType, tuple[int, ...] | None]]:
    """Tensor name -> (dtype, dims) as ONNX shape inference sees them, in the root graph."""
    out = {}
    graph = onnx.shape_inference.infer_shapes(model).graph
    for value in (*graph.input, *graph.value_info, *graph.output):
        tt = value.type.tensor_type
        dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim) \
            if tt.HasField("shape") else None
        out[value.name] = (data_type_from_onnx(tt.elem_type), dims)
    return out


def _tensor_descs(graph: ComputeGraph) -> dict[str, GeTensorDesc]:
    """ONNX tensor name -> our desc of it, over the root graph."""
    return {name: desc for node in graph for name, desc in
            zip(node.op_desc.output_names, node.op_desc.output_descs) if name}


def _compatible(ours: tuple[int, ...] | None, shape: tuple[int, ...]) -> bool:
    return ours is None or (len(ours) == len(shape)
                            and all(a in (-1, b) for a, b in zip(ours, shape)))


def _shipped(path: str) -> list[tuple[str, tuple[int, ...]]]:
    """(input_i/output_i, shape) of the tensors the suite ships beside the model."""
    if path.endswith("model.onnx"):
        files = glob.glob(os.path.join(os.path.dirname(path), "test_data_set_0", "*.pb"))
    else:
        files = glob.glob(path[: -len(".onnx")] + "_output_*.pb")
    shipped = []
    for pb in sorted(files):
        tensor = onnx.TensorProto()
        with open(pb, "rb") as f:
            tensor.ParseFromString(f.read())
        kind, idx = os.path.basename(pb).split(".")[0].rsplit("_", 2)[-2:]
        shipped.append((f"{kind}_{idx}", tuple(tensor.dims)))
    return shipped


@pytest.mark.parametrize("path", SUITES)
def test_suite_model(path):
    graph = parse_onnx(path)
    validate(graph)
    assert graph.attrs["source"] == path
    model = onnx.load(path)
    assert graph.attrs["opset"] == next(o.version for o in model.opset_import if o.domain == "")
    ours = _tensor_descs(graph)
    for name, (dtype, dims) in _onnx_types(model).items():
        desc = ours[name]
        assert desc.dtype == dtype, f"{name}: {desc} but ONNX infers {dtype.short}"
        if dims is not None and -1 not in dims:
            assert _dims(desc) == dims, f"{name}: ours {desc.shape}, ONNX {list(dims)}"
    outputs = graph.output_node.op_desc.input_descs
    for which, shape in _shipped(path):
        kind, idx = which.split("_")
        desc = outputs[int(idx)] if kind == "output" else graph.input_nodes[int(idx)] \
            .op_desc.output_descs[0]
        assert _compatible(_dims(desc), shape), f"{which}: ours {desc.shape}, shipped {shape}"


@pytest.mark.parametrize("path", _suite("simple"))
def test_simple_suite_model_parses_or_says_why(path):
    try:
        graph = parse_onnx(path)
    except ParseError as err:
        assert "\n" not in str(err) and str(err).startswith(path)
        pytest.skip(err.reason)
    validate(graph)


def test_onnx_node_test_cases():
    """ONNX's own per-op test cases (built in memory by the wheel), If and Loop included: each
    parses, or is refused for a reason we mean (an op or a type we do not support); each output
    desc fits the expected output's shape and has its dtype."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cases' numpy references overflow on purpose
        cases = node_cases.collect_testcases(None)
    refused = ("unsupported op", "has no GE data type", "is not a tensor", "is not supported")
    parsed, wrong = 0, []
    for case in cases:
        try:
            graph = parse_onnx(case.model)
        except ParseError as err:
            if not any(r in err.reason for r in refused):
                wrong.append(str(err))
            continue
        validate(graph)
        parsed += 1
        descs = graph.output_node.op_desc.input_descs
        for desc, expected in zip(descs, case.data_sets[0][1]):
            if not isinstance(expected, np.ndarray) or expected.dtype.kind in "OUSV":
                continue  # stored as a TensorProto, or a type numpy spells its own way
            if not _compatible(_dims(desc), expected.shape) or \
                    desc.dtype != DataType.from_numpy(expected.dtype):
                wrong.append(f"{case.name}: {desc}, expected {expected.dtype}{expected.shape}")
    assert wrong == []
    assert parsed > 900


# -- hand-built models -------------------------------------------------------------------------
def _vi(name: str, dims: list | None, elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, dims)


def _model(nodes, inputs, outputs, inits=(), opset: int = 18) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "m", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _parent_inputs(node) -> list[str]:
    return [a.peer.owner.name if a.peer else "_" for a in node.in_data_anchors]


def _if_with_capture() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
    then_g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["t"])], "then", [],
                               [_vi("t", None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [_vi("e", None)])
    nodes = [helper.make_node("Relu", ["x0"], ["x"], name="relu"),
             helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                              else_branch=else_g)]
    return _model(nodes, [_vi("x0", [2, 3]), _vi("c", [], TensorProto.BOOL)], [_vi("y", None)],
                  [w])


def test_if_outer_values_become_parent_inputs():
    graph = parse_onnx(_if_with_capture())
    validate(graph)
    if_node = graph.find_node("if0")
    then_g, else_g = (graph.subgraph(n) for n in if_node.op_desc.subgraph_names)
    assert (then_g.name, else_g.name) == ("if0_then_branch", "if0_else_branch")
    assert if_node.op_desc.get_attr("then_branch") == then_g.name
    # cond, then the captured x and w, each entering once though both branches read x.
    assert _parent_inputs(if_node) == ["c", "relu", "w"]
    assert if_node.op_desc.input_names == ["c", "x", "w"]
    assert {n.name: n.op_desc.get_attr("parent_node_index") for n in then_g.input_nodes} == \
        {"x": 1, "w": 2}
    assert [n.op_desc.get_attr("parent_node_index") for n in else_g.input_nodes] == [1]
    assert str(if_node.op_desc.output_descs[0]) == "f32[2,3]"
    assert str(graph.output_node.op_desc.input_descs[0]) == "f32[2,3]"
    assert _onnx_types(_if_with_capture())["y"][1] == (2, 3)


def test_if_output_covers_both_branches():
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                               [_vi("t", None)])
    else_g = helper.make_graph([helper.make_node("Concat", ["x", "x"], ["e"], axis=1)], "else",
                               [], [_vi("e", None)])
    model = _model([helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                                     else_branch=else_g)],
                   [_vi("x", [2, 3]), _vi("c", [], TensorProto.BOOL)], [_vi("y", None)])
    graph = parse_onnx(model)
    assert _dims(graph.find_node("if0").op_desc.output_descs[0]) == (2, -1)
    assert _onnx_types(model)["y"][1] == (2, -1)


def _loop() -> onnx.ModelProto:
    body = helper.make_graph(
        [helper.make_node("Concat", ["v_in", "w"], ["v_out"], axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0)], "body",
        [_vi("i", [], TensorProto.INT64), _vi("cond_in", [], TensorProto.BOOL),
         _vi("v_in", ["n", 3])],
        [_vi("cond_out", [], TensorProto.BOOL), _vi("v_out", None), _vi("s", None)])
    w = numpy_helper.from_array(np.ones((1, 3), np.float32), "w")
    return _model([helper.make_node("Loop", ["M", "", "v0"], ["v", "ss"], name="loop",
                                    body=body)],
                  [_vi("M", [], TensorProto.INT64), _vi("v0", [1, 3])],
                  [_vi("v", None), _vi("ss", None)], [w])


def test_loop_body_formal_inputs_and_capture():
    graph = parse_onnx(_loop())
    validate(graph)
    loop = graph.find_node("loop")
    body = graph.subgraph(loop.op_desc.subgraph_names[0])
    assert loop.op_desc.get_attr("body") == body.name == "loop_body"
    assert _parent_inputs(loop) == ["M", "_", "v0", "w"]
    assert loop.op_desc.input_descs[1].absent
    assert [(n.name, n.op_desc.get_attr("index"), n.op_desc.get_attr("parent_node_index"))
            for n in body.input_nodes] == [("i", 0, None), ("cond_in", 1, None),
                                            ("v_in", 2, None), ("w", 3, 3)]
    # v is v0 [1,3] or what the body grew it to (ONNX infers no shape for it); ss stacks one
    # scalar per iteration.
    assert [_dims(d) for d in loop.op_desc.output_descs] == [(-1, 3), (-1,)]
    assert _onnx_types(_loop())["ss"][1] == (-1,)


def test_nested_bodies_capture_through_every_level():
    w = numpy_helper.from_array(np.full((3,), 2.0, np.float32), "w")
    inner = helper.make_graph([helper.make_node("Mul", ["v_in", "w"], ["p"])], "inner", [],
                              [_vi("p", None)])
    inner_else = helper.make_graph([helper.make_node("Identity", ["v_in"], ["q"])], "inner_else",
                                   [], [_vi("q", None)])
    body = helper.make_graph(
        [helper.make_node("If", ["cond_in"], ["v_out"], then_branch=inner, else_branch=inner_else),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
        [_vi("i", [], TensorProto.INT64), _vi("cond_in", [], TensorProto.BOOL), _vi("v_in", [3])],
        [_vi("cond_out", [], TensorProto.BOOL), _vi("v_out", [3])])
    model = _model([helper.make_node("Loop", ["M", "c", "v0"], ["v"], name="loop", body=body)],
                   [_vi("M", [], TensorProto.INT64), _vi("c", [], TensorProto.BOOL),
                    _vi("v0", [3])], [_vi("v", None)], [w])
    graph = parse_onnx(model)
    validate(graph)
    loop = graph.find_node("loop")
    assert _parent_inputs(loop) == ["M", "c", "v0", "w"]
    body_g = graph.subgraph("loop_body")
    inner_if = body_g.find_node("If_0")
    # The If in the body reads v_in (a body value) and w (captured by the Loop first).
    assert _parent_inputs(inner_if) == ["cond_in", "v_in", "w"]
    assert body_g.find_node("w").op_desc.get_attr("parent_node_index") == 3
    then_g = graph.subgraph(inner_if.op_desc.subgraph_names[0])
    assert sorted((n.name, n.op_desc.get_attr("parent_node_index"))
                  for n in then_g.input_nodes) == [("v_in", 1), ("w", 2)]
    assert then_g.parent_graph is body_g and body_g.parent_graph is graph
    assert [s.name for s in graph.subgraphs] == ["loop_body", "If_0_then_branch",
                                                 "If_0_else_branch"]
    assert _dims(loop.op_desc.output_descs[0]) == (3,)


def test_bodies_of_nodes_of_one_name_in_two_scopes_get_names_of_their_own():
    """A node's bodies are named after it (``<node>_then_branch``); an If inside a branch may
    bear its outer If's name, and a body whose name is taken then takes the next free suffix
    (the inner If is read before its outer If's else branch)."""
    def branch(name, nodes, out):
        return helper.make_graph(nodes, name, [], [_vi(out, [2])])
    relu, neg = helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["x"], ["n"])
    inner = helper.make_node("If", ["c"], ["i"], "a", then_branch=branch("it", [relu], "r"),
                             else_branch=branch("ie", [neg], "n"))
    outer = helper.make_node("If", ["c"], ["y"], "a", then_branch=branch("ot", [inner], "i"),
                             else_branch=branch("oe", [helper.make_node("Abs", ["x"], ["b"])], "b"))
    graph = parse_onnx(_model([outer], [_vi("x", [2]), _vi("c", [], TensorProto.BOOL)],
                              [_vi("y", [2])]))
    validate(graph)
    inner_if = graph.subgraph("a_then_branch").find_node("a")
    assert inner_if.op_desc.subgraph_names == ["a_then_branch_1", "a_else_branch"]
    assert graph.find_node("a").op_desc.subgraph_names == ["a_then_branch", "a_else_branch_1"]
    assert len({s.name for s in graph.subgraphs}) == 4


def test_constant_nodes_become_const():
    nodes = [helper.make_node("Constant", [], ["k"], name="k",
                              value=numpy_helper.from_array(np.array([0, -1], np.int64))),
             helper.make_node("Constant", [], ["f"], value_float=2.5),
             helper.make_node("Constant", [], ["ints"], value_ints=[1, 2, 3]),
             helper.make_node("Reshape", ["x", "k"], ["r"], name="reshape"),
             helper.make_node("Mul", ["r", "f"], ["y"], name="mul")]
    graph = parse_onnx(_model(nodes, [_vi("x", [2, 3, 4])], [_vi("y", None), _vi("ints", None)]))
    validate(graph)
    const_k = graph.find_node("k")
    assert const_k.type == "Const" and const_k.op_desc.output_names == ["k"]
    np.testing.assert_array_equal(const_k.op_desc.get_attr("value").data, [0, -1])
    scalar = graph.find_node("Constant_1").op_desc.get_attr("value")
    assert scalar.data.dtype == np.float32 and scalar.data.shape == () and scalar.data == 2.5
    assert graph.find_node("Constant_2").op_desc.get_attr("value").data.dtype == np.int64
    assert str(graph.find_node("mul").op_desc.output_descs[0]) == "f32[2,12]"
    assert not any(n.type == "Constant" for n in graph)


def test_empty_optional_input_is_absent():
    nodes = [helper.make_node("Clip", ["x", "", "hi"], ["y"], name="clip")]
    graph = parse_onnx(_model(nodes, [_vi("x", [4]), _vi("hi", [])], [_vi("y", None)]))
    validate(graph)
    clip = graph.find_node("clip")
    assert clip.in_data_anchor(1).peer is None and clip.op_desc.input_descs[1].absent
    assert clip.op_desc.input_names == ["x", "", "hi"]
    assert "Clip(%x:0, _, %hi:0)" in dump_graph(graph)


def test_graph_io_nodes_and_names():
    w = numpy_helper.from_array(np.ones((3,), np.float32), "w")
    nodes = [helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    model = _model(nodes, [_vi("x", ["batch", 3]), _vi("w", [3])], [_vi("y", None)], [w],
                   opset=13)
    graph = parse_onnx(model, name="net")
    assert graph.name == "net" and graph.attrs["opset"] == 13 and "source" not in graph.attrs
    assert [(n.name, n.op_desc.get_attr("index")) for n in graph.input_nodes] == [("x", 0)]
    assert graph.find_node("w").type == "Const"  # an input that is also an initializer
    assert graph.find_node("Add_0").op_desc.output_names == ["s"]
    assert graph.output_node.op_desc.input_names == ["y"]
    assert str(graph.output_node.op_desc.input_descs[0]) == "f32[?,3]"


def test_old_opset_attrs():
    nodes = [helper.make_node("Add", ["a", "b"], ["add"], broadcast=1, axis=1),
             helper.make_node("Split", ["a"], ["s1", "s2"], axis=1, split=[1, 2]),
             helper.make_node("Pad", ["a"], ["pad"], pads=[0, 1, 0, 0, 0, 2, 0, 0]),
             helper.make_node("Slice", ["a"], ["slice"], starts=[1], ends=[1000], axes=[3]),
             helper.make_node("Squeeze", ["c"], ["squeeze"], axes=[0])]
    outputs = ["add", "s1", "s2", "pad", "slice", "squeeze"]
    model = _model(nodes, [_vi("a", [2, 3, 4, 5]), _vi("b", [3, 4]), _vi("c", [1, 7])],
                   [_vi(o, None) for o in outputs], opset=6)
    graph = parse_onnx(model)
    validate(graph)
    ours = [_dims(d) for d in graph.output_node.op_desc.input_descs]
    onnx_says = _onnx_types(model)
    assert ours == [onnx_says[o][1] for o in outputs] == \
        [(2, 3, 4, 5), (2, 1, 4, 5), (2, 2, 4, 5), (2, 6, 4, 5), (2, 3, 4, 4), (7,)]


def test_reshape_1_shape_attr():
    model = _model([helper.make_node("Reshape", ["a"], ["y"], shape=[0, -1])],
                   [_vi("a", [2, 3, 4, 5])], [_vi("y", None)], opset=4)
    graph = parse_onnx(model)
    assert graph.attrs["opset"] == 4
    assert _dims(graph.output_node.op_desc.input_descs[0]) == (2, 60)


# -- errors ----------------------------------------------------------------------------------
def _write(tmp_path, model: onnx.ModelProto) -> str:
    path = str(tmp_path / "model.onnx")
    onnx.save(model, path)
    return path


def test_unsupported_op_error(tmp_path):
    # ImageDecoder needs an image codec, which no dependency of the project provides.
    nodes = [helper.make_node("ImageDecoder", ["b"], ["i"], name="foo")]
    path = _write(tmp_path, _model(nodes, [_vi("b", [64], TensorProto.UINT8)],
                                   [_vi("i", None, TensorProto.UINT8)]))
    with pytest.raises(ParseError) as err:
        parse_onnx(path)
    text = str(err.value)
    assert text.startswith(f"{path}: node 'foo' (op ImageDecoder): unsupported op (")
    assert "`gewb ops`" in text and "\n" not in text
    assert (err.value.node, err.value.op_type) == ("foo", "ImageDecoder")


def test_malformed_bytes_error(tmp_path):
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"this is not an onnx model")
    with pytest.raises(ParseError, match=r"bad\.onnx: not a readable ONNX model \(its protobuf "
                                         r"bytes do not decode") as err:
        parse_onnx(path)
    assert "\n" not in str(err.value)


def test_missing_file_error(tmp_path):
    path = str(tmp_path / "nowhere.onnx")
    with pytest.raises(ParseError) as err:
        parse_onnx(path)
    assert str(err.value) == f"{path}: no such file"


def _weighted_model() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    return _model([helper.make_node("Add", ["x", "w"], ["y"])], [_vi("x", [3, 4])],
                  [_vi("y", [3, 4])], [w])


def _weight(graph: ComputeGraph) -> np.ndarray:
    return graph.find_node("w").op_desc.get_attr("value").data


def test_weights_in_an_external_file_are_read(tmp_path):
    # The parser looks for external data only where the file holds the bytes of an EXTERNAL
    # data_location: a file that keeps its weights beside it must still have them read.
    model = _weighted_model()
    path = str(tmp_path / "ext.onnx")
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location="ext.bin", size_threshold=0)
    assert (tmp_path / "ext.bin").exists()
    np.testing.assert_array_equal(_weight(parse_onnx(path)),
                                  np.arange(12, dtype=np.float32).reshape(3, 4))
    (tmp_path / "ext.bin").unlink()
    with pytest.raises(ParseError, match=r"ext\.onnx: not a readable ONNX model \("):
        parse_onnx(path)


def test_text_format_model_is_read(tmp_path):
    path = tmp_path / "model.textproto"
    onnx.save(_weighted_model(), str(path), format="textproto")
    np.testing.assert_array_equal(_weight(parse_onnx(path)),
                                  np.arange(12, dtype=np.float32).reshape(3, 4))


def test_input_without_producer_error():
    nodes = [helper.make_node("Relu", ["ghost"], ["y"], name="r")]
    with pytest.raises(ParseError, match=r"node 'r' \(op Relu\): input 'ghost' has no producer"):
        parse_onnx(_model(nodes, [], [_vi("y", None)]))


def _one_op(op_type: str, domain: str) -> onnx.ModelProto:
    nodes = [helper.make_node(op_type, ["x"], ["y"], name="n", domain=domain)]
    return helper.make_model(helper.make_graph(nodes, "m", [_vi("x", [2, 2])], [_vi("y", None)]),
                             opset_imports=[helper.make_opsetid("", 18),
                                            helper.make_opsetid(domain, 1)])


def test_other_domain_error():
    with pytest.raises(ParseError, match=r"node 'n' \(op com\.microsoft::Inverse\): unsupported "
                                         r"op"):
        parse_onnx(_one_op("Inverse", "com.microsoft"))


def test_an_op_is_typed_by_its_domain():
    # Binarizer is an ai.onnx.ml op; the default domain has none.
    graph = parse_onnx(_one_op("Binarizer", "ai.onnx.ml"))
    assert [n.type for n in graph] == ["Data", "ai.onnx.ml::Binarizer", "NetOutput"]
    with pytest.raises(ParseError, match=r"\(op Binarizer\): unsupported op"):
        parse_onnx(_one_op("Binarizer", ""))


def test_shape_error_names_node():
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    model = _model(nodes, [_vi("a", [2, 3]), _vi("b", [4])], [_vi("y", None)])
    with pytest.raises(ParseError, match=r"<model m>: node 'add' \(op Add\): cannot broadcast"):
        parse_onnx(model)


@pytest.mark.parametrize("dtype", [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64,
                                   TensorProto.INT32, TensorProto.INT8, TensorProto.UINT8,
                                   TensorProto.FLOAT16, TensorProto.BOOL])
@pytest.mark.parametrize("raw", [True, False])
def test_a_weight_reads_as_numpy_helper_reads_it(dtype, raw):
    # the parser reads the common forms straight, the rest through numpy_helper: same arrays
    from ge_core.parser.onnx_types import to_array
    values = np.array([[1, 0], [3, 1], [0, 1]]).astype(helper.tensor_dtype_to_np_dtype(dtype))
    tensor = numpy_helper.from_array(values, "w")
    if not raw:
        tensor = helper.make_tensor("w", dtype, values.shape, values.flatten().tolist())
    ours, theirs = to_array(tensor), numpy_helper.to_array(tensor)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape == (3, 2)
    assert np.array_equal(ours, theirs) and ours.flags.writeable == theirs.flags.writeable


def test_a_dim_past_int64_is_refused_and_an_empty_tensor_of_huge_dims_is_kept():
    """The fuzzer's: a Pad that made a dim of 2**63 reached protobuf ("Value out of range"), and
    an empty tensor of [0, 2**63-1, 4] numpy ("Maximum allowed dimension exceeded", making its
    empty const). The first names the node that makes the dim; the second stays unfolded."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [0, 2**63 - 1])
    pads = numpy_helper.from_array(np.array([0, 0, 0, 1], np.int64), "pads")
    padded = helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"], "pad")], "g", [x],
                               [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                               [pads])
    with pytest.raises(ParseError, match=r"node 'pad' \(op Pad\): output 0 would be "
                                         r"\[0,9223372036854775808\]: a dim past int64"):
        parse_onnx(helper.make_model(padded, opset_imports=[helper.make_opsetid("", 13)]))
    relu = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], "relu")], "g", [x],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    from ge_core.compiler import CompileOptions, compile_graph
    graph = parse_onnx(helper.make_model(relu, opset_imports=[helper.make_opsetid("", 13)]))
    compile_graph(graph, CompileOptions(dump=None))
    assert any(n.type == "Relu" for n in graph.all_nodes())
