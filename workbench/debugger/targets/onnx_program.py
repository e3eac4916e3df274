"""An ONNX model (or an OM file) as one program, the way GE handles it: parse, compile (prepare
and the three optimisation stages), build (streams, memory, tasks), load (GE's v1 DavinciModel:
InitModelMem ... DoTaskSink) and execute (NnExecute on the emulated device). The table below is
the program; each phase is one of GraphManager's steps (ge_core/session/graph_manager.py), the
code every face runs, here driven one phase at a time under the step gate.

A model some of whose dims stay unknown (a symbolic batch no `set input` or `set input-shape`
sized) has no static build: the build phase leaves it compiled, and ModelManager loads it as a
HybridDavinciModel, which executes node by node, If, Case and Loop bodies included.

The host reference executor also runs, after the device, on the same inputs: `print tensor`
shows a tensor from device memory and, beside it, what the reference computed for it.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Iterator

from npu_emu.base.gc_pause import gc_paused
from workbench.debugger.targets.program import Phase, RunState

if TYPE_CHECKING:
    from ge_core.graph import ComputeGraph
    from ge_core.session import GraphManager
    from workbench.model_inputs import UserInputs


def _inputs(state: RunState) -> UserInputs:
    from workbench.model_inputs import read_inputs
    return read_inputs(state.graph, tuple(filter(None, state.settings.input.split(","))))


def _manager(state: RunState) -> GraphManager:
    """The run's options as GraphManager's: made afresh by each phase, since the manager holds
    nothing else (a checkpoint copies only the state). GE is imported here, by the first phase
    run, not when a target is opened: a face shows its first screen without loading GE."""
    from ge_core.session import GraphManager
    shapes = _inputs(state).shapes if state.graph is not None else {}
    return GraphManager.from_ge_options(state.settings.ge_options(), user_input_shapes=shapes)


def parse(state: RunState, start: int) -> Iterator[int]:
    """Resumable every few hundred nodes built or inferred (ge_core.parser.Parsing): position n
    = the n-th such place passed. The graph is the run's from the start, as the parser builds
    it."""
    if start == 0:
        state.parsing = _manager(state).parsing(state.source)
        state.graph = state.parsing.graph
    yield from _positions(state, state.parsing.steps(), start)
    state.parsing = None


def _positions(state: RunState, steps: Iterator[object], done: int) -> Iterator[int]:
    """A position after each of ``steps``, numbered on from ``done``, the places passed before.
    The collector is paused up to each, not across the yield: a checkpoint taken there, or a
    run abandoned there, must not leave it stopped (the gate lifts it at a stop)."""
    from ge_core.passes.ge_pass import positions_only   # no stop at a visit needs its yield
    while True:
        with gc_paused(state.graph.bus), positions_only():
            step = next(steps, _END)
        if step is _END:
            return
        done += 1
        yield done


_END = object()


def compile_graph(state: RunState, start: int) -> Iterator[int]:
    """Resumable at each stage's end and at the positions inside Partition and MergeSubgraph:
    position n = the n-th such place passed (the pipeline itself knows where it stands)."""
    if start == 0:
        state.pipeline = _manager(state).optimize(state.graph)
    steps = state.pipeline.steps(start_stage=state.pipeline.stages_done)
    yield from _positions(state, (step for step in steps if step.kind in RESUMABLE), start)


RESUMABLE = ("stage", "position")   # the pipeline's steps a copy of it may resume after


def build(state: RunState, start: int) -> None:
    """PreRun's Build, as GraphManager decides it: none for a model it will load hybrid."""
    state.built = _manager(state).build_for(state.graph, history=state.build_passes,
                                            on_plan=partial(setattr, state, "memory_plan"))
    state.ge_model = state.built.ge_model if state.built is not None else None


def read_om(state: RunState, start: int) -> None:
    from ge_core.om.om_file import load_om
    state.ge_model = load_om(state.source)
    state.graph = state.ge_model.graph


def load(state: RunState, start: int) -> None:
    state.model = _manager(state).load(state.ge_model or state.graph)


def execute(state: RunState, start: int) -> None:
    from ge_core.executor import ExecutionError, HostExecutor
    feeds = _inputs(state).feeds(state.graph, state.settings.seed)
    state.outputs = _manager(state).execute(state.model, feeds)
    reference = _reference_graph(state)
    if reference is None:
        return
    executor = HostExecutor(reference, keep_values=True, timeout_ms=state.settings.exec_timeout)
    try:
        executor.run(feeds)
    except ExecutionError:   # a graph the build lowered control flow in: no host reference
        return
    state.executor = executor


def _reference_graph(state: RunState) -> ComputeGraph | None:
    """What the host reference executor runs: the built graph, unless the build inlined If or
    Loop bodies between label nodes, whose jumps only the device makes; then the model as
    parsed (an OM file has no such source: no reference)."""
    from ge_core.compiler.stream.stream_split import LABEL_OP_TYPES
    from ge_core.session import GraphManager
    if not state.graph.holds(*LABEL_OP_TYPES):
        return state.graph
    return GraphManager.parse(state.source) if state.source.suffix.lower() == ".onnx" else None


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
