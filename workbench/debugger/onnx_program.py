"""An ONNX model as one program, the way GE handles it: parse, compile (prepare and the three
optimisation stages), build (streams, memory, tasks), then execute.

The table below is the program. GE's loader and device execution (DavinciModel, DoTaskSink) are
one more line in it when they land; until then ``execute`` runs the host reference executor,
whose values `print tensor` shows.
"""
from __future__ import annotations

from typing import Iterator

from ge_core.compiler import CompileOptions, CompilePipeline
from ge_core.compiler.model_builder import BuildOptions, build_model
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.executor import HostExecutor, random_feeds
from ge_core.parser import parse_onnx
from workbench.debugger.program import Phase, RunState


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
    stream = StreamOptions(stream_max_parallel_num=state.settings.stream_max_parallel_num)
    state.built = build_model(state.graph, BuildOptions(stream=stream))


def execute_on_host(state: RunState, start: int) -> None:
    state.executor = HostExecutor(state.graph, keep_values=True)
    state.outputs = state.executor.run(random_feeds(state.graph, state.settings.seed))


ONNX_PHASES = (
    Phase("parse", parse),
    Phase("compile", compile_graph),
    Phase("build", build),
    Phase("execute", execute_on_host),
)
