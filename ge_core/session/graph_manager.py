"""GraphManager: a graph's way through GE, one step at a time (GE's graph_manager.cc).

    manager = GraphManager(CompileOptions(dump=None))    # or from_ge_options({"ge.xxx": ...})
    graph = manager.parse("model.onnx")       # the ONNX parser (GE: aclgrphParseONNX, AddGraph)
    manager.optimize(graph).run()             # PreRun's OptimizeGraph: the CompilePipeline, or
                                              # .steps() to go one stage (pass, node) at a time
    root = manager.build_root_model(graph)    # PreRun's Build: a GeModel, or the compiled graph
                                              # itself when some dims are known only at run time
    model = manager.load(root)                # StartForRunGraph: GraphLoader -> ModelManager,
                                              # which loads a DavinciModel or HybridDavinciModel
    outputs = manager.execute(model, feeds)   # RunGraph: GraphExecutor
    manager.unload(model)

    outputs = manager.run(root, feeds)        # load, execute once, unload

An offline model (an OM file, ge_core.om.load_om) enters at ``load``. Every face drives these
steps: `gewb exec`, the conformance vias, the debugger (one step per phase, under its step
gate), the Session and ATC. The manager holds only options, so a debugger may copy the results
of the steps between them (a checkpoint) and go on from the copy.
"""
from __future__ import annotations

import os
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from ge_core.compiler import CompileOptions, CompilePipeline, CompileResult
from ge_core.compiler.memory.mem_map import MemoryPlan
from ge_core.compiler.memory.mem_options import MemoryOptions
from ge_core.compiler.model_builder import BuildOptions, BuildResult, build_model
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.graph import ComputeGraph
from ge_core.passes import PassRecord
from ge_core.passes.multi_batch import MultiBatchOptions
from ge_core.runtime.hybrid import HybridDavinciModel
from ge_core.runtime.v1 import DavinciModel, GraphExecutor, GraphLoader, ModelManager
from ge_core.runtime.v1.data_inputer import Inputs, Outputs
from ge_core.runtime.v1.model_manager import RootModel, root_graph
from npu_emu.world import current_runtime

if TYPE_CHECKING:
    import onnx

# GE's option names the manager reads (a session's options, overridden by a graph's)
STREAM_MAX_PARALLEL_NUM = "ge.streamMaxParallelNum"
ENABLE_SINGLE_STREAM = "ge.enableSingleStream"
DISABLE_REUSE_MEMORY = "ge.exec.disableReuseMemory"
EXCLUDE_ENGINES = "ge.exec.exclude_engines"
EVENT = "ge.event"

LoadedModel = DavinciModel | HybridDavinciModel


class GraphManager:
    def __init__(self, compile_options: CompileOptions | None = None,
                 build_options: BuildOptions | None = None) -> None:
        self.compile_options = compile_options or CompileOptions()
        self.build_options = build_options or BuildOptions()

    @classmethod
    def from_ge_options(cls, options: Mapping[str, str]) -> GraphManager:
        """GE's option strings -> the compiler's options (no graph dumps)."""
        stream = StreamOptions(
            stream_max_parallel_num=int(options.get(STREAM_MAX_PARALLEL_NUM, "1")),
            enable_single_stream=options.get(ENABLE_SINGLE_STREAM, "false").lower() == "true",
            use_notify=options.get(EVENT, "event") == "notify")
        memory = MemoryOptions(disable_reuse=options.get(DISABLE_REUSE_MEMORY, "0") == "1")
        engines = tuple(filter(None, options.get(EXCLUDE_ENGINES, "").split(",")))
        return cls(CompileOptions(exclude_engines=engines, dump=None,
                                  multi_batch=MultiBatchOptions.from_ge_options(options)),
                   BuildOptions(stream=stream, memory=memory))

    # -- compile (GE's PreRun) -----------------------------------------------------------------
    @staticmethod
    def parse(source: str | os.PathLike | onnx.ModelProto) -> ComputeGraph:
        from ge_core.parser import parse_onnx   # onnx loads with it: a manager given an OM
        return parse_onnx(source)                # file, or not yet a model, never needs it

    def optimize(self, graph: ComputeGraph) -> CompilePipeline:
        """The optimisation stages on ``graph``, not yet run: ``run()`` runs them all,
        ``steps()`` yields at each stage, pass and node visit and can resume between stages."""
        return CompilePipeline(graph, self.compile_options)

    def compile(self, graph: ComputeGraph) -> CompileResult:
        return self.optimize(graph).run()

    def build(self, graph: ComputeGraph, history: list[PassRecord] | None = None,
              on_plan: Callable[[MemoryPlan], None] | None = None) -> BuildResult:
        """Streams, memory and tasks for a compiled graph: ``.ge_model`` is what loads. A graph
        with unknown dims has no static build: the BuildError names the node. ``history``: where
        the build's pass records go as each pass ends, ``on_plan``: told the memory plan once
        AssignMemory made it (a debugger parked in the build reads both)."""
        return build_model(graph, self.build_options, history, on_plan)

    def build_root_model(self, graph: ComputeGraph, lowered: bool = False) -> RootModel:
        """What PreRun hands the loader: the built GeModel, or, when ModelManager will load it
        hybrid (dims known only at run time, nodes on the host), the compiled graph itself (GE
        builds no static model for it). ``lowered``: for v2's lowering, which runs If, Case
        and Loop as control-flow kernels over their subgraphs, so a graph with them is handed
        over unbuilt too (a build inlines their bodies between labels, which only a sunk model
        runs)."""
        if ModelManager.is_need_hybrid_load(graph) or (
                lowered and any(n.op_desc.subgraph_names for n in graph)):
            return graph
        return self.build(graph).ge_model

    # -- run (GE's StartForRunGraph, RunGraph) -------------------------------------------------
    @staticmethod
    def load(model: RootModel, hybrid: bool = False) -> LoadedModel:
        """Load on the current device (device 0 set first if none is, as a GE process sets its
        device before it loads). ModelManager chooses DavinciModel or HybridDavinciModel;
        ``hybrid`` chooses the latter for any model (a built one: its graph)."""
        runtime = current_runtime()
        if runtime.current_context is None:
            runtime.set_device(0)
        manager = ModelManager.get_instance()
        if hybrid:
            model_id = manager.load_hybrid_model(root_graph(model))
        else:
            model_id = GraphLoader.load_model_online(model)
        return manager.get_hybrid_model(model_id) or manager.get_model(model_id)

    @staticmethod
    def execute(model: LoadedModel, feeds: Inputs, timeout_ms: int | None = None) -> Outputs:
        """One execution, synchronous, on host arrays; outputs by graph output name.
        ``timeout_ms``: of device time (ge.exec.graphExecTimeout; None: the model's own)."""
        return GraphExecutor.execute_graph(model.model_id, feeds, timeout_ms=timeout_ms)

    @staticmethod
    def unload(model: LoadedModel) -> None:
        GraphLoader.unload_model(model.model_id)

    @contextmanager
    def loaded(self, model: RootModel, hybrid: bool = False) -> Iterator[LoadedModel]:
        """Load, hand the model over, unload. When the body fails, an unload that fails after it
        (a failed execute can leave blocks allocated) does not hide the body's error, which is
        the one naming the node at fault."""
        model = self.load(model, hybrid)
        try:
            yield model
        except BaseException:
            with suppress(Exception):
                self.unload(model)
            raise
        self.unload(model)

    def run(self, model: RootModel, feeds: Inputs, hybrid: bool = False) -> Outputs:
        """Load, execute once, unload."""
        with self.loaded(model, hybrid) as loaded:
            return self.execute(loaded, feeds)
