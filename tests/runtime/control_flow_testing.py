"""Models with If and Loop as exporters write them (onnx.helper), most with a symbolic batch, and
the external truth to compare with: onnxruntime (onnx.reference's Loop mishandles an absent
cond input, so it is not used for Loop here)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T, helper

BATCH = "batch"   # the symbolic dimension, as PyTorch's exporter names a dynamic axis


def vi(name: str, shape: list | None, elem: int = T.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes: list, inputs: list, outputs: list, name: str = "g") -> onnx.ModelProto:
    proto = helper.make_model(helper.make_graph(nodes, name, inputs, outputs),
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(proto)
    return proto


def dynamic_if_model(batch: str | int | None = BATCH) -> onnx.ModelProto:
    """z = -(c ? relu(x) + relu(x) : relu(x) * w) with x [batch, 3]; the branches capture
    relu(x) and w."""
    then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                               [vi("t", [batch, 3])])
    else_g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["e"])], "else", [],
                               [vi("e", [batch, 3])])
    return model([helper.make_node("Relu", ["x0"], ["x"]),
                  helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                                   else_branch=else_g),
                  helper.make_node("Neg", ["y"], ["z"])],
                 [vi("x0", [batch, 3]), vi("c", [], T.BOOL), vi("w", [1, 3])],
                 [vi("z", [batch, 3])], "dynamic_if")


def loop_scan_model() -> onnx.ModelProto:
    """M iterations of acc = acc * 0.5 + x (x [batch, 3] captured), a second state swapped with
    the first each iteration (a body returning one state as another), and a scan output of
    acc + i per iteration: outputs acc, b and the stack [M, batch, 3]."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Constant", [], ["half"],
                          value=helper.make_tensor("half", T.FLOAT, [], [0.5])),
         helper.make_node("Mul", ["a_in", "half"], ["scaled"]),
         helper.make_node("Add", ["scaled", "x"], ["a_out"]),
         helper.make_node("Identity", ["a_in"], ["b_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
         helper.make_node("Add", ["a_out", "fi"], ["step"])],
        "body",
        [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("a_in", [BATCH, 3]),
         vi("b_in", [BATCH, 3])],
        [vi("cond_out", [], T.BOOL), vi("a_out", [BATCH, 3]), vi("b_out", [BATCH, 3]),
         vi("step", [BATCH, 3])])
    return model([helper.make_node("Loop", ["M", "", "a0", "b0"], ["a", "b", "steps"],
                                   name="loop0", body=body)],
                 [vi("M", [], T.INT64), vi("a0", [BATCH, 3]), vi("b0", [BATCH, 3]),
                  vi("x", [BATCH, 3])],
                 [vi("a", [BATCH, 3]), vi("b", [BATCH, 3]), vi("steps", [None, BATCH, 3])],
                 "loop_scan")


def loop_until_model() -> onnx.ModelProto:
    """No trip count: double acc while its sum stays under a limit (cond from the body)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "acc_in"], ["acc_out"]),
         helper.make_node("ReduceSum", ["acc_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["go"])],
        "body", [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("acc_in", [BATCH, 3])],
        [vi("go", [], T.BOOL), vi("acc_out", [BATCH, 3])])
    return model([helper.make_node("Loop", ["", "c0", "acc0"], ["acc"], name="loop0",
                                   body=body)],
                 [vi("c0", [], T.BOOL), vi("acc0", [BATCH, 3]), vi("limit", [])],
                 [vi("acc", [BATCH, 3])], "loop_until")


def if_in_loop_model() -> onnx.ModelProto:
    """-(loop over relu(acc0)): M iterations adding x while the counter is even, subtracting it
    when odd; x is captured through two levels of body."""
    then_g = helper.make_graph([helper.make_node("Add", ["acc_in", "x"], ["t"])], "then", [],
                               [vi("t", [BATCH, 3])])
    else_g = helper.make_graph([helper.make_node("Sub", ["acc_in", "x"], ["e"])], "else", [],
                               [vi("e", [BATCH, 3])])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Constant", [], ["two"],
                          value=helper.make_tensor("two", T.INT64, [], [2])),
         helper.make_node("Constant", [], ["zero"],
                          value=helper.make_tensor("zero", T.INT64, [], [0])),
         helper.make_node("Mod", ["i", "two"], ["r"]),
         helper.make_node("Equal", ["r", "zero"], ["even"]),
         helper.make_node("If", ["even"], ["acc_out"], name="if0", then_branch=then_g,
                          else_branch=else_g)],
        "body", [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("acc_in", [BATCH, 3])],
        [vi("cond_out", [], T.BOOL), vi("acc_out", [BATCH, 3])])
    return model([helper.make_node("Relu", ["acc0"], ["acc_r"]),
                  helper.make_node("Loop", ["M", "", "acc_r"], ["acc"], name="loop0",
                                   body=body),
                  helper.make_node("Neg", ["acc"], ["out"])],
                 [vi("M", [], T.INT64), vi("acc0", [BATCH, 3]), vi("x", [BATCH, 3])],
                 [vi("out", [BATCH, 3])], "if_in_loop")


def scan_model() -> onnx.ModelProto:
    """Scan-9 over a sequence of symbolic length: a running sum (state [3]) and, per step, the
    sum times the step's input (scan output [seq, 3])."""
    body = helper.make_graph(
        [helper.make_node("Add", ["sum_in", "x_t"], ["sum_out"]),
         helper.make_node("Mul", ["sum_out", "x_t"], ["y_t"])],
        "body", [vi("sum_in", [3]), vi("x_t", [3])], [vi("sum_out", [3]), vi("y_t", [3])])
    return model([helper.make_node("Scan", ["s0", "x"], ["s", "y"], name="scan0",
                                   num_scan_inputs=1, body=body)],
                 [vi("s0", [3]), vi("x", ["seq", 3])], [vi("s", [3]), vi("y", ["seq", 3])],
                 "scan")


def reversed_scan_model(seq: str | int = "seq") -> onnx.ModelProto:
    """Scan-9 with every option ScanPass maps: x scanned backwards along axis 1, a second scan
    input forwards, a value captured from the outer graph, and two scan outputs, one reversed
    and one stacked on axis 1 (-1 of its rank 2)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x_t"], ["sum"]),
         helper.make_node("Mul", ["sum", "w"], ["acc_out"]),
         helper.make_node("Sub", ["acc_out", "u_t"], ["y_t"]),
         helper.make_node("Neg", ["y_t"], ["z_t"])],
        "body", [vi("acc_in", [2]), vi("x_t", [2]), vi("u_t", [2])],
        [vi("acc_out", [2]), vi("y_t", [2]), vi("z_t", [2])])
    return model([helper.make_node("Relu", ["w0"], ["w"]),
                  helper.make_node("Scan", ["acc0", "x", "u"], ["acc", "y", "z"], name="scan0",
                                   num_scan_inputs=2, body=body, scan_input_axes=[1, 0],
                                   scan_input_directions=[1, 0], scan_output_directions=[1, 0],
                                   scan_output_axes=[0, -1])],
                 [vi("acc0", [2]), vi("x", [2, seq]), vi("u", [seq, 2]), vi("w0", [2])],
                 [vi("acc", [2]), vi("y", [seq, 2]), vi("z", [2, seq])], "reversed_scan")


def scan_8_model(batch: str | int = BATCH, seq: str | int = "seq",
                 lens: bool = False) -> onnx.ModelProto:
    """Scan-8 (every input batched on axis 0, scanned along axis 1): two states, x read forwards
    and u backwards (directions), w captured from the outer graph, two scan outputs; with
    ``lens``, a sequence_lens input gives each batch entry its own length."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x_t"], ["sum"]),
         helper.make_node("Mul", ["sum", "w"], ["acc_out"]),
         helper.make_node("Add", ["n_in", "one"], ["n_out"]),
         helper.make_node("Sub", ["acc_out", "u_t"], ["y_t"]),
         helper.make_node("Mul", ["y_t", "n_out"], ["z_t"])],
        "body", [vi("acc_in", [2]), vi("n_in", [1]), vi("x_t", [2]), vi("u_t", [2])],
        [vi("acc_out", [2]), vi("n_out", [1]), vi("y_t", [2]), vi("z_t", [2])])
    one = helper.make_tensor("one", T.FLOAT, [1], [1.0])
    nodes = [helper.make_node("Relu", ["w0"], ["w"]),
             helper.make_node("Scan", ["lens" if lens else "", "acc0", "n0", "x", "u"],
                              ["acc", "n", "y", "z"], name="scan0", num_scan_inputs=2,
                              body=body, directions=[0, 1])]
    inputs = [vi("acc0", [batch, 2]), vi("n0", [batch, 1]), vi("x", [batch, seq, 2]),
              vi("u", [batch, seq, 2]), vi("w0", [2])]
    if lens:
        inputs.append(vi("lens", [batch], T.INT64))
    graph = helper.make_graph(
        nodes, "scan_8", inputs,
        [vi("acc", [batch, 2]), vi("n", [batch, 1]), vi("y", [batch, seq, 2]),
         vi("z", [batch, seq, 2])], initializer=[one])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    onnx.checker.check_model(proto)
    return proto


def floats(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def saved_if_case(directory: Path, batch: int, cond: bool) -> tuple[Path, dict[str, Path],
                                                                   np.ndarray]:
    """dynamic_if_model and its inputs saved in ``directory`` (dynamic_if.onnx, NAME.npy):
    (model path, input files by name, onnxruntime's z)."""
    proto = dynamic_if_model()
    onnx.save(proto, directory / "dynamic_if.onnx")
    feeds = {"x0": floats(batch, batch, 3), "c": np.array(cond), "w": floats(9, 1, 3)}
    files = {name: directory / f"{name}.npy" for name in feeds}
    for name, value in feeds.items():
        np.save(files[name], value)
    return directory / "dynamic_if.onnx", files, onnxruntime_outputs(proto, feeds)["z"]


def onnxruntime_outputs(proto: onnx.ModelProto, feeds: dict) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(proto.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in proto.graph.output]
    return dict(zip(names, session.run(names, feeds)))


def assert_same(got: dict, expected: dict) -> None:
    assert list(got) == list(expected)
    for name, want in expected.items():
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-6, err_msg=name)


def squeezing_if_model() -> onnx.ModelProto:
    """z = -(c ? relu(x) : squeeze(x, axis 2)) with x [1, 128, k]: for k != 1 the else branch
    cannot be shape-inferred (a model serving two audio rates squeezes a dim only one rate makes
    1), yet onnxruntime runs the then branch and fails only if else is taken."""
    axes = helper.make_tensor("axes", T.INT64, [1], [2])
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [],
                               [vi("t", [1, 128, "k"])])
    else_g = helper.make_graph([helper.make_node("Constant", [], ["axes"], value=axes),
                                helper.make_node("Squeeze", ["x", "axes"], ["e"])], "else", [],
                               [vi("e", [1, 128])])
    return model([helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                                   else_branch=else_g),
                  helper.make_node("Neg", ["y"], ["z"])],
                 [vi("x", [1, 128, "k"]), vi("c", [], T.BOOL)], [vi("z", [1, 128, "k"])],
                 "squeezing_if")


def squeeze_if_one_model() -> onnx.ModelProto:
    """z = -(shape(x)[2] == 1 ? squeeze(x, axis 2) : x), x [1, 128, k], as silero-vad's exporter
    writes it: once k is known the condition folds, and CondRemovePass keeps the branch taken
    (for k != 1 the other one cannot even be shape-inferred)."""
    ints = {"two": [2], "one": [1]}
    consts = [helper.make_node("Constant", [], [n], value=helper.make_tensor(n, T.INT64, [1], v))
              for n, v in ints.items()]
    then_g = helper.make_graph([helper.make_node("Squeeze", ["x", "two"], ["t"])], "then", [],
                               [vi("t", None)])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [],
                               [vi("e", None)])
    nodes = consts + [helper.make_node("Shape", ["x"], ["s"]),
                      helper.make_node("Gather", ["s", "two"], ["k"]),
                      helper.make_node("Equal", ["k", "one"], ["c1"]),
                      helper.make_node("Squeeze", ["c1"], ["c"]),
                      helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                                       else_branch=else_g),
                      helper.make_node("Neg", ["y"], ["z"])]
    proto = helper.make_model(helper.make_graph(nodes, "squeeze_if_one",
                                                [vi("x", [1, 128, "k"])], [vi("z", None)]),
                              opset_imports=[helper.make_opsetid("", 17)])
    return proto
