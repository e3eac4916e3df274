"""The passes on the nine light models the onnx wheel ships (weights made at run time by
ConstantOfShape): every ConstantOfShape under the size guard folds, every pass keeps the host
executor's outputs bit for bit, and the result still matches the shipped output."""
import numpy as np
import pytest

from ge_core.executor import HostExecutor
from ge_core.graph import validate
from ge_core.compiler.pass_lists import infer_shape_for_preprocess
from ge_core.passes import NodePassGroup, PassManager
from ge_core.passes.cast_remove_pass import CastRemovePass
from ge_core.passes.common_subexpression_elimination_pass import CommonSubexpressionEliminationPass
from ge_core.passes.constant_fuse_same_pass import ConstantFuseSamePass
from ge_core.passes.dimension_adjust_pass import DimensionAdjustPass
from ge_core.passes.identity_pass import IdentityPass
from ge_core.passes.prune_pass import PrunePass
from ge_core.passes.reshape_recovery_pass import ReshapeRecoveryPass
from ge_core.passes.reshape_remove_pass import ReshapeRemovePass
from ge_core.passes.transpose_transpose_fusion_pass import TransposeTransposeFusionPass
from pass_testing import light, types

MODELS = ["bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50", "shufflenet",
          "squeezenet", "vgg19", "zfnet512"]
# Weights over the 64 MiB folding guard: fc6 of AlexNet, ZFNet-512 and VGG-19.
UNFOLDED = {"bvlc_alexnet": 1, "vgg19": 1, "zfnet512": 1}


def manager() -> PassManager:
    node_passes = [DimensionAdjustPass(), ReshapeRemovePass(), CastRemovePass(),
                   IdentityPass(), TransposeTransposeFusionPass()]
    passes = [infer_shape_for_preprocess(), ConstantFuseSamePass(),
              CommonSubexpressionEliminationPass(), NodePassGroup("NodePasses", node_passes),
              ReshapeRecoveryPass(), PrunePass()]
    pm = PassManager("OptimizeOriginalGraph")
    for p in passes:
        pm.add_pass(p.name, p)
    return pm


def output(graph, x) -> np.ndarray:
    (y,) = HostExecutor(graph).run([x]).values()
    return y


def test_resnet50_folds_every_constant_of_shape_and_keeps_its_output():
    g, x, expected = light("resnet50")
    compute = {t: n for t, n in types(g).items() if t not in ("Const", "ConstantOfShape")}
    assert types(g)["ConstantOfShape"] == 239
    manager().run(g)
    validate(g)
    after = types(g)
    assert after["ConstantOfShape"] == 0
    assert {t: n for t, n in after.items() if t != "Const"} == compute
    np.testing.assert_allclose(output(g, x), expected, rtol=1e-3, atol=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_every_pass_keeps_the_numbers_on_every_light_model(name):
    g, x, expected = light(name)
    want = output(g, x)
    pm = manager()
    for step in pm.iter_run(g):
        if step.kind == "pass" and pm.history[-1].changed:
            validate(g)
            got = output(g, x)
            assert got.dtype == want.dtype, step.name
            np.testing.assert_array_equal(got, want, err_msg=f"after {step.name}")
    assert types(g)["ConstantOfShape"] == UNFOLDED.get(name, 0)
    np.testing.assert_allclose(output(g, x), expected, rtol=1e-3, atol=1e-7)
