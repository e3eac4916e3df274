"""Each fusion pass: the rewrite, validate() after it, and the host executor's numbers.

Tolerances: ConvBias, ConvRelu, BatchNormRelu and MatMulAdd compute exactly the same float32
operations in the same order, so they must match bit for bit. Folding a BN into a Conv's weights
(or a Mul/Add into a BN) rounds differently: W * f is rounded once per weight instead of once per
output, so outputs move by a few float32 ulps of the *largest* values a dot product sums over;
relative to a near-zero output (from cancellation) that is unbounded. Hence rtol 1e-4 plus an
atol of 1e-5 x the output's largest magnitude (what pass_equivalence also uses).
"""
import pytest

from ge_core.graph import DataType, GeShape, GeTensorDesc, GraphUtils, dump_graph
from ge_core.graph.attr_names import ENGINE
from ge_core.ops import InferShapeError, infer_shape
from ge_core.pattern_fusion import (BatchNormMulAddFusionPass, BatchNormReluFusionPass,
                                    ConvBatchnormFusionPass, ConvBiasAddFusionPass,
                                    ConvEltwiseReluFusionPass, ConvReluFusionPass,
                                    MatMulAddFusionPass, ShuffleChannelConvFusionPass,
                                    fusion_passes)
from fusion_testing import GraphBuilder, node, run_and_compare

FOLD_TOL = {"rtol": 1e-4, "atol_scale": 1e-5}
X = (1, 4, 6, 6)


def conv_bn(opset=None, group=1, bias=False, **bn_attrs):
    b = GraphBuilder(opset)
    x = b.data("x", X)
    extra = (b.weight("conv_b", (8,)),) if bias else ()
    conv = b.op("Conv", "conv", x, b.weight("w", (8, 4 // group, 3, 3)), *extra, group=group,
                pads=[1, 1, 1, 1])
    b.output(b.bn("bn", conv, 8, epsilon=1e-3, **bn_attrs))
    return b


def test_conv_bn_folds_into_new_weights():
    b = conv_bn()
    assert run_and_compare(b, ConvBatchnormFusionPass(), **FOLD_TOL) == [1]
    assert dump_graph(b.graph) == """\
graph g (5 nodes)
  %x : Data() -> f32[1,4,6,6] => [%bn:0] {index=0}
  %bn_weight : Const() -> f32[8,4,3,3] => [%bn:1] {value=<f32[8,4,3,3]>}
  %bn_bias : Const() -> f32[8] => [%bn:2] {value=<f32[8]>}
  %bn : Conv(%x:0, %bn_weight:0, %bn_bias:0) -> f32[1,8,6,6] => [%out:0] \
{_datadump_original_op_names=['conv','bn'], group=1, pads=[1,1,1,1]}
  %out : NetOutput(%bn:0) -> ()
"""


@pytest.mark.parametrize("group, bias, opset, bn_attrs", [
    (2, False, None, {}), (4, True, 9, {}), (1, True, 14, {"training_mode": 0}),
    (1, True, 6, {"is_test": 1, "spatial": 1, "outputs": 5}),  # BN-6's unread statistics
])
def test_conv_bn_folds_grouped_and_biased_convs_at_any_opset(group, bias, opset, bn_attrs):
    b = conv_bn(opset, group, bias, **bn_attrs)
    assert run_and_compare(b, ConvBatchnormFusionPass(), **FOLD_TOL) == [1]
    assert [n.type for n in b.graph if n.type not in ("Const", "Data", "NetOutput")] == ["Conv"]


@pytest.mark.parametrize("opset, attrs", [(7, {"spatial": 0}), (14, {"training_mode": 1})])
def test_conv_bn_leaves_a_bn_that_is_not_per_channel_inference(opset, attrs):
    b = conv_bn(opset, **attrs)
    assert ConvBatchnormFusionPass().run(b.graph) is False


def test_conv_bn_leaves_a_bn_whose_statistics_are_read():
    b = conv_bn(6, outputs=5)
    bn = node(b.graph, "bn")
    GraphUtils.add_edge(bn.out_data_anchors[1], node(b.graph, "out").add_input())
    assert ConvBatchnormFusionPass().run(b.graph) is False


def test_conv_bn_needs_constant_weights():
    b = GraphBuilder()
    conv = b.op("Conv", "conv", b.data("x", X), b.data("w", (6, 4, 3, 3)))
    b.output(b.bn("bn", conv, 6))
    assert ConvBatchnormFusionPass().run(b.graph) is False


def conv_add(c_shape, opset=None, const_first=False, **add_attrs):
    b = GraphBuilder(opset)
    conv = b.op("Conv", "conv", b.data("x", X), b.weight("w", (6, 4, 3, 3)))
    c = b.weight("c", c_shape)
    b.output(b.op("Add", "add", *((c, conv) if const_first else (conv, c)), **add_attrs))
    return b


@pytest.mark.parametrize("c_shape, opset, const_first, attrs", [
    ((6, 1, 1), None, False, {}),
    ((1, 6, 1, 1), None, True, {}),              # the bias on the left of a commutative Add
    ((), None, False, {}),                       # a scalar: the same bias on every channel
    ((6,), 6, False, {"broadcast": 1, "axis": 1}),
])
def test_conv_bias_add_takes_a_per_channel_constant_as_bias(c_shape, opset, const_first, attrs):
    b = conv_add(c_shape, opset, const_first, **attrs)
    assert run_and_compare(b, ConvBiasAddFusionPass()) == [1]
    assert node(b.graph, "add").type == "Conv"
    assert node(b.graph, "add_bias").op_desc.output_descs[0].shape.dims == (6,)


@pytest.mark.parametrize("c_shape, opset, const_first, attrs", [
    ((4,), None, False, {}),                     # numpy aligns [C] with W, not C
    ((1, 6, 4, 4), None, False, {}),             # varies over H, W
    ((2, 6, 1, 1), None, False, {}),             # would widen N
])
def test_conv_bias_add_leaves_other_adds(c_shape, opset, const_first, attrs):
    if c_shape == (4,):
        b = GraphBuilder()
        conv = b.op("Conv", "conv", b.data("x", (1, 4, 4, 4)), b.weight("w", (6, 4, 1, 1)))
        b.output(b.op("Add", "add", conv, b.weight("c", (4,))))
    else:
        b = conv_add(c_shape, opset, const_first, **attrs)
    assert ConvBiasAddFusionPass().run(b.graph) is False


@pytest.mark.parametrize("const_first, attrs", [
    (False, {"broadcast": 1}),                   # without axis: suffix-aligned, with W
    (True, {"broadcast": 1, "axis": 1}),         # only the right operand broadcasts
])
def test_opset_6_adds_the_legacy_rule_refuses_never_reach_the_pass(const_first, attrs):
    """Their kernel would refuse them too: InferShape does, before any pass sees one."""
    with pytest.raises(InferShapeError, match="opset 6 broadcasts only b, and only when asked"):
        conv_add((6,), 6, const_first, **attrs)


def test_conv_relu_becomes_a_fused_conv_with_conv_inferred_shape():
    b = GraphBuilder()
    conv = b.op("Conv", "conv", b.data("x", X), b.weight("w", (6, 4, 3, 3)), b.weight("b", (6,)),
                strides=[2, 2])
    b.output(b.op("Relu", "relu", conv))
    assert run_and_compare(b, ConvReluFusionPass()) == [1]
    fused = node(b.graph, "relu")
    assert fused.type == "FusedConv"
    assert fused.op_desc.get_attr("activation") == "Relu"
    assert fused.op_desc.get_attr("strides") == [2, 2]
    fused.op_desc.output_descs[0] = GeTensorDesc()  # forget it: InferShape must find it again
    infer_shape(fused)
    assert fused.op_desc.output_descs[0].shape.dims == (1, 6, 2, 2)


@pytest.mark.parametrize("add, bias, conv_first", [("Add", True, False), ("Sum", False, True)])
def test_conv_add_relu_becomes_a_fused_conv_with_the_addend_as_z(add, bias, conv_first):
    # ResNet's residual join: the shortcut (here another branch's Relu) added to the last conv
    b = GraphBuilder()
    x = b.data("x", X)
    shortcut = b.op("Relu", "shortcut", b.op("Conv", "proj", x, b.weight("wp", (6, 4, 1, 1))))
    extra = (b.weight("b", (6,)),) if bias else ()
    conv = b.op("Conv", "conv", x, b.weight("w", (6, 4, 3, 3)), *extra, pads=[1, 1, 1, 1])
    b.output(b.op("Relu", "relu", b.op(add, "add", *(
        (conv, shortcut) if conv_first else (shortcut, conv)))))
    assert run_and_compare(b, ConvEltwiseReluFusionPass()) == [1]   # bit for bit
    fused = node(b.graph, "relu")
    assert fused.type == "FusedConv" and fused.op_desc.get_attr("activation") == "Relu"
    assert fused.op_desc.get_attr("pads") == [1, 1, 1, 1]
    assert [a.peer.owner.name if a.peer else None for a in fused.in_data_anchors] == \
        ["x", "w", "b" if bias else None, "shortcut"]
    assert {n.type for n in b.graph} == {"Data", "Const", "Conv", "Relu", "FusedConv",
                                         "NetOutput"}


def test_a_fused_conv_whose_z_does_not_fit_its_output_fails_infer_shape():
    b = GraphBuilder()
    x = b.data("x", X)
    conv = b.op("Conv", "conv", x, b.weight("w", (6, 4, 3, 3)), pads=[1, 1, 1, 1])
    b.output(b.op("Relu", "relu", b.op("Add", "add", conv, b.data("z", (1, 6, 6, 6)))))
    ConvEltwiseReluFusionPass().run(b.graph)
    fused = node(b.graph, "relu")
    fused.op_desc.update_input_desc(3, GeTensorDesc(GeShape((1, 6, 6, 1)), DataType.DT_FLOAT))
    with pytest.raises(InferShapeError, match=r"Z \[1, 6, 6, 1\] is not the conv output"):
        infer_shape(fused)


def leaves(kind):
    """Conv -> Add -> Relu chains ConvEltwiseReluFusionPass must leave alone."""
    b = GraphBuilder()
    x = b.data("x", X)
    conv = b.op("Conv", "conv", x, b.weight("w", (4, 4, 3, 3)), pads=[1, 1, 1, 1])
    outs = []
    if kind == "broadcast z":   # a per-channel addend: Z would be added with broadcasting
        add = b.op("Add", "add", conv, b.weight("c", (4, 1, 1)))
    elif kind == "conv read elsewhere":
        add = b.op("Add", "add", conv, x)
        outs.append(conv)
    elif kind == "sum of three":
        add = b.op("Sum", "add", conv, x, x)
    elif kind == "conv off the ai core":   # placed on the AI CPU: the AI Core was excluded
        add = b.op("Add", "add", conv, x)
        conv.owner.op_desc.set_attr(ENGINE, "DNN_VM_AICPU")
    else:   # "conv twice": Z would be the fused node's own output
        add = b.op("Add", "add", conv, conv)
    b.output(b.op("Relu", "relu", add), *outs)
    return b


@pytest.mark.parametrize("kind", ["broadcast z", "conv read elsewhere", "sum of three",
                                  "conv twice", "conv off the ai core"])
def test_conv_eltwise_relu_leaves_what_it_cannot_fuse(kind):
    b = leaves(kind)
    assert run_and_compare(b, ConvEltwiseReluFusionPass()) == [0]
    assert node(b.graph, "relu").type == "Relu"


def shuffle_conv(kind="depthwise", group=2, c=6, stride=1, split=None, perm=(0, 2, 1, 3, 4),
                 spare=False, shuffled_before=False):
    """ShuffleNet's channel shuffle (Reshape -> Transpose -> Reshape) feeding a Conv
    (``shuffled_before``: its input a shuffle in 3 groups itself)."""
    b = GraphBuilder()
    x = b.data("x", (1, c, 6, 6))
    if shuffled_before:
        x = b.op("Reshape", "merge0", b.op(
            "Transpose", "swap0", b.op("Reshape", "split0", x, b.const("s0", (1, 3, c // 3, 6, 6))),
            perm=[0, 2, 1, 3, 4]), b.const("s3", (1, c, 6, 6)))
    split = split or (1, group, c // group, 6, 6)
    swap = b.op("Transpose", "swap", b.op("Reshape", "split", x, b.const("s1", split)),
                perm=list(perm))
    merged = b.op("Reshape", "merge", swap, b.const("s2", (1, c, 6, 6)))
    if kind == "depthwise":   # as ShuffleNet: one 3x3 kernel per channel, a bias
        conv = b.op("Conv", "conv", merged, b.weight("w", (c, 1, 3, 3)), b.weight("b", (c,)),
                    group=c, pads=[1, 1, 1, 1], strides=[stride, stride])
    else:   # a dense conv: the kernel shuffles a copy first
        conv = b.op("Conv", "conv", merged, b.weight("w", (4, c, 3, 3)), pads=[1, 1, 1, 1])
    b.output(conv, *([swap] if spare else []))
    return b


@pytest.mark.parametrize("kind, group, stride", [("depthwise", 2, 1), ("depthwise", 3, 2),
                                                 ("dense", 2, 1)])
def test_a_channel_shuffle_before_a_conv_becomes_the_convs_input_order(kind, group, stride):
    b = shuffle_conv(kind, group, stride=stride)
    assert run_and_compare(b, ShuffleChannelConvFusionPass()) == [1]   # bit for bit
    conv = node(b.graph, "conv")
    assert conv.op_desc.get_attr("input_shuffle_group") == group
    assert conv.in_data_nodes()[0].name == "x"
    assert {n.type for n in b.graph} == {"Data", "Const", "Conv", "NetOutput"}


def test_a_conv_takes_one_shuffle_the_one_before_it_stays():
    # two shuffles in a row: the Conv takes the second; the first, before a Conv that shuffles
    # already, stays (two shuffles of different groups are no one shuffle)
    b = shuffle_conv(shuffled_before=True)
    assert run_and_compare(b, ShuffleChannelConvFusionPass()) == [1]   # bit for bit
    assert node(b.graph, "conv").op_desc.get_attr("input_shuffle_group") == 2
    assert node(b.graph, "swap0").type == "Transpose"


@pytest.mark.parametrize("kind", ["not a swap of the group axes", "split on another axis",
                                  "shuffle read elsewhere", "conv off the ai core"])
def test_shuffle_channel_conv_leaves_what_is_no_channel_shuffle(kind):
    if kind == "not a swap of the group axes":
        b = shuffle_conv(perm=(0, 1, 2, 4, 3))
    elif kind == "split on another axis":   # (1, 6, 2, 3, 6): rows split, not channels
        b = shuffle_conv(split=(1, 6, 2, 3, 6), perm=(0, 2, 1, 3, 4))
    elif kind == "shuffle read elsewhere":
        b = shuffle_conv(spare=True)
    else:
        b = shuffle_conv()
        node(b.graph, "conv").op_desc.set_attr(ENGINE, "DNN_VM_AICPU")
    assert run_and_compare(b, ShuffleChannelConvFusionPass()) == [0]
    assert node(b.graph, "swap").type == "Transpose"


def preactivation_bn():
    """DenseNet's pre-activation: pool -> BN -> Mul -> Add -> Relu -> Conv (a BN with no Conv
    before it, and a Caffe2 affine after it)."""
    b = GraphBuilder()
    pool = b.op("MaxPool", "pool", b.data("x", X), kernel_shape=[2, 2])
    bn = b.bn("bn", pool, 4)
    mul = b.op("Mul", "mul", bn, b.weight("k", (4, 1, 1)))
    add = b.op("Add", "add", b.weight("c", (4, 1, 1)), mul)
    relu = b.op("Relu", "relu", add)
    b.output(b.op("Conv", "conv", relu, b.weight("w", (6, 4, 1, 1))))
    return b


def test_batchnorm_mul_add_folds_the_affine_and_batchnorm_relu_fuses_what_is_left():
    b = preactivation_bn()
    counts = run_and_compare(b, BatchNormMulAddFusionPass(), ConvBatchnormFusionPass(),
                             BatchNormReluFusionPass(), **FOLD_TOL)
    assert counts == [2, 0, 1]
    fused = node(b.graph, "relu")
    assert fused.type == "FusedBatchNormRelu"
    assert fused.op_desc.attrs == {"epsilon": 1e-5,
                                   "_datadump_original_op_names": ["bn", "mul", "add", "relu"]}


def test_batchnorm_relu_alone_is_exact():
    b = GraphBuilder()
    b.output(b.op("Relu", "relu", b.bn("bn", b.data("x", X), 4, epsilon=1e-3)))
    assert run_and_compare(b, BatchNormReluFusionPass()) == [1]
    assert node(b.graph, "relu").op_desc.get_attr("epsilon") == 1e-3


def matmul_add(a_shape, c_shape, opset=None, **add_attrs):
    """Add(c, MatMul) from opset 7, Add(MatMul, c) before (only the right operand broadcast)."""
    b = GraphBuilder(opset)
    mm = b.op("MatMul", "mm", b.data("a", a_shape), b.weight("w", (a_shape[-1], 5)))
    c = b.weight("c", c_shape)
    b.output(b.op("Add", "add", *((mm, c) if opset and opset < 7 else (c, mm)), **add_attrs))
    return b


@pytest.mark.parametrize("c_shape, opset, attrs", [
    ((5,), None, {}), ((1, 5), None, {}), ((3, 5), None, {}), ((5,), 6, {"broadcast": 1})])
def test_matmul_add_becomes_gemm(c_shape, opset, attrs):
    b = matmul_add((3, 4), c_shape, opset, **attrs)
    assert run_and_compare(b, MatMulAddFusionPass()) == [1]
    gemm = node(b.graph, "add")
    assert gemm.type == "Gemm"
    assert gemm.op_desc.get_attr("broadcast") == (1 if opset == 6 else None)


@pytest.mark.parametrize("a_shape, c_shape", [((2, 3, 4), (5,)), ((1, 4), (3, 5))])
def test_matmul_add_stays_when_gemm_would_differ(a_shape, c_shape):
    # A batched MatMul has no Gemm form; a bias of 3 rows would widen a 1-row product.
    b = matmul_add(a_shape, c_shape)
    assert MatMulAddFusionPass().run(b.graph) is False


def test_the_pipeline_fuses_conv_bn_bias_relu_chains_in_one_sweep_each():
    b = GraphBuilder()
    x = b.data("x", X)
    conv = b.op("Conv", "c1", x, b.weight("w1", (6, 4, 3, 3)), pads=[1, 1, 1, 1])
    y = b.op("Relu", "r1", b.bn("bn1", conv, 6))
    conv2 = b.op("Conv", "c2", y, b.weight("w2", (4, 6, 1, 1)))
    y2 = b.op("Relu", "r2", b.op("Add", "a2", conv2, b.weight("bias2", (4, 1, 1))))
    b.output(b.op("Sum", "sum", y2, x))
    counts = run_and_compare(b, *fusion_passes(), **FOLD_TOL)
    assert counts == [0, 1, 1, 2, 0, 0, 0, 0]
    assert [n.type for n in b.graph.topological_sort() if n.type not in ("Const", "Data")] == [
        "FusedConv", "FusedConv", "Sum", "NetOutput"]
