"""Lesson: the Session API, lazy loading, and ModelExecutor releasing memory for a new load.

A GE Session on a device with only 48 KiB of memory (configured small for the lesson):
compile_graph builds but does not load; fork_graph makes a second instance of a compiled graph;
a graph loads on its first run. When a load does not fit, ModelExecutor's
CheckAndReleaseMemory walks the session's graphs in graph id order (GE's graph_nodes_ is a
std::map keyed by graph id, model_executor.cc) and unloads each loaded one until the new one
fits, never one with HCCL tasks (its collective peers expect it). Graph 1 is the HCCL one, so
the walk meets it first and skips it. An unloaded graph loads again on its next run.

    gewb devrun sample_models/devrun/session_memory.py
"""
from pathlib import Path

import numpy as np

from ge_core.session import Session
from npu_emu.world import current_runtime

MODELS = Path(__file__).resolve().parents[1]



def loaded() -> list[int]:
    """The session's graphs loaded now (ModelExecutor's graph nodes with a model)."""
    return [g for g, node in sorted(session.executor.graph_nodes.items()) if node.model_id]


current_runtime().configure(memory_bytes=48 << 10)
session = Session()
session.add_graph(1, MODELS / "allreduce_step.onnx")
session.add_graph(2, MODELS / "tiny_cnn.onnx")
summary = session.compile_graph(2)
print(f"graph 2 compiled, not loaded: weights {summary.const_memory_size} B, feature map "
      f"{summary.feature_memory_size} B, {summary.stream_num} streams")
session.fork_graph(2, 3)
session.add_graph(4, MODELS / "parallel_branches.onnx")
rng = np.random.default_rng(0)
image = rng.random((1, 3, 16, 16), dtype=np.float32)
x = rng.random((1, 4, 8, 8), dtype=np.float32)

session.run_graph(1, [rng.random((8, 8), dtype=np.float32)])
print("graph 1 (an AllReduce step, HCCL) loaded first:", loaded())

(p2,) = session.run_graph(2, [image])
(p3,) = session.run_graph(3, [image])
print("graphs 2 and 3 (a fork) loaded; same result:", bool(np.array_equal(p2, p3)))
session.run_graph(4, [x])
print("graph 4 ran; loaded graphs:", loaded())
(again,) = session.run_graph(2, [image])
print("graph 2 ran again; same result:", bool(np.array_equal(again, p2)), "loaded graphs:",
      loaded())
session.finalize()
