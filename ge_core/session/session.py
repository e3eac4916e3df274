"""Session: GE's user-facing API (GeSession / InnerSession, seed 000 §7).

    session = Session({"ge.streamMaxParallelNum": "4"})
    session.add_graph(1, "model.onnx")        # a ComputeGraph, an ONNX path or ModelProto
    session.compile_graph(1)                  # compile and build, no load: a summary
    outputs = session.run_graph(1, inputs)    # first run loads it (NnExecute, synchronous)
    session.run_graph_async(1, inputs, cb)    # queued for the model's Run loop
    session.wait()                            # ... which runs it now; cb(status, outputs)
    session.finalize()

Compiling and executing are separate (GE's lazy loading): build_graph / compile_graph only
compile; a graph takes device memory when it first runs. fork_graph makes a second graph id on
the same compiled model, loaded on its own (inference instances without a second compile).
set_graph_const_memory_base / update_graph_feature_memory_base / set_graph_fixed_feature_memory_base
let the user own the memory.
The session compiles the graph it is given in place, as `gewb compile` does.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ge_core.graph import ComputeGraph
from ge_core.runtime.errors import GeError, ModelInputError
from ge_core.runtime.model_io import DeviceBuffer, IoDesc, model_inputs, model_outputs
from ge_core.runtime.model_memory import (FEATURE_MAP, WEIGHT, fixed_feature_bytes,
                                          host_to_device, segment_sizes)
from ge_core.runtime.v1.data_inputer import Callback, Inputs
from ge_core.runtime.v1.model_executor import GraphNode, ModelExecutor
from ge_core.runtime.v1.model_manager import ModelManager
from ge_core.session.graph_manager import GraphManager
from npu_emu.world import current_runtime

if TYPE_CHECKING:
    import onnx

    from npu_emu.core.stream import Stream

# GE's option naming the session's device; the compile options are GraphManager's
DEVICE_ID = "ge.exec.deviceId"


@dataclass(frozen=True)
class CompiledGraphSummary:
    """What a compiled graph needs (GE's CompiledGraphSummary): sizes for the memory a user
    may provide, streams, and its inputs and outputs."""

    const_memory_size: int
    feature_memory_size: int
    fixed_feature_memory_size: int   # the part whose address may not move (HCCL's buffers)
    stream_num: int
    event_num: int
    inputs: tuple[IoDesc, ...]
    outputs: tuple[IoDesc, ...]


class Session:
    def __init__(self, options: Mapping[str, str] | None = None) -> None:
        self.options = dict(options or {})
        self.device_id = int(self.options.get(DEVICE_ID, "0"))
        current_runtime().set_device(self.device_id)
        self.session_id = ModelManager.get_instance().create_session(self.device_id)
        self.executor = ModelExecutor(self.session_id)
        self.finalized = False

    # -- graphs --------------------------------------------------------------------------------
    def add_graph(self, graph_id: int, graph: ComputeGraph | str | os.PathLike | onnx.ModelProto,
                  options: Mapping[str, str] | None = None) -> None:
        if graph_id in self.executor.graph_nodes:
            raise GeError(f"graph {graph_id} already added")
        if not isinstance(graph, ComputeGraph):
            graph = GraphManager.parse(graph)
        self.executor.graph_nodes[graph_id] = GraphNode(graph_id, graph,
                                                        {**self.options, **(options or {})})

    def remove_graph(self, graph_id: int) -> None:
        node = self.executor.graph_node(graph_id)
        self.executor.wait()
        self.executor.unload_graph(node)
        del self.executor.graph_nodes[graph_id]

    def build_graph(self, graph_id: int, inputs: Sequence[Any] | None = None) -> None:
        """Compile and build for these inputs (their shapes must be the graph's); no load."""
        node = self.executor.graph_node(graph_id)
        if inputs is not None:
            _check_shapes(model_inputs(node.graph), inputs)
        self._build(node)

    def compile_graph(self, graph_id: int) -> CompiledGraphSummary:
        self._build(self.executor.graph_node(graph_id))
        return self.get_compiled_graph_summary(graph_id)

    def _build(self, node: GraphNode) -> None:
        if node.built:
            return
        manager = GraphManager.from_ge_options(node.options)
        manager.compile(node.graph)
        node.ge_model = manager.build(node.graph).ge_model

    def get_compiled_graph_summary(self, graph_id: int) -> CompiledGraphSummary:
        node = self.executor.graph_node(graph_id)
        if not node.built:
            raise GeError(f"graph {graph_id} is not compiled")
        model, sizes = node.ge_model, segment_sizes(node.ge_model)
        return CompiledGraphSummary(sizes[WEIGHT], sizes[FEATURE_MAP], fixed_feature_bytes(model),
                                    model.stream_num,
                                    model.task_def.event_num,
                                    tuple(model_inputs(model.graph)),
                                    tuple(model_outputs(model.graph)))

    def fork_graph(self, graph_id: int, new_graph_id: int) -> None:
        """A new graph id on the same compiled model (built if need be), loaded on its own."""
        node = self.executor.graph_node(graph_id)
        if new_graph_id in self.executor.graph_nodes:
            raise GeError(f"graph {new_graph_id} already added")
        self._build(node)
        self.executor.graph_nodes[new_graph_id] = replace(
            node, graph_id=new_graph_id, model_id=None, load_seq=0, feature_map_base=None,
            const_memory_base=None, fixed_feature_map_base=None)

    # -- memory the user owns ------------------------------------------------------------------
    def set_graph_const_memory_base(self, graph_id: int, addr: int, size: int) -> None:
        """Weights at ``addr`` (``size`` bytes, the summary's const_memory_size), which this
        call fills from the compiled model. Before the graph first runs."""
        node = self.executor.graph_node(graph_id)
        summary = self._summary_for(node, "const", size, addr)
        if node.model_id is not None:
            raise GeError(f"graph {graph_id} is loaded: set its const memory before it runs")
        if summary.const_memory_size:
            host_to_device(current_runtime().device(), addr, node.ge_model.weights)
        node.const_memory_base = addr

    def update_graph_feature_memory_base(self, graph_id: int, addr: int, size: int) -> None:
        """The feature map at ``addr`` (``size`` >= the summary's feature_memory_size): used at
        load, or, for a loaded graph, its tasks are re-pointed there."""
        node = self.executor.graph_node(graph_id)
        self._summary_for(node, "feature", size, addr)
        node.feature_map_base = addr
        if node.model_id is not None:
            self.executor.wait()
            self.executor.model(node).update_feature_map_base(addr)

    def set_graph_fixed_feature_memory_base(self, graph_id: int, addr: int, size: int) -> None:
        """The fixed part of the feature map at ``addr`` (``size`` >= the summary's
        fixed_feature_memory_size), before the graph first runs (GE's
        SetGraphFixedFeatureMemoryBase, graph_manager.cc): the model then allocates only the
        rest. A graph with no fixed part ignores it, as GE does (with a warning)."""
        node = self.executor.graph_node(graph_id)
        if not node.built:
            raise GeError(f"graph {graph_id} is not compiled: compile it before setting its "
                          f"fixed feature memory")
        if node.model_id is not None:
            raise GeError(f"graph {graph_id} has run: its fixed feature memory is set before "
                          f"the first run")
        if size > 0 and addr == 0:
            raise GeError(f"graph {graph_id}: fixed feature memory of {size} bytes at address 0")
        need = self.get_compiled_graph_summary(graph_id).fixed_feature_memory_size
        if need and size < need:
            raise GeError(f"graph {graph_id}: fixed feature memory of {size} bytes at "
                          f"{addr:#x}, it needs {need}")
        node.fixed_feature_map_base = addr if need and addr else None

    def _summary_for(self, node: GraphNode, kind: str, size: int,
                     addr: int) -> CompiledGraphSummary:
        summary = self.get_compiled_graph_summary(node.graph_id)
        need = summary.const_memory_size if kind == "const" else summary.feature_memory_size
        if size < need:
            raise GeError(f"graph {node.graph_id}: {kind} memory of {size} bytes at {addr:#x}, "
                          f"it needs {need}")
        return summary

    # -- running -------------------------------------------------------------------------------
    def run_graph(self, graph_id: int, inputs: Inputs, timeout_ms: int | None = None
                  ) -> list[np.ndarray]:
        """Outputs in graph output order (GE's RunGraph: NnExecute, not the Run loop)."""
        self._build(self.executor.graph_node(graph_id))
        return list(self.executor.run_graph(graph_id, inputs, timeout_ms).values())

    def run_graph_async(self, graph_id: int, inputs: Inputs, callback: Callback | None) -> int:
        """Queue a run for the graph's Run loop; returns its data index. It executes when the
        session waits (or before any later call that drives the device); ``callback(status,
        outputs)`` is then called on the loop's thread."""
        self._build(self.executor.graph_node(graph_id))
        return self.executor.run_graph_async(graph_id, inputs, callback)

    def wait(self) -> None:
        """Run everything run_graph_async queued; return when its callbacks have been called."""
        self.executor.wait()

    def run_graph_with_stream(self, graph_id: int, stream: Stream, inputs: Inputs,
                              outputs: Sequence[DeviceBuffer]) -> None:
        """Queue one run on the caller's stream (GE's RunGraphWithStreamAsync); the outputs
        land in ``outputs`` once the caller synchronizes the stream."""
        self._build(self.executor.graph_node(graph_id))
        self.executor.run_graph_with_stream(graph_id, stream, inputs, outputs)

    def finalize(self) -> None:
        if self.finalized:
            return
        self.finalized = True
        try:
            self.executor.finalize()
        finally:
            ModelManager.get_instance().destroy_session(self.session_id)


def _check_shapes(ios: list[IoDesc], inputs: Sequence[Any]) -> None:
    if len(inputs) != len(ios):
        raise ModelInputError(f"the graph takes {len(ios)} inputs, {len(inputs)} given")
    for io, value in zip(ios, inputs):
        shape = tuple(np.shape(value))
        if shape != io.dims:
            raise ModelInputError(f"input {io.index} ({io.describe()}) given shape {list(shape)}")
