"""An ONNX model (or an OM file) as one program, the way GE handles it: parse, compile (prepare and the three
optimisation stages), build (streams, memory, tasks), load (GE's v1 DavinciModel: InitModelMem
... DoTaskSink) and execute (NnExecute on the emulated device). The table below is the program.

The host reference executor also runs, after the device, on the same inputs: `print tensor`
shows a tensor from device memory and, beside it, what the reference computed for it.
"""
from __future__ import annotations

from typing import Iterator

from ge_core.compiler import CompileOptions, CompilePipeline
from ge_core.compiler.model_builder import BuildOptions, build_model
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.compiler.stream.stream_split import LABEL_OP_TYPES
from ge_core.executor import HostExecutor, random_feeds
from ge_core.graph import ComputeGraph
from ge_core.om.om_file import load_om
from ge_core.parser import parse_onnx
from ge_core.runtime.v1.graph_loader import GraphLoader
from ge_core.runtime.v1.model_manager import ModelManager
from npu_emu.runtime import current_runtime
from workbench.debugger.targets.program import Phase, RunState


def parse(state: RunState, start: int) -> None:
    state.graph = parse_onnx(state.source)


def compile_graph(state: RunState, start: int) -> Iterator[int]:
    """Resumable between stages: position n = the first n stages done."""
    if start == 0:
        engines = tuple(filter(None, state.settings.exclude_engines.split(",")))
        state.pipeline = CompilePipeline(state.graph,
                                         CompileOptions(exclude_engines=engines, dump=None))
    done = start
    for step in state.pipeline.steps(start_stage=start):
        if step.kind == "stage":
            done += 1
            yield done


def build(state: RunState, start: int) -> None:
    settings = state.settings
    stream = StreamOptions(stream_max_parallel_num=settings.stream_max_parallel_num,
                           enable_single_stream=settings.single_stream,
                           minimise_events=settings.minimise_events,
                           max_task_count=settings.max_task_count,
                           hcom_parallel=settings.hcom_parallel)
    state.built = build_model(state.graph, BuildOptions(stream=stream), state.build_passes)
    state.ge_model = state.built.ge_model


def read_om(state: RunState, start: int) -> None:
    state.ge_model = load_om(state.source)
    state.graph = state.ge_model.graph


def load(state: RunState, start: int) -> None:
    current_runtime().set_device(0)  # as a GE process does (rtSetDevice) before loading
    model_id = GraphLoader.load_model_online(state.ge_model)
    state.model = ModelManager.get_instance().get_model(model_id)


def execute(state: RunState, start: int) -> None:
    feeds = random_feeds(state.graph, state.settings.seed)
    state.outputs = state.model.nn_execute(feeds)
    reference = _reference_graph(state)
    if reference is not None:
        state.executor = HostExecutor(reference, keep_values=True)
        state.executor.run(feeds)


def _reference_graph(state: RunState) -> ComputeGraph | None:
    """What the host reference executor runs: the built graph, unless the build inlined If or
    Loop bodies between label nodes, whose jumps only the device makes; then the model as
    parsed (an OM file has no such source: no reference)."""
    if not any(n.type in LABEL_OP_TYPES for n in state.graph.all_nodes()):
        return state.graph
    return parse_onnx(state.source) if state.source.suffix.lower() == ".onnx" else None


ONNX_PHASES = (
    Phase("parse", parse),
    Phase("compile", compile_graph),
    Phase("build", build),
    Phase("load", load),
    Phase("execute", execute, resumable_start=False),
)
# An OM file (`gewb compile -o`) is a built model: it only loads and executes.
OM_PHASES = (
    Phase("read", read_om),
    Phase("load", load),
    Phase("execute", execute, resumable_start=False),
)
