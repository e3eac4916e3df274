"""Every way an ONNX file can be bad is one ParseError line naming what is at fault (issue 15's
parser defects, one case per class), never another exception: the op schemas (onnx.defs) and
ONNX's strict inference are the external truth for what a node may be."""
from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from ge_core.parser import ParseError, parse_onnx


def _vi(name: str, shape, elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, inits=(), opset: int = 13) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "m", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


W = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 1, 1], [1.0])
X4 = _vi("x", [1, 1, 4, 4])


def _conv(**attrs) -> onnx.ModelProto:
    return _model([helper.make_node("Conv", ["x", "w"], ["y"], **attrs)], [X4], [_vi("y", None)],
                  [W])


def _bad_tensor(**fields) -> onnx.TensorProto:
    return onnx.TensorProto(name="c", dims=[2], **fields)


def _add_with(init: onnx.TensorProto) -> onnx.ModelProto:
    return _model([helper.make_node("Add", ["x", "c"], ["y"])], [_vi("x", [2])], [_vi("y", [2])],
                  [init])


def _label_encoder(inputs: list[str], ml_opset: int | None = 4) -> onnx.ModelProto:
    node = helper.make_node("LabelEncoder", inputs, ["y"], domain="ai.onnx.ml",
                            keys_strings=["a"], values_int64s=[1])
    model = _model([node], [_vi("x", [2], TensorProto.STRING)], [_vi("y", None)])
    if ml_opset is not None:
        model.opset_import.append(helper.make_opsetid("ai.onnx.ml", ml_opset))
    return model


def _if_declaring(dims: list[int]) -> onnx.ModelProto:
    body = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "body", [],
                             [_vi("y", dims)])
    node = helper.make_node("If", ["c"], ["o"], then_branch=body, else_branch=body)
    return _model([node], [_vi("c", [], TensorProto.BOOL), _vi("x", [2, 3])], [_vi("o", None)])


def _cast_without_to() -> onnx.ModelProto:
    return _model([helper.make_node("Cast", ["x"], ["y"])], [_vi("x", [2])], [_vi("y", [2])])


def _undefined_tensor_attribute() -> onnx.ModelProto:
    value = helper.make_attribute("value", onnx.TensorProto(name="v", data_type=0, dims=[1]))
    node = helper.make_node("Constant", [], ["y"])
    node.attribute.append(value)
    return _model([node], [], [_vi("y", None)])


def _if_without_branches() -> onnx.ModelProto:
    return _model([helper.make_node("If", ["c"], ["y"])], [_vi("c", [], TensorProto.BOOL)],
                  [_vi("y", None)])


def _loop_without_body() -> onnx.ModelProto:
    return _model([helper.make_node("Loop", ["", "c", "v"], ["vo"])],
                  [_vi("c", [], TensorProto.BOOL), _vi("v", [1])], [_vi("vo", None)])


CASES = {
    "cycle": (_model([helper.make_node("Add", ["x", "b"], ["a"], name="add"),
                      helper.make_node("Relu", ["a"], ["b"], name="relu")],
                     [_vi("x", [2])], [_vi("b", [2])]),
              "add", "the graph has a cycle: relu -> add -> relu"),
    "too few inputs": (_model([helper.make_node("Add", ["x"], ["y"])], [_vi("x", [2])],
                              [_vi("y", [2])]),
                       "Add_0", "Add takes at least 2 input(s) (A, B), the node has 1"),
    "Conv without W": (_model([helper.make_node("Conv", ["x"], ["y"])], [X4], [_vi("y", None)]),
                       "Conv_0", "Conv takes at least 2 input(s)"),
    "a required input left empty": (
        _model([helper.make_node("Conv", ["x", ""], ["y"])], [X4], [_vi("y", None)]),
        "Conv_0", "input 1 (W) is required but left empty"),
    "a variadic input left empty": (   # ONNX's checker passes it; Max's kernel met None
        _model([helper.make_node("Max", ["x", "", "x"], ["y"])], [_vi("x", [2])],
               [_vi("y", [2])]),
        "Max_0", "input 1 (data_0) is required but left empty"),
    "no outputs": (_model([helper.make_node("Relu", ["x"], [])], [_vi("x", [2])],
                          [_vi("x", [2])]),
                   "Relu_0", "Relu takes at least 1 output(s) (Y), the node has 0"),
    "Split with no outputs": (_model([helper.make_node("Split", ["x"], [], axis=0)],
                                     [_vi("x", [2])], [_vi("x", [2])]),
                              "Split_0", "Split takes at least 1 output(s)"),
    "1-D Gemm weights": (_model([helper.make_node("Gemm", ["x", "b"], ["y"])], [_vi("x", [2, 3])],
                                [_vi("y", None)],
                                [helper.make_tensor("b", TensorProto.FLOAT, [3], [1.0] * 3)]),
                         "Gemm_0", "Input 1 expected to have rank 2 but has rank 1"),
    "an input type the op does not take": (   # the string kernel met a float
        _model([helper.make_node("StringNormalizer", ["x"], ["y"])], [_vi("x", [2])],
               [_vi("y", None)]),
        "StringNormalizer_0", "X typestr: tensor(string), has unsupported type: tensor(float)"),
    "a type its op takes, at an input that does not": (   # Gather takes floats, not as indices
        _model([helper.make_node("Gather", ["x", "i"], ["y"])], [_vi("x", [3]), _vi("i", [2])],
               [_vi("y", None)], opset=6),
        "Gather_0", "indices typestr: Tind, has unsupported type: tensor(float)"),
    "a wrong type beside a huge declared dim": (   # ONNX infers no seed there, but checks types
        _model([helper.make_node("Add", ["x", "x"], ["y"])], [_vi("x", [2], TensorProto.STRING)],
               [_vi("y", [1 << 40])]),
        "Add_0", "A typestr: T, has unsupported type: tensor(string)"),
    "zero strides": (_conv(strides=[0, 0]), "Conv_0",
                     "Attribute strides must only contain positive values"),
    "float pads": (_conv(pads=[0.5, 0.5, 0.5, 0.5]), "Conv_0",
                   "attribute 'pads' is FLOATS, Conv takes INTS"),
    "string strides": (_conv(strides="ab"), "Conv_0",
                       "attribute 'strides' is STRING, Conv takes INTS"),
    "an attribute the op does not have": (_conv(axis=1), "Conv_0",
                                          "Conv (opset 13) has no attribute 'axis'"),
    "Cast without to": (_cast_without_to(), "Cast_0", "required attribute(s) to missing"),
    "If without branches": (_if_without_branches(), "If_0",
                            "required attribute(s) else_branch, then_branch missing"),
    "Loop without body": (_loop_without_body(), "Loop_0", "required attribute(s) body missing"),
    "UNDEFINED initializer": (_add_with(_bad_tensor(data_type=0)), None,
                              "initializer 'c' has element type UNDEFINED"),
    "unknown initializer dtype": (_add_with(_bad_tensor(data_type=99, raw_data=b"12345678")),
                                  None, "initializer 'c' has element type 99 (no such ONNX"),
    "UNDEFINED tensor attribute": (_undefined_tensor_attribute(), "Constant_0",
                                   "attribute 'value' tensor 0 has element type UNDEFINED"),
    "truncated initializer": (_add_with(_bad_tensor(data_type=1, raw_data=b"1234")), None,
                              "initializer 'c': dims [2] need 8 bytes of data, it holds 4"),
    "a value produced twice": (_model([helper.make_node("Relu", ["x"], ["y"], name="a"),
                                       helper.make_node("Relu", ["x"], ["y"], name="b")],
                                      [_vi("x", [2])], [_vi("y", [2])]),
                               "b", "value 'y' is produced twice (first by node 'a')"),
    "two inputs of one name": (_model([helper.make_node("Add", ["x", "x"], ["y"])],
                                      [_vi("x", [2]), _vi("x", [2])], [_vi("y", [2])]),
                               None, "graph 'm' has two inputs named 'x'"),
    "opset 0": (_model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [2])],
                       [_vi("y", [2])], opset=0),
                None, "the model imports ONNX opset 0: opsets start at 1"),
    "UNDEFINED graph input": (_model([helper.make_node("Relu", ["x"], ["y"])],
                                     [_vi("x", [2], TensorProto.UNDEFINED)], [_vi("y", [2])]),
                              None, "graph input 'x' has element type UNDEFINED"),
    # a Conv's ONNX inference lets it pass, and a hybrid load met its unknown dtype in Python
    "graph input of no type": (_model([helper.make_node("Conv", ["x", "w"], ["y"])],
                                      [onnx.ValueInfoProto(name="x")], [_vi("y", None)], [W]),
                               None, "graph input 'x' has no type"),
    # ONNX's own inference (C++) would kill the process on these: a segfault, an abort
    "GatherND with a negative batch_dims": (
        _model([helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=-2)],
               [_vi("x", [2, 2]), _vi("i", [2, 1], TensorProto.INT64)], [_vi("y", None)]),
        "GatherND_0", "batch_dims -2 is negative"),
    "LayerNormalization with an axis past int32": (
        _model([helper.make_node("LayerNormalization", ["x", "s"], ["y"], axis=1 << 31)],
               [_vi("x", [2, 3]), _vi("s", [3])], [_vi("y", None)], opset=17),
        "LayerNormalization_0", "axis 2147483648 is out of range"),
    "Split into fewer parts than its outputs": (
        _model([helper.make_node("Split", ["x"], ["a", "b"], num_outputs=1)], [_vi("x", [4])],
               [_vi("a", None), _vi("b", None)], opset=18),
        "Split_0", "num_outputs 1 is not the node's 2 outputs"),
    "a flag that is neither 0 nor 1": (
        _model([helper.make_node("ArgMax", ["x"], ["y"], keepdims=2)], [_vi("x", [2, 3])],
               [_vi("y", None)]),
        "ArgMax_0", "attribute 'keepdims' is 2, not 0 or 1"),
    # a string the spec lists the values of: the kernels had read another as their default
    "a BitShift direction that is neither RIGHT nor LEFT": (
        _model([helper.make_node("BitShift", ["x", "n"], ["y"], direction="garbage")],
               [_vi("x", [3], TensorProto.UINT8), _vi("n", [3], TensorProto.UINT8)],
               [_vi("y", None)]),
        "BitShift_0", "attribute 'direction' is 'garbage', not one of RIGHT, LEFT"),
    "a Resize mode in another case": (
        _model([helper.make_node("Resize", ["x", "", "s"], ["y"], mode="LINEAR")],
               [_vi("x", [1, 1, 2, 2]), _vi("s", [4])], [_vi("y", None)]),
        "Resize_0", "attribute 'mode' is 'LINEAR', not one of nearest, linear, cubic"),
    "a pool's auto_pad of no kind": (
        _model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2],
                                 auto_pad="same")], [X4], [_vi("y", None)]),
        "MaxPool_0", "attribute 'auto_pad' is 'same', not one of NOTSET, SAME_UPPER"),
    # an element type by its number: 0 is UNDEFINED (the build's first read of it raised)
    "a Cast to UNDEFINED": (
        _model([helper.make_node("Cast", ["x"], ["y"], to=0)], [_vi("x", [2])],
               [_vi("y", None)]),
        "Cast_0", "attribute 'to' is UNDEFINED, no tensor element type"),
    "a RandomNormal of a type ONNX has no number for": (
        _model([helper.make_node("RandomNormal", [], ["y"], shape=[2], dtype=99)], [],
               [_vi("y", None)]),
        "RandomNormal_0", "attribute 'dtype' is 99 (no such ONNX type), no tensor element"),
    # a Loop's M and cond are one value each: a [2] M left the body uninferred
    "a Loop whose trip count is two values": (
        _model([helper.make_node("Loop", ["m", "", "s"], ["t"], body=helper.make_graph(
            [helper.make_node("Identity", ["c"], ["c_out"]),
             helper.make_node("Identity", ["s_in"], ["s_out"])], "body",
            [_vi("i", [], TensorProto.INT64), _vi("c", [], TensorProto.BOOL), _vi("s_in", [1])],
            [_vi("c_out", [], TensorProto.BOOL), _vi("s_out", [1])]))],
               [_vi("m", [2], TensorProto.INT64), _vi("s", [1])], [_vi("t", None)]),
        "Loop_0", "the trip count M is [2], not one value"),
    # a Scan steps along its scan inputs: with none, ScanPass had met an IndexError
    "a Scan with no scan input": (
        _model([helper.make_node("Scan", ["s"], ["t"], num_scan_inputs=0, body=helper.make_graph(
            [helper.make_node("Identity", ["s_in"], ["s_out"])], "body", [_vi("s_in", [1])],
            [_vi("s_out", [1])]))], [_vi("s", [1])], [_vi("t", None)]),
        "Scan_0", "num_scan_inputs 0: a Scan steps along at least one scan input"),
    # ONNX's other domains are checked against their schemas too
    "an ai.onnx.ml op with inputs past its schema's": (_label_encoder(["", "", "", "x"]),
                                                        "LabelEncoder_0",
                                                        "LabelEncoder takes at most 1 input(s)"),
    "an ai.onnx.ml op without the domain's opset": (_label_encoder(["x"], ml_opset=None),
                                                    "LabelEncoder_0",
                                                    "the model imports no ai.onnx.ml opset"),
    # a rank read from a declared dim: a 2^31-tuple of unknown dims had run out of memory
    "Col2Im with an image_shape of 2^31 dims": (
        _model([helper.make_node("Col2Im", ["x", "image", "block"], ["y"])],
               [_vi("x", [1, 4, 4]), _vi("image", [1 << 31], TensorProto.INT64),
                _vi("block", [2], TensorProto.INT64)], [_vi("y", None)], opset=18),
        "Col2Im_0", "image_shape's length of 2147483648: a shape has at most 25 dims"),
    "AffineGrid with a theta of 2^31 spatial dims": (
        _model([helper.make_node("AffineGrid", ["theta", "size"], ["y"])],
               [_vi("theta", [1, 1 << 31, 3]), _vi("size", [4], TensorProto.INT64)],
               [_vi("y", None)], opset=20),
        "AffineGrid_0", "an output rank (2 + theta's dim 1) of 2147483650"),
    # ONNX's strict inference stops at the first type it refuses, and a bf16 is excused at an
    # opset before Add took one: the str beside it reached the kernel, whose error was numpy's
    # (the fuzzer's seed 17017)
    "an Add of bf16 and str at opset 6": (
        _model([helper.make_node("Add", ["a", "b"], ["c"])],
               [_vi("a", [2], TensorProto.BFLOAT16), _vi("b", [2], TensorProto.STRING)],
               [_vi("c", None)], opset=6),
        "Add_0", "input 0 is bf16 and input 1 str: Add takes one type for both"),
    "a Sum of bf16 and str at opset 6": (
        _model([helper.make_node("Sum", ["a", "a", "b"], ["c"])],
               [_vi("a", [2], TensorProto.BFLOAT16), _vi("b", [2], TensorProto.STRING)],
               [_vi("c", None)], opset=6),
        "Sum_0", "input 0 is bf16 and input 2 str: Sum takes one type for all of them"),
    # the same for any op, which ONNX checks no further once it has excused the bf16: a Where
    # of bf16 and str had made a str, a Gather with float indices met numpy's cast
    "a Where of bf16 and str at opset 9": (
        _model([helper.make_node("Where", ["c", "a", "b"], ["y"])],
               [_vi("c", [2], TensorProto.BOOL), _vi("a", [2], TensorProto.BFLOAT16),
                _vi("b", [2], TensorProto.STRING)], [_vi("y", None)], opset=9),
        "Where_0", "input 1 is BFLOAT16 and input 2 STRING: Where takes one type for both"),
    "a Gather of bf16 at float indices at opset 1": (
        _model([helper.make_node("Gather", ["a", "i"], ["y"])],
               [_vi("a", [2], TensorProto.BFLOAT16), _vi("i", [2])], [_vi("y", None)], opset=1),
        "Gather_0", "input 1 (indices) is FLOAT, a type Gather does not take there"),
    # operands and attributes ONNX's inference leaves unchecked, which met the kernel as
    # numpy's or Python's error (a stress of every op at every opset with inputs of [2])
    "a CumSum along an axis of two values": (
        _model([helper.make_node("CumSum", ["x", "axis"], ["y"])],
               [_vi("x", [2]), _vi("axis", [2], TensorProto.INT64)], [_vi("y", None)]),
        "CumSum_0", "axis is [2], not one value"),
    "a CumSum along an axis past x's rank": (
        _model([helper.make_node("CumSum", ["x", "axis"], ["y"])], [_vi("x", [2])],
               [_vi("y", None)], [helper.make_tensor("axis", TensorProto.INT64, [], [3])]),
        "CumSum_0", "axis 3 out of range for rank 1"),
    "a HannWindow of a size of two values": (
        _model([helper.make_node("HannWindow", ["size"], ["y"])],
               [_vi("size", [2], TensorProto.INT64)], [_vi("y", None)], opset=17),
        "HannWindow_0", "size is [2], not one value"),
    "a MeanVarianceNormalization of a vector, over its default axes [0, 2, 3]": (
        _model([helper.make_node("MeanVarianceNormalization", ["x"], ["y"])], [_vi("x", [2])],
               [_vi("y", None)]),
        "MeanVarianceNormalization_0", "axis 2 out of range for rank 1"),
    "a SoftmaxCrossEntropyLoss of scores with no class axis": (
        _model([helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"])],
               [_vi("x", [2]), _vi("t", [2], TensorProto.INT64)], [_vi("y", None)]),
        "SoftmaxCrossEntropyLoss_0", "input 0 is [2], not [N, C, ...]"),
    "a Reshape of opset 1 with no shape attribute": (
        _model([helper.make_node("Reshape", ["x"], ["y"])], [_vi("x", [2])], [_vi("y", None)],
               opset=1),
        "Reshape_0", "no shape: Reshape takes it as an attribute before opset 5"),
    "a RegexFullMatch with no pattern": (
        _model([helper.make_node("RegexFullMatch", ["x"], ["y"])],
               [_vi("x", [2], TensorProto.STRING)], [_vi("y", None)], opset=20),
        "RegexFullMatch_0", "no pattern to match"),
    "a Resize by scales of one 0-D value": (
        _model([helper.make_node("Resize", ["x", "", "scales"], ["y"])],
               [_vi("x", [1, 1, 2, 2]), _vi("scales", [])], [_vi("y", None)]),
        "Resize_0", "scales is [], not a list (a 1-D tensor)"),
    "a CenterCropPad to a 0-D shape": (
        _model([helper.make_node("CenterCropPad", ["x", "shape"], ["y"])],
               [_vi("x", [2, 2]), _vi("shape", [], TensorProto.INT64)], [_vi("y", None)],
               opset=18),
        "CenterCropPad_0", "shape is [], not a list (a 1-D tensor)"),
    "an LRN of a vector": (
        _model([helper.make_node("LRN", ["x"], ["y"], size=3)], [_vi("x", [2])],
               [_vi("y", None)]),
        "LRN_0", "x [2] is not [N, C, ...]: LRN sums across channels"),
    "an STFT by a frame_step of two values": (
        _model([helper.make_node("STFT", ["x", "step", "", "length"], ["y"])],
               [_vi("x", [1, 16, 1]), _vi("step", [2], TensorProto.INT64)], [_vi("y", None)],
               [helper.make_tensor("length", TensorProto.INT64, [], [4])], opset=17),
        "STFT_0", "frame_step is [2], not one value"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_model_is_one_line_naming_the_fault(case):
    model, node, reason = CASES[case]
    with pytest.raises(ParseError) as err:
        parse_onnx(model)
    text = str(err.value)
    assert reason in text and "\n" not in text
    assert err.value.node == node


@pytest.mark.parametrize("op, inputs, opset", [
    ("Where", [TensorProto.BOOL, TensorProto.BFLOAT16, TensorProto.BFLOAT16], 9),
    ("Gather", [TensorProto.BFLOAT16, TensorProto.INT32], 1),
    ("Concat", [TensorProto.BFLOAT16] * 3, 4),
    ("Identity", [TensorProto.FLOAT8E4M3FN], 13)])
def test_a_type_only_a_newer_op_takes_is_let_through(op, inputs, opset):
    """Our kernels follow the newest op: a type ONNX refuses only for the model's opset runs."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op, names, ["y"], **({"axis": 0} if op == "Concat" else {}))
    graph = parse_onnx(_model([node], [_vi(n, [2], t) for n, t in zip(names, inputs)],
                              [_vi("y", None)], opset=opset))
    assert [n.type for n in graph.nodes if n.type == op] == [op]


@pytest.mark.parametrize("model", [
    _model([helper.make_node("GatherND", ["x", "i"], ["y"])],
           [_vi("x", [2, 2]), _vi("i", [2, -1], TensorProto.INT64)], [_vi("y", None)]),
    _if_declaring([2, -3])])
def test_a_negative_declared_dim_is_unknown(model):
    """-1 is how some writers say "unknown"; ONNX's inference would index with a negative dim
    (GatherND's indices: a segfault, the process gone), so it sees it unknown, as ours does."""
    graph = parse_onnx(model)
    assert graph.nodes


def _serialized_with(model: onnx.ModelProto, old: bytes, new: bytes) -> bytes:
    data = model.SerializeToString()
    assert data.count(old) == 1
    return data.replace(old, new)


@pytest.mark.parametrize("where", ["node name", "attribute string"])
def test_non_utf8_strings_are_named(tmp_path, where):
    """protobuf hands back bytes for a string field that is not UTF-8."""
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv_name", auto_pad="NOTSET")
    model = _model([node], [X4], [_vi("y", None)], [W])
    old = b"conv_name" if where == "node name" else b"NOTSET"
    path = tmp_path / "bad.onnx"
    path.write_bytes(_serialized_with(model, old, b"\xff" + old[1:]))
    with pytest.raises(ParseError, match="is not UTF-8") as err:
        parse_onnx(path)
    assert "\n" not in str(err.value)


def test_a_truncated_file_names_no_python_class(tmp_path):
    path = tmp_path / "cut.onnx"
    path.write_bytes(_conv().SerializeToString()[:40])
    with pytest.raises(ParseError) as err:
        parse_onnx(path)
    assert "not a readable ONNX model" in str(err.value) and "Error" not in str(err.value)


def test_a_declared_type_that_inference_disagrees_with_is_only_a_seed():
    """A graph output declared float that a Constant makes int64: ONNX's strict inference
    complains about the declaration, which our own InferShape overrides (kept as before)."""
    node = helper.make_node("Constant", [], ["k"], value_ints=[1, 2])
    graph = parse_onnx(_model([node], [], [_vi("k", None)]))
    assert str(graph.find_node("Constant_0").op_desc.output_descs[0]) == "i64[2]"


def test_an_initializer_listed_as_an_input_needs_no_type_of_its_own():
    """IR 3 lists initializers among the inputs; its tensor says what it is."""
    model = _model([helper.make_node("Conv", ["x", "w"], ["y"])],
                   [X4, onnx.ValueInfoProto(name="w")], [_vi("y", None)], [W])
    model.ir_version = 3
    assert parse_onnx(model).find_node("w").type == "Const"


def test_each_string_choice_is_one_onnx_describes():
    """The values a STRING attribute is checked against are those ONNX's own schemas name for
    it, in some opset's description of the attribute (where the opsets renamed them, each)."""
    from onnx import defs
    from ge_core.parser.model_checker import _CHOICES
    for op, attrs in _CHOICES.items():
        for name, values in attrs.items():
            told = " ".join(s.attributes[name].description
                            for s in defs.get_all_schemas_with_history()
                            if s.name == op and s.domain == "" and name in s.attributes)
            assert told, (op, name)
            for value in values:
                assert value in told, (op, name, value)


def test_each_element_type_attribute_is_one_onnx_describes_so():
    """The INT attributes checked as element types are ONNX's, each described as a type or a
    precision."""
    from onnx import defs
    from ge_core.parser.model_checker import _ELEMENT_TYPES
    for op, names in _ELEMENT_TYPES.items():
        for name in names:
            told = [s.attributes[name] for s in defs.get_all_schemas_with_history()
                    if s.name == op and s.domain == "" and name in s.attributes]
            ints = [a for a in told if a.type == onnx.AttributeProto.INT]   # Cast-1's is a name
            assert ints and any(word in a.description.lower() for a in ints
                                for word in ("type", "precision")), (op, name)
