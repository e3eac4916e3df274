"""Lesson: GE's two ways to execute a sunk model, and a timeout that aborts one.

A GE Session compiles parallel_branches.onnx and runs it three ways:
  run_graph        NnExecute on the caller's thread: the first run loads the graph
  run_graph_async  queued in the model's DataInputer; the model's Run loop thread executes the
                   queue when the session waits, and calls each callback (status, outputs)
  a second graph with ge.exec.streamSyncTimeout = 2 ms: its execution takes longer, the stream
                   sync times out, the model is aborted, and it runs again with more time

This lesson makes the AI Core's cube unit slow (3 ms over conv_b, the model's Conv after the
fused FusedConv) so the timeout bites.

    gewb devrun sample_models/devrun/run_loop.py
"""
from dataclasses import replace
from pathlib import Path

import numpy as np

from ge_core.runtime.errors import ModelExecuteTimeout
from ge_core.session import Session
from npu_emu.scheduler.cost_model import CostModel
from npu_emu.world import current_runtime

MODEL = Path(__file__).resolve().parents[1] / "parallel_branches.onnx"

CONV_FLOPS = 2 * 4 * 8 * 8 * 4 * 3 * 3   # conv_b: a 3x3 convolution, 4 channels to 4, 8x8
current_runtime().configure(cost=replace(CostModel(), cube_flops_per_ns=CONV_FLOPS / 3_000_000))
session = Session()
session.add_graph(1, MODEL)
x = np.random.default_rng(0).random((1, 4, 8, 8), dtype=np.float32)

(first,) = session.run_graph(1, [x])
print(f"run_graph: out sums to {first.sum():.3f}")

done = []
for i in (1, 2, 3):
    index = session.run_graph_async(1, [x * i],
                                    lambda status, outputs, i=i: done.append((i, status)))
    print(f"run_graph_async queued x * {i} as data index {index}")
session.wait()
print("callbacks (input, status):", done)

session.add_graph(2, MODEL, {"ge.exec.streamSyncTimeout": "2"})
try:
    session.run_graph(2, [x])
except ModelExecuteTimeout as exc:
    print("timeout:", exc)
(again,) = session.run_graph(2, [x], timeout_ms=10)
print(f"run again with 10 ms: out sums to {again.sum():.3f}, the same: "
      f"{bool(np.array_equal(again, first))}")
session.finalize()
