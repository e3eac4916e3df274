"""Lesson: GE's v2 runtime: a built model lowered to an ExecuteGraph of three graphs (Init, Main,
DeInit) and run by a minimal executor, sequential or topological.

memory_reuse.onnx is compiled and built as for v1, then lowered (GraphConverter): Init creates
the allocator, uploads the weights, makes the second stream and the event; Main is one
execution, node by node (CopyH2D, AllocMemory, LaunchKernelWithHandle, FreeMemory, RecordEvent,
WaitEvent, Synchronize, CopyOutput); DeInit releases what Init made. The same ExecuteGraph runs
under both executors, and a StreamExecutor keeps one executor per stream it is asked to run on.

    gewb devrun sample_models/devrun/v2_lowering.py
"""
from pathlib import Path

import numpy as np

from ge_core.compiler import CompileOptions, compile_graph
from ge_core.compiler.model_builder import build_model
from ge_core.executor import HostExecutor
from ge_core.parser import parse_onnx
from ge_core.runtime.v2 import ModelV2Executor, StreamExecutor, default_stream, lower_graph
from npu_emu.world import current_runtime

MODEL = Path(__file__).resolve().parents[1] / "memory_reuse.onnx"

graph = parse_onnx(MODEL)
compile_graph(graph, CompileOptions(dump=None))
built = build_model(graph)
execute_graph = lower_graph(built.ge_model.graph)
print(execute_graph.dump())

x = np.random.default_rng(0).random((1, 4, 8, 8), dtype=np.float32)
expected = HostExecutor(graph).run({"x": x})["out"]
for name in ("sequential", "topological"):
    v2 = ModelV2Executor(execute_graph, default_stream(), name)
    v2.load()                        # Init runs, Main is prepared
    result = v2.execute({"x": x})    # Main runs
    order = f"; Main's order: {v2.main.order}" if name == "topological" else ""
    v2.unload()                      # DeInit runs
    print(f"{name}: out == host executor's: {bool(np.array_equal(result.outputs['out'], expected))}"
          f", {result.emulated_ns} ns{order}")

streams = StreamExecutor(execute_graph)
for stream in (default_stream(), current_runtime().create_stream()):
    streams.execute({"x": x}, stream)
print("StreamExecutor: one ModelV2Executor per stream:", sorted(streams.executors))
streams.unload_all()
