"""The fusions on the light models (onnx/backend/test/data/light): how many matches each finds,
validate() after, and the outputs.

The light models' weights are ConstantOfShape(0.02) nodes, so Prepare's InferShapeForPreprocess
runs first to turn them into Consts the patterns can fold. With such weights every class gets the
same score (the shipped output is a flat 0.001), which a broken fold would still produce; so the
BN-bearing models also run with seeded random weights (light-random's), before and after fusion.
"""
from __future__ import annotations

import os

import numpy as np
import onnx
import pytest

from ge_core.executor import HostExecutor
from ge_core.graph import ComputeGraph, validate
from ge_core.compiler.pass_lists import infer_shape_for_preprocess
from ge_core.parser import parse_onnx
from ge_core.passes import PassManager
from ge_core.pattern_fusion import FUSION_PASSES, fusion_passes
from workbench.conformance.light_random import randomise_weights
from workbench.conformance.suites import DATA_DIR, dummy_feeds, load_pb

# model -> rewrites per pass, in FUSION_PASSES order: BatchNormMulAdd, ConvBatchNorm, ConvBiasAdd,
# ConvRelu, BatchNormRelu, MatMulAdd, ConvEltwiseRelu, ShuffleChannelConv. ResNet-50's 16 Relus
# after a Sum and ShuffleNet's 13 after a Sum take the Conv before them with it; ShuffleNet's
# after a Concat stay; DenseNet's 62 BNs after a Concat or pool fuse with their Relu instead;
# ShuffleNet's 16 depthwise convs each take the channel shuffle before them.
MATCHES = {
    "bvlc_alexnet": (0, 0, 0, 5, 0, 0, 0, 0),
    "densenet121": (242, 59, 0, 59, 62, 0, 0, 0),
    "inception_v1": (0, 0, 0, 57, 0, 0, 0, 0),
    "inception_v2": (138, 69, 0, 69, 0, 0, 0, 0),
    "resnet50": (0, 53, 0, 33, 0, 0, 16, 0),
    "shufflenet": (0, 49, 0, 17, 0, 0, 13, 16),
    "squeezenet": (0, 0, 0, 26, 0, 0, 0, 0),
    "vgg19": (0, 0, 0, 16, 0, 0, 0, 0),
    "zfnet512": (0, 0, 0, 5, 0, 0, 0, 0),
}
# Folding BN into weights rounds differently (see test_fusion_passes); the outputs are softmax
# probabilities, so the atol is scaled by their largest value.
RTOL, ATOL_SCALE = 1e-4, 1e-5


def light_path(name: str) -> str:
    return os.path.join(DATA_DIR, "light", f"light_{name}.onnx")


def folded(model: str | onnx.ModelProto) -> ComputeGraph:
    graph = parse_onnx(model)
    fold = infer_shape_for_preprocess()
    PassManager("Prepare").add_pass(fold.name, fold).run(graph)
    return graph


def fuse(graph: ComputeGraph) -> list[int]:
    """Every fusion pass through a PassManager; validate(); rewrites per pass."""
    manager = PassManager("fusion")
    passes = fusion_passes()
    for p in passes:
        manager.add_pass(p.name, p)
    manager.run(graph)
    validate(graph)
    return [len(p.fused) for p in passes]


@pytest.mark.parametrize("name", MATCHES)
def test_fusions_on_a_light_model_keep_the_shipped_output(name):
    model = onnx.load(light_path(name))
    graph = folded(light_path(name))
    counts = fuse(graph)
    assert dict(zip([p.name for p in FUSION_PASSES], counts)) == \
        dict(zip([p.name for p in FUSION_PASSES], MATCHES[name]))
    (got,) = HostExecutor(graph).run(dummy_feeds(model)).values()
    want = load_pb(light_path(name)[:-5] + "_output_0.pb", model.graph.output[0].type)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-7)  # the suite's own tolerances


def test_every_conv_bn_pair_of_resnet50_fuses():
    before, after = folded(light_path("resnet50")), folded(light_path("resnet50"))
    fuse(after)
    convs = [n for n in before if n.type == "Conv"]
    assert len(convs) == 53
    assert all(n.out_data_nodes()[0].type == "BatchNormalization" for n in convs)
    assert not [n for n in after if n.type == "BatchNormalization"]
    fused = [n for n in after if n.type == "FusedConv"]
    assert sum(1 for n in after if n.type == "Conv") == 4 and len(fused) == 49
    # each block's last conv takes the shortcut's sum and its Relu: Z, the fourth input
    assert sum(1 for n in fused if len(n.in_data_anchors) == 4) == 16


@pytest.mark.slow
@pytest.mark.parametrize("name", ["resnet50", "densenet121", "inception_v2", "shufflenet"])
def test_fusions_keep_the_numbers_with_random_weights(name):
    model = randomise_weights(onnx.load(light_path(name)), seed=0)
    feeds = dummy_feeds(model, seed=0, random=True)
    before, after = folded(model), folded(model)
    fuse(after)
    (want,) = HostExecutor(before).run(feeds).values()
    (got,) = HostExecutor(after).run(feeds).values()
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL_SCALE * float(np.abs(want).max()))
