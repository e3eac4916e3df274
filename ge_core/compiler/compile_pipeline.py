"""The compile pipeline: GE's stages from a parsed graph to an optimised one.

    Prepare                 input checks; with gear options, ProcessMultiBatch (one copy of the
                            graph per gear under a Case), else the dims given for the inputs
                            fix theirs (graph_prepare.py); InferShapeForPreprocess: one
                            GEPass of InferShapePass and the folding passes
    OptimizeOriginalGraph   stage 1, before partition: CSE, removals, pattern fusions;
                            with AUTOFUSE_FLAGS, automatic fusion of pointwise chains
    EnginePlacer            every node gets an engine (cheapest that accepts it)
    Partition               per-engine subgraphs cut at engine changes
    OptimizeSubgraph        stage 2, each engine's own passes (fusions on AI Core), on a thread
                            pool; results merged in subgraph order, so the outcome never depends
                            on which thread finished first
    MergeSubgraph           the subgraphs stitched back into one graph, and the placer run
                            on it: a node the engines made gets its engine
    OptimizeStage2          stage 3: what the merge made possible; last, ConcatNotaskPass
                            (a Concat whose inputs can sit side by side launches no task)

``steps()`` is the pipeline as a generator (a step per stage, pass and node visit) for a
debugger; ``run()`` drives it to the end. Both leave a CompileResult of plain records. Between
two stages, and at a "position" step inside one (every so many nodes of a GEPass walk, of
Partition and of the merge, whose walks keep their state in objects: ge_pass.py,
graph_partitioner.py), the pipeline's whole state is its attributes, so a debugger can clone it
there and resume the copy with ``steps(start_stage=stages_done)`` (a reverse-stepping
checkpoint). A stage body resumed runs again from its top: the pass lists it ran to the end
(``lists_done``) it skips, the one under way (``manager``) goes on where it was, and what it did
before its first list it does only when it starts afresh (``_resumed``). A list is made as it
starts (``_passes`` takes its maker), so a resumed stage makes none of those again.
"""
from __future__ import annotations

import contextvars
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Iterator

from ge_core.autofuse import autofuse_enabled
from ge_core.compiler.engine_placer import EnginePlacer, Placing
from ge_core.compiler.graph_dumper import DumpConfig, GraphDumper
from ge_core.compiler.graph_prepare import InputShape, check_and_update_input
from ge_core.compiler.graph_partitioner import EngineSubgraph, Merging, Partitioning
from ge_core.compiler.pass_equivalence import EquivalenceChecker, EquivalenceReport
from ge_core.compiler import pass_lists
from ge_core.gc_pause import gc_paused
from ge_core.graph import ComputeGraph, validate
from ge_core.graph.attr_names import ENGINE
from ge_core.ops.host_cpu_ops import host_cpu_notes
from ge_core.passes import PassManager, PassRecord, Step
from ge_core.passes.graph_pass import GraphPass
from ge_core.passes.multi_batch import MultiBatchOptions, set_dynamic_output_dims
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.driver import host_malloc

GE_THREAD_POOL_SIZE = 16  # GE optimises engine subgraphs on a pool of this size


def default_workers() -> int:
    """GE's pool where threads run Python side by side (a free-threaded CPython), else one: under
    the GIL a pool only adds CPU time (a fifth of densenet121's and shufflenet's compile)."""
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    return 1 if gil else GE_THREAD_POOL_SIZE


@dataclass
class CompileOptions:
    exclude_engines: tuple[str, ...] = ()
    dump: DumpConfig | None = field(default_factory=DumpConfig.from_env)
    check_equivalence: bool = False
    equivalence_seed: int = 0
    validate_after_each_pass: bool = False
    max_workers: int = field(default_factory=default_workers)
    multi_batch: MultiBatchOptions = field(default_factory=MultiBatchOptions)
    autofuse: bool = field(default_factory=autofuse_enabled)   # GE: AUTOFUSE_FLAGS
    # the shapes of the inputs the user hands the first run, by input name (GE's
    # CheckAndUpdateInput of RunGraph's inputs); they win over ge.inputShape's
    user_input_shapes: InputShape = field(default_factory=dict)


@dataclass(frozen=True)
class StageRecord:
    stage: str
    nodes_after: int
    seconds: float


@dataclass
class CompileResult:
    graph: ComputeGraph
    nodes_before: int = 0
    stages: list[StageRecord] = field(default_factory=list)
    passes: list[PassRecord] = field(default_factory=list)
    engines: dict[str, int] = field(default_factory=dict)
    partitions: list[tuple[str, str, int]] = field(default_factory=list)  # name, engine, nodes
    equivalence: EquivalenceReport | None = None
    warnings: list[str] = field(default_factory=list)
    dumps: list = field(default_factory=list)


class CompilePipeline:
    def __init__(self, graph: ComputeGraph, options: CompileOptions | None = None) -> None:
        host_malloc.tune()   # folding and fusions make and drop weights: tensor work too
        self.graph = graph
        self.options = options or CompileOptions()
        self.result = CompileResult(graph, nodes_before=len(graph.all_nodes()))
        self.dumper = GraphDumper(self.options.dump)
        self.checker: EquivalenceChecker | None = None
        self.parts: list[EngineSubgraph] = []  # while partitioned, the nodes live here
        self.manager: PassManager | None = None  # the stage's pass manager, while it runs
        self.stepping = False   # driven by steps(), which yields a step per node visit
        self.stages_done = 0
        self.stage: str | None = None   # the stage under way (a copy may resume inside it)
        # the placement's, Partition's or the merge's walk
        self.cut: Placing | Partitioning | Merging | None = None
        self.lists_done = 0   # the stage's pass lists (_passes) run to their end
        self._lists = 0       # ... and those its body has reached since it (re)started
        self.first_record = 0   # the first pass record of the list under way

    def copy_memo(self, shares_graph: bool) -> dict[int, object]:
        """Memo entries for a copy of the pipeline (a debugger's checkpoint). Its records are
        frozen, so the copy's lists of them are shallow copies (tens of thousands on a big
        graph); with ``shares_graph`` (the copy shares the graph's objects), the lists no step
        changes in place from here on are shared too: the engine subgraphs, once Partition has
        cut them all."""
        result = self.result
        memo: dict[int, object] = {id(result.passes): list(result.passes),
                                   id(result.stages): list(result.stages),
                                   id(result.partitions): result.partitions}
        if shares_graph and not isinstance(self.cut, Partitioning):
            memo[id(self.parts)] = self.parts
        return memo

    def run(self) -> CompileResult:
        with gc_paused(self.graph.bus):  # steps()' caller pauses it itself, a stage at a time
            for _ in self._stages(stepping=False):
                pass
        return self.result

    def steps(self, start_stage: int = 0) -> Iterator[Step]:
        """Stage i's "stage" step comes when stages 0..i are done; a copy of the pipeline taken
        there, or at a "position" step inside stage i + 1, resumes with ``start_stage=i + 1``
        (``stages_done``)."""
        yield from self._stages(stepping=True, start=start_stage)

    # -- stages ----------------------------------------------------------------------------------
    def _stages(self, stepping: bool, start: int = 0) -> Iterator[Step]:
        self.stepping = stepping   # a free run makes no per-node steps: nobody reads them
        for name, body, dump_after in self._stage_table(stepping)[start:]:
            yield from self._stage(name, body, dump_after)
        validate(self.graph)
        self.result.dumps = self.dumper.written
        self.result.warnings += self.dumper.skipped

    def _stage_table(self, stepping: bool) -> list[tuple[str, Callable[[], Iterator[Step] | None],
                                                         str | None]]:
        """(stage, body, GE's dump stage after it)."""
        return [
            ("Prepare", self._prepare, None),
            ("OptimizeOriginalGraph", self._optimize_original, "PreRunAfterOptimizeOriginalGraph"),
            ("EnginePlacer", self._place, None),
            ("Partition", self._partition, None),
            ("OptimizeSubgraph", lambda: self._optimize_parts(stepping), None),
            ("MergeSubgraph", self._merge, "PreRunAfterOptimizeSubgraph"),
            # GE's name (GraphManager::OptimizeStage2, run as "Optimize2" in graph_manager.cc)
            ("OptimizeStage2", self._optimize_stage2,
             "PreRunAfterOptimizeGraphBeforeBuild"),
        ]

    def _stage(self, name: str, body: Callable[[], Iterator[Step] | None],
               dump_after: str | None) -> Iterator[Step]:
        g = self.graph
        if self.stage != name:   # else a copy taken inside the stage resumes it
            g.bus.emit(StageBegin, name, g.name)
            self.stage = name
        start = time.perf_counter()
        self._lists = 0
        steps = body()
        if steps is not None:
            yield from steps
        nodes = len(g.all_nodes()) + sum(
            1 for p in self.parts for n in p.graph if n.type not in ("PlaceHolder", "End"))
        self.result.stages.append(StageRecord(name, nodes, time.perf_counter() - start))
        self.stage = None
        self.stages_done += 1
        self.lists_done = 0
        g.bus.emit(StageEnd, name, g.name, nodes)
        if dump_after is not None:
            self.dumper.stage(g, dump_after)
        yield Step("stage", name, name, g.name)

    @property
    def _multi_batch(self) -> bool:
        return self.options.multi_batch.enabled

    @property
    def _resumed(self) -> bool:
        """The stage under way was resumed from a copy taken inside it."""
        return self.manager is not None or self.lists_done > 0

    def _prepare(self) -> Iterator[Step]:
        g = self.graph
        if not self._resumed:
            self.dumper.stage(g, "PreRunBegin")
            if not g.input_nodes and g.output_node is None:
                raise ValueError(f"graph {g.name}: no Data and no NetOutput node")
            if not self._multi_batch:   # the dims given fix the inputs' (no gear decides them)
                check_and_update_input(g, {**dict(self.options.multi_batch.user_input_dims()),
                                           **self.options.user_input_shapes})
        # GE's NormalizeGraph runs GraphEquivalentTransformation, then ProcessMultiBatch, before
        # PrepareDynShape's InferShape.
        yield from self._passes("Prepare", g, lambda: pass_lists.graph_equivalent_transformation(g))
        yield from self._passes("Prepare", g, lambda: pass_lists.process_multi_batch(
            self.options.multi_batch))
        # GE's FormatAndShapeProcess: InferShape and the folds it enables, in one GEPass
        yield from self._passes("Prepare", g, lambda: [pass_lists.infer_shape_for_preprocess()])
        self.dumper.stage(g, "AfterInfershape")
        if self._multi_batch:
            set_dynamic_output_dims(g)   # PrepareDynShape's GetDynamicOutputShape
        validate(g)
        g.bus.work += len(g)   # every node and edge read, and no event (as a list made, below)
        if self.options.check_equivalence:
            self.checker = EquivalenceChecker(g, self.options.equivalence_seed)
            self.result.equivalence = self.checker.report
        self.dumper.stage(g, "PreRunAfterPrepare")

    def _optimize_original(self) -> Iterator[Step]:
        g = self.graph
        yield from self._passes("OptimizeOriginalGraph", g, lambda: [
            *pass_lists.engine_graph_optimizers(g), *pass_lists.original_graph_passes(),
            *pass_lists.autofuse_passes(self.options.autofuse),
            *pass_lists.control_flow_stream_passes(g),
            *pass_lists.multi_batch_passes(self._multi_batch)])
        if self._multi_batch:
            # A gear whose shapes come from Shape ops knows them only once its shape arithmetic
            # is folded (as a fixed-shape build folds it): the loader's per-gear output dims
            # are taken again from the folded gears.
            set_dynamic_output_dims(g)

    def _passes(self, stage: str, graph: ComputeGraph,
                passes: Callable[[], list[GraphPass]]) -> Iterator[Step]:
        """Run the list ``passes()`` makes, made as the list starts: a stage resumed past it
        or inside it does not make it again (asking a 40k-node graph whether it holds a Scan
        was 6% of a step back re-run inside Prepare)."""
        self._lists += 1
        if self._lists <= self.lists_done:   # run to its end before the copy was taken
            return
        if self.manager is None:   # else the copy was taken inside this list: it goes on
            self.first_record = len(self.result.passes)
            self.manager = _manager(stage, passes(), self.result.passes)
            # making it may ask every node a question (an op asking for DVPP, a Switch): work
            # no event counts, which a debugger's checkpoints are spaced by (TraceBus.work)
            graph.bus.work += len(graph)
        manager = self.manager
        for step in manager.iter_run(graph, node_steps=self.stepping):
            yield step
            if step.kind == "pass":
                self._after_pass(manager.history[-1], graph, stage, is_part=graph is not self.graph)
        self.manager = None
        self.lists_done += 1
        self.result.warnings += [w for r in self.result.passes[self.first_record:]
                                 for w in r.warnings]

    def _collect(self, records: list[PassRecord]) -> None:
        self.result.passes += records
        self.result.warnings += [w for r in records for w in r.warnings]

    def _after_pass(self, record: PassRecord, graph: ComputeGraph, stage: str,
                    is_part: bool) -> None:
        if not record.changed:
            return
        if self.options.validate_after_each_pass:
            try:
                validate(graph)
            except Exception as exc:
                raise type(exc)(f"after pass {record.name}: {exc}") from exc
        self.dumper.after_pass(graph, stage, record.name)
        if self.checker is not None:
            if is_part:
                self.checker.check_partition(graph, stage, record.name)
            else:
                self.checker.check_graph(graph, stage, record.name)

    def _place(self) -> Iterator[Step]:
        if self.cut is None:
            self.cut = Placing(EnginePlacer(self.options.exclude_engines), self.graph)
        yield from self._positions("EnginePlacer")
        self.result.engines = self.cut.counts
        self.cut = None
        self.result.warnings += host_cpu_notes(self.graph)
        self.dumper.stage(self.graph, "AfterEnginePlacer")

    def _optimize_stage2(self) -> Iterator[Step]:
        yield from self._passes("OptimizeStage2", self.graph,
                                lambda: pass_lists.stage2_passes()
                                + pass_lists.conv_eltwise_relu(self.graph)
                                + pass_lists.shuffle_channel_conv(self.graph)
                                + pass_lists.multi_batch_passes(self._multi_batch)
                                + pass_lists.concat_notask(self.graph))
        # A node stage 3 made (a folded Const) gets its engine as GE's build gives one to a node
        # without a kernel lib (GraphBuilder::CalcOpParam, compiler/graph/build/graph_builder.cc).
        self._place_new_nodes()

    def _place_new_nodes(self) -> None:
        """Nodes the optimisers made after placement (fused ops, folded constants) take the engine
        the placer gives their type; a node that has an engine keeps it, as GE's
        EnginePlacer::SelectEngine does (compiler/graph/partition/engine_place.cc)."""
        placer = EnginePlacer(self.options.exclude_engines)
        for node in self.graph.all_nodes():
            if not node.op_desc.has_attr(ENGINE):
                node.op_desc.set_attr(ENGINE, placer.place(node).name)

    def _partition(self) -> Iterator[Step]:
        if self.cut is None:
            if self.checker is not None:
                self.checker.before_partition(self.graph)
            self.cut = Partitioning(self.graph)
            self.parts = self.cut.parts   # grows as the walk makes them: copies clone them
        yield from self._positions("Partition")
        self.cut = None
        self.result.partitions = [(p.graph.name, p.engine, len(p.graph)) for p in self.parts]

    def _positions(self, stage: str) -> Iterator[Step]:
        """The placement's, partition's or merge's walk, a "position" step at each place it may
        resume."""
        for _ in self.cut.steps():
            yield Step("position", stage, stage, self.graph.name)

    def _optimize_parts(self, stepping: bool) -> Iterator[Step]:
        optimised = {e: bool(pass_lists.engine_passes(e)) for e in {p.engine for p in self.parts}}
        parts = [p for p in self.parts if optimised[p.engine]]
        for p in parts if not self._resumed else ():
            self.dumper.stage(p.graph, f"{p.engine}_OptimizeSubGraphBefore")
        # Steps, observers, checks and per-pass dumps want one thread in a fixed order; a plain
        # run fans out like GE where threads run in parallel (default_workers). Either way the
        # records are merged in subgraph order.
        sequential = (stepping or self.graph.bus.observed or self.checker is not None
                      or self.dumper.config is not None or self.options.max_workers <= 1)
        if sequential:
            # a copy resumed here skips the lists it ran to their end without making their
            # passes (the stage's only lists: on a graph cut into thousands of subgraphs, making
            # them all again took longer than going back re-ran)
            skip = max(0, self.lists_done - self._lists)
            self._lists += skip
            for p in parts[skip:]:
                yield from self._passes("OptimizeSubgraph", p.graph,
                                        partial(pass_lists.engine_passes, p.engine))
        else:
            managers = [_manager("OptimizeSubgraph", pass_lists.engine_passes(p.engine))
                        for p in parts]
            jobs = list(zip(managers, (p.graph for p in parts)))
            workers = min(self.options.max_workers, len(jobs) or 1)
            # One task per worker, each a contiguous run of subgraphs: a future per subgraph
            # cost more than its passes on graphs cut into thousands of small subgraphs.
            chunks = [jobs[i * len(jobs) // workers:(i + 1) * len(jobs) // workers]
                      for i in range(workers)]
            with ThreadPoolExecutor(workers) as pool:
                # Each task in a copy of this thread's context: the passes work in its World.
                futures = [pool.submit(contextvars.copy_context().run, _run_all, chunk)
                           for chunk in chunks]
                for f in futures:
                    f.result()  # re-raises a worker's failure here
            for m in managers:
                self._collect(m.history)
        for p in parts:
            self.dumper.stage(p.graph, f"{p.engine}_OptimizeSubGraphAfter")

    def _merge(self) -> Iterator[Step]:
        if self.cut is None:
            self.cut = Merging(self.graph, self.parts)
        yield from self._positions("MergeSubgraph")
        self.cut = None
        for part in self.parts:  # the boundary nodes and constants' copies the merge left
            part.graph.discard()
        self.parts = []
        validate(self.graph)
        # GE's merge runs the placer on the merged graph ("flush all nodes' engine",
        # EnginePartitioner::MergeSubGraph, compiler/graph/partition/engine_partitioner.cc):
        # the nodes the engines' passes made (a FusedConv) get theirs here.
        self._place_new_nodes()


def _run_all(jobs: list[tuple[PassManager, ComputeGraph]]) -> None:
    for manager, graph in jobs:
        manager.run(graph)


def _manager(stage: str, passes, history: list[PassRecord] | None = None) -> PassManager:
    manager = PassManager(stage, history)
    for p in passes:
        manager.add_pass(p.name, p)
    return manager


def compile_graph(graph: ComputeGraph, options: CompileOptions | None = None) -> CompileResult:
    return CompilePipeline(graph, options).run()
