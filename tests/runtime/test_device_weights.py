"""A loaded model's weights in device memory: what kernels derive from them (BatchNormalization's
coefficients, Winograd's U) is kept from run to run while the device vouches that nothing wrote
them, and derived again after a write does (op_impl/prepared.py, DeviceMemory.mark_constant)."""
import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from ge_core.atc import atc
from ge_core.compiler import CompileOptions
from ge_core.compiler.model_builder import BuildOptions
from ge_core.parser import parse_onnx
from npu_emu.core.kernel_task import KernelTask
from npu_emu.op_impl import nn, prepared
from v1_testing import device_world, load


def _batch_norm(params: list[np.ndarray]) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])], "bn",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 4, 3, 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 4, 3, 3])],
        [numpy_helper.from_array(a, n) for a, n in zip(params, "sbmv")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])


def test_kernels_follow_weights_rewritten_in_device_memory(monkeypatch):
    rng = np.random.default_rng(5)
    params = [rng.standard_normal(4).astype(np.float32) for _ in range(3)]
    params.append(np.abs(rng.standard_normal(4)).astype(np.float32) + 0.5)
    built = atc(parse_onnx(_batch_norm(params)), CompileOptions(dump=None), BuildOptions())
    derived = []
    derive = nn._batch_norm_coefficients

    def coefficients(params: tuple[np.ndarray, ...], epsilon: float) -> np.ndarray:
        derived.append(1)
        return derive(params, epsilon)

    monkeypatch.setattr(nn, "_batch_norm_coefficients", coefficients)
    compared = []
    unchanged = prepared._unchanged
    monkeypatch.setattr(prepared, "_unchanged", lambda *a: compared.append(1) or unchanged(*a))
    x = rng.standard_normal((1, 4, 3, 3)).astype(np.float32)
    with device_world() as world:
        model = load(built.built.ge_model)
        for _ in range(3):
            (y,) = model.nn_execute({"x": x}).values()
        (want,) = ReferenceEvaluator(_batch_norm(params)).run(None, {"x": x})
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
        assert len(derived) == 1 and not compared   # kept over three runs, no byte compared
        bn = next(i.task for i in model.task_infos if isinstance(i.task, KernelTask)
                  and i.task.op_type == "BatchNormalization")
        params[0] = np.full(4, 2, np.float32)
        runtime = world.runtime
        runtime.memcpy(bn.inputs[1].addr, runtime.host.register(params[0]), 16)   # its scale
        (y,) = model.nn_execute({"x": x}).values()
        (want,) = ReferenceEvaluator(_batch_norm(params)).run(None, {"x": x})
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
        assert len(derived) == 2
