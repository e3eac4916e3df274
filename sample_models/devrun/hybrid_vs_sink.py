"""Lesson: a model whose batch dim is known only at run time runs hybrid; fix the batch and the
same network sinks to the device.

dynamic_batch.onnx has input x[batch, 3, 8, 8]. Compiled as it is, its shapes stay unknown, so
GE's ModelManager chooses a HybridDavinciModel (IsNeedHybridLoad): lowered to v2 with InferShape
at run time, host-scheduled node by node; one compiled model serves batch 1 and batch 4. A
static build refuses it. With the batch fixed at 4 the model is built, loaded as a DavinciModel
and executed sunk; the device times of the two batch-4 runs are compared.

    gewb devrun sample_models/devrun/hybrid_vs_sink.py
"""
from pathlib import Path

import numpy as np
import onnx

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import BuildError, build_model
from ge_core.executor import HostExecutor
from ge_core.parser import parse_onnx
from ge_core.runtime.v1 import GraphLoader, ModelManager
from npu_emu.world import current_runtime

MODEL = Path(__file__).resolve().parents[1] / "dynamic_batch.onnx"
rng = np.random.default_rng(0)

graph = parse_onnx(MODEL)
compile_graph(graph, CompileOptions(dump=None))
print("unknown dims, so hybrid:", ModelManager.is_need_hybrid_load(graph))
try:
    build_model(graph)
except BuildError as exc:
    print("a static build refuses it:", exc)

current_runtime().set_device(0)
manager = ModelManager.get_instance()
hybrid_id = GraphLoader.load_model_online(graph)   # ModelManager sees the unknown dims
hybrid = manager.get_hybrid_model(hybrid_id)
print("ModelManager loaded it as a", type(hybrid).__name__)
times = {}
for batch in (1, 4):
    x = rng.random((batch, 3, 8, 8), dtype=np.float32)
    result = hybrid.execute({"x": x})
    same = np.allclose(result.outputs["out"], HostExecutor(graph).run({"x": x})["out"], atol=1e-6)
    times[batch] = result.emulated_ns
    print(f"hybrid, batch {batch}: out {list(result.outputs['out'].shape)}, matches the host "
          f"executor: {same}, {result.emulated_ns} ns")
GraphLoader.unload_model(hybrid_id)

proto = onnx.load(MODEL)
proto.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 4   # the batch, fixed
static = parse_onnx(proto)
compile_graph(static, CompileOptions(dump=None))
model = manager.get_model(
    GraphLoader.load_model_online(build_model(static).ge_model))
outputs = model.nn_execute({"x": x})
print(f"sink, batch 4: out {list(outputs['out'].shape)}, the same as hybrid's: "
      f"{bool(np.allclose(outputs['out'], result.outputs['out']))}, {model.last_execute_ns} ns "
      f"(hybrid took {times[4]} ns)")
