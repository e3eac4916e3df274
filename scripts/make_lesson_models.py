"""Writes the small models the lessons need (sample_models/*.onnx), byte for byte
the same on every run: seeded weights, a fixed IR version and opset, onnx.helper only.

    python scripts/make_lesson_models.py          # rewrites them
    python scripts/make_lesson_models.py --check  # exit 1 if a committed file differs

Each model is as small as its lesson allows, so every lesson replays in a few seconds:

    fold_and_infer      a shape computed from constants: InferShape and ConstantFoldingPass take
                        turns until nothing folds (lessons 02, 03)
    fusion_routes       a Conv > BatchNorm > Relu stem and an element-wise tail: the
                        hand-written pattern fusions beside autofuse (04)
    parallel_branches   three independent branches on AI Core, Vector and AI CPU that join:
                        logical streams, events, memory reuse across streams (05, 06, 07, 09)
    same_engine_branches three convolution branches from one input, all on the AI Core: how
                        many streams they get is ge.streamMaxParallelNum's to say (25)
    image_and_features  image normalisation the DVPP engine claims beside a Conv on the AI
                        Core: two engines, two streams, running at once (05)
    sync_patterns       a chain of convolutions read by a chain of vector ops across two
                        streams: the events GE inserts and the ones its optimisations drop (07)
    memory_reuse        two convolutions on one stream, three vector ops on another: a buffer
                        reused across streams where an event orders the two lives (09)
    long_chain          one long chain of element-wise ops: a stream longer than the device
                        allows is split (08)
    allreduce_step      a data-parallel training step: one gradient AllReduced (HCCL), the
                        next layer's compute independent of it (06, 13)
    if_loop             an If and a Loop: labels, and a branch's own stream started by its
                        StreamActive, on the device (18)
    switch_merge        TensorFlow's cond as GE's own Switch and Merge ops (not ONNX): a branch
                        per value of a bool, lowered to StreamSwitch, StreamActive and
                        StreamMerge across streams (24)
    dynamic_batch       a batch dim known only at run time: hybrid execution (15)
    scan_if             a Scan over a dynamic number of rows, then an If on their sum: control
                        flow hybrid (v2's If and While kernels) and sunk (labels) (18)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

OUT = Path(__file__).resolve().parent.parent / "sample_models"
IR_VERSION = 8    # fixed, not onnx.IR_VERSION: a newer onnx must write the same bytes
OPSET = 17


def _model(name: str, nodes: list, inputs: list, outputs: list,
           inits: list | None = None, check: bool = True) -> onnx.ModelProto:
    """``check=False`` for a model with GE's own ops (HcomAllReduce) or attributes
    (_performance_prior), which ONNX does not know."""
    graph = helper.make_graph(nodes, name, inputs, outputs, inits or [])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="gewb-lessons", ir_version=IR_VERSION)
    if check:
        onnx.checker.check_model(model)
    return model


def _vi(name: str, shape: list, elem: int = T.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _const(name: str, values, dtype=np.float32) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype), name)


def _weights(rng: np.random.Generator, name: str, *shape: int) -> onnx.TensorProto:
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    return _const(name, rng.standard_normal(shape) / np.sqrt(fan_in))


def same_engine_branches() -> onnx.ModelProto:
    """x feeds three Conv > Relu branches that meet in two Adds: one engine, three branches
    with nothing between them, so only the per-engine stream limit keeps them apart or
    together."""
    rng = np.random.default_rng(25)
    nodes = []
    for b in "abc":
        nodes += [helper.make_node("Conv", ["x", f"conv_{b}.w"], [f"{b}1"], f"conv_{b}",
                                   pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", [f"{b}1"], [f"{b}2"], f"relu_{b}")]
    nodes += [helper.make_node("Add", ["a2", "b2"], ["ab"], "join_ab"),
              helper.make_node("Add", ["ab", "c2"], ["out"], "join_c")]
    inits = [_weights(rng, f"conv_{b}.w", 4, 4, 3, 3) for b in "abc"]
    return _model("same_engine_branches", nodes, [_vi("x", [1, 4, 8, 8])],
                  [_vi("out", [1, 4, 8, 8])], inits)


def fold_and_infer() -> onnx.ModelProto:
    """y = Reshape(x, Concat(two, Mul(six, two))) + ConstantOfShape(Shape(that)), then a
    Reshape round trip and an Identity. Round 1 folds the Concat (its inputs are constants);
    only then does InferShape know the Reshape's output, so round 2 folds Shape and
    ConstantOfShape; round 3 finds nothing more. The node passes then collapse the round trip
    (a Reshape of a Reshape, then an identity Reshape) and drop the Identity."""
    nodes = [
        helper.make_node("Mul", ["six", "two"], ["twelve"], "mul_12"),
        helper.make_node("Concat", ["two", "twelve"], ["shape"], "concat_shape", axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["r"], "reshape"),
        helper.make_node("Shape", ["r"], ["r_shape"], "shape_of_r"),
        helper.make_node("ConstantOfShape", ["r_shape"], ["ones"], "ones_like_r",
                         value=helper.make_tensor("one", T.FLOAT, [1], [1.0])),
        helper.make_node("Add", ["r", "ones"], ["y"], "add_ones"),
        helper.make_node("Reshape", ["y", "flat"], ["y_flat"], "flatten"),
        helper.make_node("Reshape", ["y_flat", "shape_2x12"], ["y_back"], "unflatten"),
        helper.make_node("Identity", ["y_back"], ["y_id"], "identity"),
        helper.make_node("Relu", ["y_id"], ["out"], "relu"),
    ]
    inits = [_const("two", [2], np.int64), _const("six", [6], np.int64),
             _const("flat", [24], np.int64), _const("shape_2x12", [2, 12], np.int64)]
    return _model("fold_and_infer", nodes, [_vi("x", [2, 3, 4])], [_vi("out", [2, 12])], inits)


def fusion_routes() -> onnx.ModelProto:
    """A Conv > BatchNorm > Relu stem for the hand-written pattern fusions, then a second Conv
    and an element-wise tail, swish and an affine step: out = (c2 * sigmoid(c2) + b) * s. The
    tail is a chain autofuse takes whole; the Relu between the two Convs is a lone pointwise
    op, which autofuse leaves to ConvReluFusionPass."""
    rng = np.random.default_rng(4)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], "conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "gamma", "beta", "mean", "var"], ["n1"],
                         "bn1"),
        helper.make_node("Relu", ["n1"], ["r1"], "relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], "conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["c2"], ["g"], "sigmoid"),
        helper.make_node("Mul", ["c2", "g"], ["sw"], "swish"),
        helper.make_node("Add", ["sw", "b"], ["t"], "add_bias"),
        helper.make_node("Mul", ["t", "s"], ["out"], "scale"),
    ]
    inits = [_weights(rng, "w1", 4, 3, 3, 3), _weights(rng, "w2", 4, 4, 3, 3),
             _const("gamma", rng.uniform(0.5, 1.5, 4)), _const("beta", rng.uniform(-0.5, 0.5, 4)),
             _const("mean", rng.uniform(-0.5, 0.5, 4)), _const("var", rng.uniform(0.5, 1.5, 4)),
             _const("b", [0.25]), _const("s", [0.5])]
    return _model("fusion_routes", nodes, [_vi("x", [1, 3, 8, 8])], [_vi("out", [1, 4, 8, 8])],
                  inits)


def parallel_branches() -> onnx.ModelProto:
    """x feeds three branches that only meet at the end: convolutions (AI Core), element-wise
    arithmetic (Vector) and an ArgMax whose int64 result only the AI CPU takes."""
    rng = np.random.default_rng(14)
    nodes = [
        helper.make_node("Conv", ["x", "conv_a.w"], ["a1"], "conv_a", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a1"], ["a2"], "relu_a"),
        helper.make_node("Conv", ["a2", "conv_b.w"], ["a3"], "conv_b", pads=[1, 1, 1, 1]),
        helper.make_node("Mul", ["x", "scale"], ["v1"], "mul_v"),
        helper.make_node("Add", ["v1", "shift"], ["v2"], "add_v"),
        helper.make_node("Abs", ["v2"], ["v3"], "abs_v"),
        helper.make_node("ArgMax", ["x"], ["i1"], "argmax_c", axis=1, keepdims=1),
        helper.make_node("Cast", ["i1"], ["c1"], "cast_c", to=T.FLOAT),
        helper.make_node("Add", ["a3", "v3"], ["j1"], "join_av"),
        helper.make_node("Add", ["j1", "c1"], ["out"], "join_c"),
    ]
    inits = [_weights(rng, "conv_a.w", 4, 4, 3, 3), _weights(rng, "conv_b.w", 4, 4, 3, 3),
             _const("scale", [0.5]), _const("shift", [0.25])]
    return _model("parallel_branches", nodes, [_vi("x", [1, 4, 8, 8])],
                  [_vi("out", [1, 4, 8, 8])], inits)


def image_and_features() -> onnx.ModelProto:
    """Two inputs that meet at the end: an image normalised per channel, (img - mean) * scale,
    its Mul marked _performance_prior (how a framework asks for the DVPP engine), and a feature
    map through Conv and Relu (AI Core). The DVPP engine's optimizer fuses the Sub and Mul into
    a NormalizeV2 and claims it; the onnx checker does not know GE's private attribute."""
    rng = np.random.default_rng(5)
    nodes = [
        helper.make_node("Sub", ["img", "mean"], ["centred"], "sub_mean"),
        helper.make_node("Mul", ["centred", "scale"], ["norm"], "mul_scale",
                         _performance_prior=1),
        helper.make_node("Conv", ["feat", "w"], ["c"], "conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], "relu"),
        helper.make_node("Add", ["norm", "r"], ["out"], "join"),
    ]
    inits = [_const("mean", np.reshape([0.485, 0.456, 0.406], (1, 3, 1, 1))),
             _const("scale", np.reshape([4.37, 4.46, 4.44], (1, 3, 1, 1))),
             _weights(rng, "w", 3, 3, 3, 3)]
    return _model("image_and_features", nodes,
                  [_vi("img", [1, 3, 16, 16]), _vi("feat", [1, 3, 16, 16])],
                  [_vi("out", [1, 3, 16, 16])], inits, check=False)


def sync_patterns() -> onnx.ModelProto:
    """Four chained convolutions (AI Core, one stream) feed four vector ops (another stream):
    v1 = c2 + k, v2 = v1 * c1, v3 = v2 + c3 + c4, out = v3 * c4. Each cross-stream read starts
    as an event; GE's rules drop c4 -> out (the vector stream already waited for c4, at v3) and
    c3 -> v3 (c4's event to the same node comes later from the same stream); c1 -> v2 survives
    them, though c1 -> c2 -> v1 -> v2 already orders it: only the transitive reduction sees that."""
    rng = np.random.default_rng(7)
    nodes = [helper.make_node("Conv", [src, f"w{i}"], [f"c{i}"], f"conv_{i}", pads=[1, 1, 1, 1])
             for i, src in ((1, "x"), (2, "c1"), (3, "c2"), (4, "c3"))]
    nodes += [
        helper.make_node("Add", ["c2", "k"], ["v1"], "add_v1"),
        helper.make_node("Mul", ["v1", "c1"], ["v2"], "mul_v2"),
        helper.make_node("Sum", ["v2", "c3", "c4"], ["v3"], "sum_v3"),
        helper.make_node("Mul", ["v3", "c4"], ["out"], "mul_out"),
    ]
    inits = [_weights(rng, f"w{i}", 4, 4, 3, 3) for i in range(1, 5)] + [_const("k", [0.5])]
    return _model("sync_patterns", nodes, [_vi("x", [1, 4, 8, 8])], [_vi("out", [1, 4, 8, 8])],
                  inits)


def memory_reuse() -> onnx.ModelProto:
    """a = Conv(x), b = Conv(a) on AI Core; c = b * k, d = c + k, e = d - k, out = |e| on
    Vector. a is dead once conv_b has read it, and the event conv_b -> mul_c orders that before
    c is written on the other stream: the two may share a buffer."""
    rng = np.random.default_rng(9)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], "conv_a", pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["a", "w2"], ["b"], "conv_b", pads=[1, 1, 1, 1]),
        helper.make_node("Mul", ["b", "k"], ["c"], "mul_c"),
        helper.make_node("Add", ["c", "k"], ["d"], "add_d"),
        helper.make_node("Sub", ["d", "k"], ["e"], "sub_e"),
        helper.make_node("Abs", ["e"], ["out"], "abs_out"),
    ]
    inits = [_weights(rng, "w1", 4, 4, 3, 3), _weights(rng, "w2", 4, 4, 3, 3), _const("k", [0.5])]
    return _model("memory_reuse", nodes, [_vi("x", [1, 4, 8, 8])], [_vi("out", [1, 4, 8, 8])],
                  inits)


def long_chain(length: int = 24) -> onnx.ModelProto:
    """x, then ``length`` element-wise ops in one chain (Add, Mul, Sub by small constants, in
    turn): one stream of ``length`` kernel tasks, which nothing folds or fuses."""
    ops = ("Add", "Mul", "Sub")
    nodes, inits, prev = [], [], "x"
    for i in range(length):
        op = ops[i % 3]
        inits.append(_const(f"k{i}", [1.0 + i / 64]))
        nodes.append(helper.make_node(op, [prev, f"k{i}"], [f"t{i}"], f"{op.lower()}_{i}"))
        prev = f"t{i}"
    nodes.append(helper.make_node("Relu", [prev], ["out"], "relu"))
    return _model("long_chain", nodes, [_vi("x", [4, 16])], [_vi("out", [4, 16])], inits)


def allreduce_step() -> onnx.ModelProto:
    """grad_1 = x @ w1 is AllReduced across devices (HcomAllReduce, fusion 1: it may overlap the
    computation after it), then w1 -= lr * grad; grad_2 = x @ w2 and its Relu do not wait for
    the collective. GE's Hcom ops are not ONNX's: the checker is skipped."""
    rng = np.random.default_rng(6)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["g1"], "grad_1"),
        helper.make_node("HcomAllReduce", ["g1"], ["r1"], "allreduce_1", reduction="sum",
                         group="hccl_world_group", fusion=1),
        helper.make_node("Mul", ["r1", "lr"], ["u1"], "scale_1"),
        helper.make_node("Sub", ["w1", "u1"], ["w1_new"], "update_1"),
        helper.make_node("MatMul", ["x", "w2"], ["g2"], "grad_2"),
        helper.make_node("Relu", ["g2"], ["out2"], "relu_2"),
    ]
    inits = [_weights(rng, "w1", 8, 8), _weights(rng, "w2", 8, 8), _const("lr", [0.1])]
    return _model("allreduce_step", nodes, [_vi("x", [8, 8])],
                  [_vi("w1_new", [8, 8]), _vi("out2", [8, 8])], inits, check=False)


def if_loop() -> onnx.ModelProto:
    """acc = Loop 3 times (acc + x), then If(c) -> Relu(acc * 2) else -acc: both become label
    jumps, and the then branch's two engines (Vector, AI Core) give it a stream of its own
    that the branch's StreamActive starts."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], "loop_cond"),
         helper.make_node("Add", ["acc_in", "x"], ["acc_out"], "loop_add")],
        "loop_body",
        [_vi("i", [], T.INT64), _vi("cond_in", [], T.BOOL), _vi("acc_in", [2, 4])],
        [_vi("cond_out", [], T.BOOL), _vi("acc_out", [2, 4])])
    then_g = helper.make_graph([helper.make_node("Add", ["acc", "acc"], ["doubled"], "double"),
                                helper.make_node("Relu", ["doubled"], ["kept"], "keep")],
                               "then_branch", [], [_vi("kept", [2, 4])])
    else_g = helper.make_graph([helper.make_node("Neg", ["acc"], ["negated"], "negate")],
                               "else_branch", [], [_vi("negated", [2, 4])])
    nodes = [
        helper.make_node("Loop", ["trips", "", "x"], ["acc"], "loop", body=body),
        helper.make_node("If", ["c"], ["y"], "branch", then_branch=then_g, else_branch=else_g),
        helper.make_node("Relu", ["y"], ["out"], "relu"),
    ]
    return _model("if_loop", nodes, [_vi("x", [2, 4]), _vi("c", [], T.BOOL)],
                  [_vi("out", [2, 4])], [_const("trips", 3, np.int64)])


def switch_merge() -> onnx.ModelProto:
    """out = Merge(c ? Relu((x + 1) * 2) : -(x + 1)) + 1, written as TensorFlow's cond is:
    Switch(h, c) gives h = x + 1 to one branch only; Merge takes the result of the branch that
    ran. Switch and Merge are GE's ops (no ONNX schema), so the model is not checked."""
    nodes = [
        helper.make_node("Add", ["x", "one"], ["h"], "shift"),
        helper.make_node("Switch", ["h", "c"], ["h_f", "h_t"], "switch"),
        helper.make_node("Neg", ["h_f"], ["neg"], "negate"),
        helper.make_node("Mul", ["h_t", "two"], ["twice"], "double"),
        helper.make_node("Relu", ["twice"], ["kept"], "keep"),
        helper.make_node("Merge", ["neg", "kept"], ["merged"], "merge"),
        helper.make_node("Add", ["merged", "one"], ["out"], "add_one"),
    ]
    return _model("switch_merge", nodes, [_vi("x", [2, 4]), _vi("c", [], T.BOOL)],
                  [_vi("out", [2, 4])], [_const("two", 2.0), _const("one", 1.0)], check=False)


def dynamic_batch(chain: int = 8) -> onnx.ModelProto:
    """A conv, a chain of ``chain`` element-wise ops, a global pool; the batch dim is a name,
    not a number, so every shape is known only per run. Ten kernels: enough for the host's
    per-task launch cost to show against a sunk run."""
    rng = np.random.default_rng(15)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], "conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["t0"], "relu")]
    inits = [_weights(rng, "w", 4, 3, 3, 3)]
    for i in range(chain):
        op = ("Mul", "Add")[i % 2]
        inits.append(_const(f"k{i}", [1.0 + i / 16]))
        nodes.append(helper.make_node(op, [f"t{i}", f"k{i}"], [f"t{i + 1}"], f"{op.lower()}_{i}"))
    nodes += [helper.make_node("GlobalAveragePool", [f"t{chain}"], ["g"], "gap"),
              helper.make_node("Flatten", ["g"], ["out"], "flatten")]
    return _model("dynamic_batch", nodes, [_vi("x", ["batch", 3, 8, 8])],
                  [_vi("out", ["batch", 4])], inits)


def scan_if() -> onnx.ModelProto:
    """ys = the running sums of x's rows (a Scan over x[batch, 4]); if their total passes 2,
    halve them, else double them. The batch is a name: the Scan's trip count and the If's
    condition are known only per run."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"], "running_add"),
         helper.make_node("Identity", ["s_out"], ["y_t"], "emit")],
        "scan_body", [_vi("s_in", [4]), _vi("x_t", [4])], [_vi("s_out", [4]), _vi("y_t", [4])])
    then_g = helper.make_graph([helper.make_node("Mul", ["ys", "half"], ["halved"], "halve")],
                               "then_branch", [], [_vi("halved", ["batch", 4])])
    else_g = helper.make_graph([helper.make_node("Add", ["ys", "ys"], ["doubled"], "double")],
                               "else_branch", [], [_vi("doubled", ["batch", 4])])
    nodes = [
        helper.make_node("Scan", ["zeros", "x"], ["total", "ys"], "scan", body=body,
                         num_scan_inputs=1),
        helper.make_node("ReduceSum", ["total"], ["sum"], "sum", keepdims=0),
        helper.make_node("Greater", ["sum", "limit"], ["c"], "over_limit"),
        helper.make_node("If", ["c"], ["out"], "branch", then_branch=then_g, else_branch=else_g),
    ]
    inits = [_const("zeros", np.zeros(4)), _const("limit", 2.0), _const("half", 0.5)]
    return _model("scan_if", nodes, [_vi("x", ["batch", 4])], [_vi("out", ["batch", 4])], inits)


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "fold_and_infer": fold_and_infer,
    "fusion_routes": fusion_routes,
    "parallel_branches": parallel_branches,
    "same_engine_branches": same_engine_branches,
    "image_and_features": image_and_features,
    "sync_patterns": sync_patterns,
    "memory_reuse": memory_reuse,
    "long_chain": long_chain,
    "allreduce_step": allreduce_step,
    "if_loop": if_loop,
    "switch_merge": switch_merge,
    "dynamic_batch": dynamic_batch,
    "scan_if": scan_if,
}


def model_bytes() -> dict[str, bytes]:
    return {f"{name}.onnx": build().SerializeToString() for name, build in MODELS.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing them")
    args = parser.parse_args(argv)
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in model_bytes().items():
        path = OUT / name
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(name)
            continue
        path.write_bytes(data)
        print(f"wrote {path} ({len(data)} bytes)")
    for name in stale:
        print(f"{OUT / name} differs from what the script writes", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
