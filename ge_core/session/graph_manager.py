"""GraphManager: a graph's way through GE, one step at a time (GE's graph_manager.cc).

    manager = GraphManager.from_ge_options({"ge.streamMaxParallelNum": "4"})  # ge_options.py
    graph = manager.parse("model.onnx")       # the ONNX parser (GE: aclgrphParseONNX, AddGraph)
    manager.optimize(graph).run()             # PreRun's OptimizeGraph: the CompilePipeline, or
                                              # .steps() to go one stage (pass, node) at a time
    plan = manager.prepare(graph, RunMode.AUTO)  # PreRun's Build: a GeModel, or the compiled
                                              # graph itself when some dims are known only at
                                              # run time; and the mode it runs in (sink, hybrid
                                              # or v2: only the manager chooses)
    model = manager.load(plan.root, plan.mode)  # StartForRunGraph: GraphLoader -> ModelManager,
                                              # which loads a DavinciModel or HybridDavinciModel
    outputs = manager.execute(model, feeds)   # RunGraph: GraphExecutor
    manager.unload(model)

    outputs = manager.run(plan.root, feeds, plan.mode)   # load, execute once, unload (v2:
                                              # lowered to an ExecuteGraph, run once)

An offline model (an OM file, ge_core.om.load_om) enters at ``load``. Every face drives these
steps: `gewb exec`, the conformance vias, the debugger (one step per phase, under its step
gate), the Session and ATC. The manager holds only options, so a debugger may copy the results
of the steps between them (a checkpoint) and go on from the copy.
"""
from __future__ import annotations

import os
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from ge_core.compiler import CompileOptions, CompilePipeline, CompileResult, DumpConfig
from ge_core.compiler.graph_prepare import InputShape
from ge_core.compiler.memory.mem_map import MemoryPlan
from ge_core.compiler.memory.mem_options import MemoryOptions
from ge_core.compiler.model_builder import (BuildOptions, BuildResult, build_model,
                                            static_build_refusal)
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.ge_options import BY_NAME, GE_OPTIONS, MEMORY_PRIORITY, RunMode
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

    from ge_core.parser import Parsing
    from ge_core.runtime.v2.model_v2_executor import ExecuteResult

LoadedModel = DavinciModel | HybridDavinciModel


@dataclass(frozen=True)
class RunPlan:
    """What PreRun hands the loader for a mode: the root model, the mode it runs in, and, when
    that is not the mode asked for, why (one line)."""
    root: RootModel
    mode: RunMode
    why: str | None = None


class GraphManager:
    def __init__(self, compile_options: CompileOptions | None = None,
                 build_options: BuildOptions | None = None,
                 exec_timeout_ms: int | None = None, offline: bool = False) -> None:
        """``offline``: ATC's build, with no device (an online session has one from its start,
        so the runtime can answer what the chip can do)."""
        self.compile_options = compile_options or CompileOptions()
        self.build_options = build_options or BuildOptions()
        self.exec_timeout_ms = exec_timeout_ms   # None: the model's own (GE's stream timeout)
        self.offline = offline

    @classmethod
    def from_ge_options(cls, options: Mapping[str, str], *, dump: DumpConfig | None = None,
                        check_equivalence: bool = False,
                        user_input_shapes: InputShape | None = None) -> GraphManager:
        """GE's option map (ge_core/ge_options.py's keys; others, a session's device id say, are
        not the compiler's) -> the compiler's, builder's and executor's options: the one place
        that reads it. An absent env switch (autofuse, switchn) is left to GE's environment."""
        v = {o.attr: o.from_ge(options[o.key]) if o.key in options else o.default
             for o in GE_OPTIONS}
        env = {o.attr: v[o.attr] for o in GE_OPTIONS
               if o.attr in ("autofuse", "switchn") and o.key in options}
        gears = MultiBatchOptions(v["input_shape"], v["dynamic_batch_size"],
                                  v["dynamic_image_size"], v["dynamic_dims"])
        compile_options = CompileOptions(
            exclude_engines=tuple(filter(None, v["exclude_engines"].split(","))), dump=dump,
            check_equivalence=check_equivalence, multi_batch=gears,
            user_input_shapes=dict(user_input_shapes or {}),
            **({"autofuse": env["autofuse"]} if "autofuse" in env else {}))
        stream = StreamOptions(stream_max_parallel_num=v["stream_max_parallel_num"],
                               enable_single_stream=v["single_stream"], use_notify=v["notify"],
                               minimise_events=v["minimise_events"],
                               max_task_count=v["max_task_count"] or None,
                               unlimited_stream_depth=True if v["auto_split"] else None,
                               hcom_parallel=v["hcom_parallel"])
        build_options = BuildOptions(
            stream, MemoryOptions(
                disable_reuse=v["no_reuse"],
                memory_priority=v["memory_optimization_policy"] == MEMORY_PRIORITY,
                offset_assigners=v["offset_assigners"]), dump,
            soc_version=options.get(BY_NAME["soc-version"].key),
            **({"multi_batch_with_switchn": env["switchn"]} if "switchn" in env else {}))
        return cls(compile_options, build_options, v["exec_timeout"])

    # -- compile (GE's PreRun) -----------------------------------------------------------------
    @staticmethod
    def parse(source: str | os.PathLike | onnx.ModelProto) -> ComputeGraph:
        from ge_core.parser import parse_onnx   # onnx loads with it: a manager given an OM
        return parse_onnx(source)                # file, or not yet a model, never needs it

    @staticmethod
    def parsing(source: str | os.PathLike | onnx.ModelProto) -> Parsing:
        """``parse`` not yet run: its ``steps()`` build the graph, yielding where a copy of it
        may be taken and resumed from (a debugger's parse phase)."""
        from ge_core.parser import Parsing
        return Parsing(source)

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
        if self.build_options.soc_version is not None:   # GE's rtSetSocVersion (gelib.cc)
            current_runtime().set_soc_version(self.build_options.soc_version)
        if not self.offline:
            self.open_device()
        return build_model(graph, self.build_options, history, on_plan)

    # -- the run mode (GE's ModelManager decides; a face may ask for one runtime) ------------
    @staticmethod
    def needs_static_build(graph: ComputeGraph, mode: RunMode = RunMode.AUTO) -> bool:
        """Whether PreRun builds a static model for ``mode``: sink always; hybrid never (it runs
        the compiled graph); auto and v2 not when ModelManager would load the graph hybrid
        (dims known only at run time, nodes on the host: GE builds no static model for it),
        and v2 not for If, Case and Loop either, which its lowering runs as control-flow
        kernels over their subgraphs (a build inlines their bodies between labels, which only
        a sunk model runs)."""
        if mode is not RunMode.AUTO and mode is not RunMode.V2:
            return mode is RunMode.SINK
        if ModelManager.is_need_hybrid_load(graph):
            return False
        return mode is RunMode.AUTO or not any(n.op_desc.subgraph_names for n in graph)

    def build_for(self, graph: ComputeGraph, mode: RunMode = RunMode.AUTO,
                  history: list[PassRecord] | None = None,
                  on_plan: Callable[[MemoryPlan], None] | None = None) -> BuildResult | None:
        """PreRun's Build for ``mode``: None when the mode runs the compiled graph unbuilt."""
        return self.build(graph, history, on_plan) if self.needs_static_build(graph, mode) \
            else None

    def build_root_model(self, graph: ComputeGraph, mode: RunMode = RunMode.AUTO) -> RootModel:
        """What PreRun hands the loader: the built GeModel, or the compiled graph itself."""
        built = self.build_for(graph, mode)
        return graph if built is None else built.ge_model

    @staticmethod
    def plan(root: RootModel, asked: RunMode = RunMode.AUTO) -> RunPlan:
        """The mode ``root`` (a build_root_model, or an OM's model) runs in when ``asked``:
        auto sinks it, unless ModelManager loads it hybrid; then ``why`` says so."""
        if asked is not RunMode.AUTO:
            return RunPlan(root, asked)
        if not ModelManager.is_need_hybrid_load(root):
            return RunPlan(root, RunMode.SINK)
        return RunPlan(root, RunMode.HYBRID,
                       f"mode auto loads it hybrid, not sunk: {_hybrid_reason(root)}")

    def prepare(self, graph: ComputeGraph, asked: RunMode = RunMode.AUTO) -> RunPlan:
        """A compiled graph built (or not) for ``asked``, and the mode it will run in. Gears ask
        for a static build (a sunk copy per gear): when auto runs the model hybrid instead,
        ``why`` names what stopped the build."""
        plan = self.plan(self.build_root_model(graph, asked), asked)
        if plan.why is not None and self.compile_options.multi_batch.enabled:
            reason = static_build_refusal(graph) or _hybrid_reason(graph)
            plan = replace(plan, why="the gears were not built, running hybrid: "
                                     + " ".join(reason.split()))
        return plan

    # -- run (GE's StartForRunGraph, RunGraph) -------------------------------------------------
    @staticmethod
    def open_device() -> None:
        """Device 0 made current unless a device is: an online GE session sets its device when
        it starts (InnerSession::Initialize, inner_session.cc), before it builds or loads."""
        runtime = current_runtime()
        if runtime.current_context is None:
            runtime.set_device(0)

    @classmethod
    def load(cls, model: RootModel, mode: RunMode = RunMode.AUTO) -> LoadedModel:
        """Load on the current device (device 0 set first if none is). ModelManager chooses
        DavinciModel or HybridDavinciModel; ``mode`` hybrid chooses the latter for any model (a
        built one: its graph). A v2 model is not loaded: run_v2 lowers and runs it."""
        if mode is RunMode.V2:
            raise ValueError("a v2 model is lowered and run by run_v2, not loaded")
        cls.open_device()
        manager = ModelManager.get_instance()
        if mode is RunMode.HYBRID:
            model_id = manager.load_hybrid_model(root_graph(model))
        else:
            model_id = GraphLoader.load_model_online(model)
        return manager.get_hybrid_model(model_id) or manager.get_model(model_id)

    def execute(self, model: LoadedModel, feeds: Inputs, timeout_ms: int | None = None
                ) -> Outputs:
        """One execution, synchronous, on host arrays; outputs by graph output name.
        ``timeout_ms``: of device time (None: ge.exec.graphExecTimeout as the manager was
        given it, else the model's own)."""
        timeout = self.exec_timeout_ms if timeout_ms is None else timeout_ms
        return GraphExecutor.execute_graph(model.model_id, feeds, timeout_ms=timeout)

    def run_v2(self, model: RootModel, feeds: Inputs) -> ExecuteResult:
        """GE's v2 runtime: the model lowered to an ExecuteGraph and run once on the current
        device (its outputs and the device time it took), within ge.exec.graphExecTimeout."""
        from ge_core.runtime.v2 import execute_v2   # the lowering loads only when v2 runs
        return execute_v2(model, feeds, timeout_ms=self.exec_timeout_ms)

    @staticmethod
    def unload(model: LoadedModel) -> None:
        GraphLoader.unload_model(model.model_id)

    @contextmanager
    def loaded(self, model: RootModel, mode: RunMode = RunMode.AUTO) -> Iterator[LoadedModel]:
        """Load, hand the model over, unload. When the body fails, an unload that fails after it
        (a failed execute can leave blocks allocated) does not hide the body's error, which is
        the one naming the node at fault."""
        model = self.load(model, mode)
        try:
            yield model
        except BaseException:
            with suppress(Exception):
                self.unload(model)
            raise
        self.unload(model)

    def run(self, model: RootModel, feeds: Inputs, mode: RunMode = RunMode.AUTO) -> Outputs:
        """Load, execute once, unload (v2: lowered and run once)."""
        if mode is RunMode.V2:
            return self.run_v2(model, feeds).outputs
        with self.loaded(model, mode) as loaded:
            return self.execute(loaded, feeds)


def _hybrid_reason(model: RootModel) -> str:
    """Why ModelManager loads ``model`` hybrid: the first node it cannot sink, by name."""
    from ge_core.ops.host_cpu_ops import host_cpu_notes
    graph = root_graph(model)
    for node in graph.all_nodes():
        for index, desc in enumerate(node.op_desc.output_descs):
            if desc.shape.is_unknown:
                return (f"node {node.name} ({node.type}) output {index} has dims known only at "
                        f"run time")
    notes = host_cpu_notes(graph, placed=False)
    return notes[0] if notes else "some value lives in host memory only"
