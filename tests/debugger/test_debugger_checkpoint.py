"""Checkpoints: an exact, independent copy of a run's graphs and compile pipeline, which resumes
to the same trace and the same graph as a run that never stopped."""
from pathlib import Path
from typing import Callable

import pytest

from ge_core.compiler import CompileOptions, CompilePipeline
from ge_core.graph import ComputeGraph, GraphUtils, OpDesc, dump_graph
from ge_core.graph.events import NodeAdded
from ge_core.graph.graph_clone import clone_graphs
from ge_core.parser import parse_onnx
from ge_core.passes import Step
from npu_emu.base.trace import TraceBus, TraceRecorder
from npu_emu.world import World
from workbench.debugger.checkpoint import clone_state
from workbench.debugger.targets.program import RunState
from workbench.debugger.targets.settings import Settings

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"


def test_a_clone_dumps_the_same_and_is_independent():
    with World().entered():
        graph = parse_onnx(SAMPLE)
    new_bus, seen = TraceBus(), []
    new_bus.subscribe(seen.append)
    memo = {}
    clone_graphs([graph], new_bus, memo)
    twin = memo[id(graph)]
    assert dump_graph(twin) == dump_graph(graph) and twin is not graph
    assert [n.seq for n in twin.nodes] == [n.seq for n in graph.nodes]
    assert twin.edits == graph.edits and twin.edits is not graph.edits
    relu = twin.find_node("relu1")
    GraphUtils.remove_node(twin.find_node("right_identity"))
    relu.op_desc.set_attr("stream_id", 1)
    assert graph.find_node("right_identity") is not None
    assert graph.find_node("relu1").op_desc.get_attr("stream_id") is None
    assert [type(e).__name__ for e in seen][-1] == "AttrSet"   # on the clone's bus only
    added = twin.add_node(OpDesc("extra", "Relu", 1, 1))
    assert added.seq == max(n.seq for n in graph.nodes) + 1
    assert isinstance(seen[-1], NodeAdded)


def test_nodes_holding_one_op_desc_hold_one_clone_of_it():
    # Partition moves a node's desc onto the node adopting it while the original keeps it
    with World().entered():
        graph = parse_onnx(SAMPLE)
        part = ComputeGraph("part")
    relu = graph.find_node("relu1")
    part.add_node(relu.op_desc)   # the desc is now on the part's node
    memo = {}
    clone_graphs([graph, part], TraceBus(), memo)
    kept, adopted = memo[id(graph)].find_node("relu1"), memo[id(part)].find_node("relu1")
    assert kept.op_desc is adopted.op_desc and kept.op_desc is not relu.op_desc
    assert adopted.op_desc.node is adopted
    assert dump_graph(memo[id(graph)]) == dump_graph(graph)


def _compile_trace(stop: Callable[[Step, int], bool] | None = None,
                   resuming: Callable[[], object] = lambda: None):
    """A compile on its own bus; with ``stop`` (asked of each step, with the stages done so
    far), cloned at the step it picks and resumed, ``resuming()`` called just before."""
    bus, rec = TraceBus(), TraceRecorder()
    bus.subscribe(rec)
    with World(bus=bus).entered():
        state = RunState(SAMPLE, Settings(), graph=parse_onnx(SAMPLE))
        state.pipeline = CompilePipeline(state.graph, CompileOptions(dump=None))
        done = 0
        for step in state.pipeline.steps():
            done += step.kind == "stage"
            if stop is not None and stop(step, done):
                break
        if stop is not None:
            state = clone_state(state, bus)   # the copy goes on; the original is dropped
            resuming()
            for _ in state.pipeline.steps(start_stage=done):
                pass
    return rec.digest(), dump_graph(state.graph), state.pipeline.result


def test_a_pipeline_resumed_from_a_copy_at_any_stage_matches_a_straight_run():
    digest, text, result = _compile_trace()
    for stage in range(1, 8):
        d, t, r = _compile_trace(lambda step, done: step.kind == "stage" and done == stage)
        assert (d, t) == (digest, text), f"resumed after stage {stage}"
        assert [p.name for p in r.passes] == [p.name for p in result.passes]
        assert [s.stage for s in r.stages] == [s.stage for s in result.stages]


def test_a_stage_resumed_inside_a_pass_list_does_not_make_its_lists_again(monkeypatch):
    """A pass list is made as it starts (GE decides a stage's lists there): a copy resumed at a
    position inside Prepare's InferShape walk goes on with the walk, and the lists before it,
    run to their end, are not made again (one asked the whole graph whether it holds a Scan)."""
    from ge_core.compiler import pass_lists
    made: list[str] = []

    def inside_infer_shape(step: Step, done: int) -> bool:
        return step.kind == "position" and step.stage == "Prepare"

    def counted() -> None:
        for name in ("graph_equivalent_transformation", "process_multi_batch",
                     "infer_shape_for_preprocess"):
            monkeypatch.setattr(pass_lists, name, lambda *a, name=name: made.append(name))
    straight = _compile_trace()[:2]
    assert _compile_trace(inside_infer_shape, counted)[:2] == straight and made == []


def test_deep_copy_copies_as_copy_deepcopy_does():
    """The checkpoint's copier takes lists, dicts, tuples and plain objects itself; what it
    makes must be what copy.deepcopy makes: cycles kept, unchanged tuples shared, objects with
    copy hooks of their own (enums, numpy arrays, frozen dataclasses, Counters) left to it."""
    import copy
    from collections import Counter
    from dataclasses import dataclass, field

    import numpy as np

    from ge_core.graph.graph_clone import deep_copy
    from ge_core.graph.types import DataType

    @dataclass
    class Walk:
        order: list = field(default_factory=list)
        by_name: dict = field(default_factory=dict)

    class Slotted:   # as a node a walk removed but still lists
        __slots__ = ("peers", "unset")

    shared, slotted = [1, 2], Slotted()
    slotted.peers = [shared]
    walk = Walk([shared, shared, (3, "x"), (4, shared)],
                {"w": np.arange(3), ("k", 1): DataType.DT_FLOAT})
    walk.order.append(walk.order)   # a cycle
    walk.by_name["self"] = walk
    root = {"walk": walk, "counts": Counter(a=2), "kind": int, "slotted": slotted}
    ours, theirs = deep_copy(root, {}), copy.deepcopy(root)
    for made in (ours, theirs):
        w = made["walk"]
        assert w is not walk and w.by_name["self"] is w and w.order[4] is w.order
        assert w.order[0] is w.order[1] and w.order[0] == shared and w.order[0] is not shared
        assert w.order[2] is walk.order[2]   # nothing in it to copy: shared
        assert w.order[3][1] is w.order[0]
        assert w.by_name["w"] is not walk.by_name["w"] and list(w.by_name["w"]) == [0, 1, 2]
        assert w.by_name[("k", 1)] is DataType.DT_FLOAT and made["kind"] is int
        assert made["counts"] == Counter(a=2) and made["counts"] is not root["counts"]
        assert made["slotted"].peers[0] is w.order[0] and not hasattr(made["slotted"], "unset")
    memo = {id(shared): "mapped"}   # what the memo holds (the graphs' clones) is substituted
    assert deep_copy(walk, memo).order[:2] == ["mapped", "mapped"]


def test_the_journals_size_estimate_holds_wherever_a_reorders_whole_table_lies():
    """A graph's logged changes are sized each by its kind: a reorder's entry holds the whole
    node table it replaced, a removal's a name. Sampled as one kind, the reorder's entry hit
    by the sample counted thousands of times over (927 MiB for 12)."""
    from ge_core.graph.journal import Journal, journaling
    from ge_core.graph.compute_graph import ReplacedTable
    from workbench.debugger.checkpoint import _entry_bytes, _own_bytes
    with World().entered():
        journal = Journal()
        with journaling(journal):
            g = ComputeGraph("g")
            nodes = [g.add_node(OpDesc(f"n{i}", "Relu", 1, 1)) for i in range(25_000)]
            journal.mark()
            small = [g.add_node(OpDesc(f"m{i}", "Relu", 1, 1)) for i in range(100_000)]
            g.reorder([*nodes, *small])   # logs the 25k-entry table it replaces
        entries = journal.entries
        assert len(entries) > 100_000
        big = next(i for i, (_, s) in enumerate(entries)
                   if s.__class__ is ReplacedTable)
        truth = sum(map(_own_bytes, entries))
        for shift in range(6):   # the reorder's entry at each place of a sampling stride
            moved = entries[:big] + entries[big + 1:]
            moved.insert(big - shift, entries[big])
            estimate = _entry_bytes(moved) * len(moved)
            assert truth / 2 < estimate < truth * 2, (shift, estimate, truth)


def test_the_store_thins_and_chooses_by_ticks_plus_work():
    """Three pattern fusions in a row are 2 ticks apart and a graph's worth of work each (25k
    at 40k nodes): measured in ticks alone, the checkpoints after them were thinned first and
    passed over when choosing where to re-run from, and a step back to the pass after them
    re-ran all three."""
    from workbench.debugger.checkpoint import Checkpoint, CheckpointStore
    store = CheckpointStore(phases=5)
    for tick, work in [(3000, 0), (4000, 0), (5500, 0), (7000, 0), (7002, 25_000),
                       (7004, 50_000), (7006, 75_000), (10_000, 75_000)]:
        # the last fusion's copy holds more objects (100 ticks to restore): still the nearest
        objects = 1000 if tick == 7006 else 0
        store._points[tick] = Checkpoint(tick, (1, tick), None, None, None, objects, work=work)
        store._ticks.append(tick)
    assert store.before(7007).tick == 7006   # the last fusion's end, not 3 passes before it
    store._thin()
    assert store._ticks == [3000, 5500, 7000, 7002, 7004, 7006, 10_000]   # not a fusion's


def test_the_store_counts_a_stretch_by_its_cpu_time_and_journal_entries(monkeypatch):
    """Ticks cost unlike CPU time (Partition's 40 us, the fusions' 10): where the store chooses
    the gap, a stretch counts as its CPU time at NOMINAL_TICK_S a tick, and the journal entries
    it made, which a step back puts back, at RESTORE_TICKS_PER_ENTRY each (a checkpoint's
    reach), which spaces, thins and chooses checkpoints; a gap given is in ticks alone."""
    from types import SimpleNamespace

    from workbench.debugger import checkpoint
    from workbench.debugger.checkpoint import Checkpoint, CheckpointStore
    clock = [0.0]
    monkeypatch.setattr(checkpoint, "time", SimpleNamespace(thread_time=lambda: clock[0]))
    auto, given = CheckpointStore(phases=5), CheckpointStore(phases=5, gap=500)
    for store in (auto, given):
        store.begin_line(None)
    for reached, seconds, entries in ((1000, 0.005, 0), (2000, 0.040, 0), (3000, 0.001, 5000)):
        clock[0] += seconds   # 1000 ticks at 5 us, at 40 us, at 1 us and 5000 entries
        for store in (auto, given):
            store.journal = [None] * entries   # all the store reads of it: its length
            store._measure(reached)
    # 500 + 4000 + (100 + 500) nominal ticks for the 3000: 2100 more
    assert (auto._extra, given._extra) == (2100, 0)
    # 1000 ticks apart, the stretch to the second 3000 ticks longer by its CPU time: thinned
    # by ticks alone, the first would go (all neighbours 2000 apart, the oldest first), and the
    # step back to before the second would re-run 5000; by reach, one after the long stretch
    for tick, extra in ((1000, 0), (2000, 3000), (3000, 3000), (4000, 3000), (5000, 3000)):
        auto._points[tick] = Checkpoint(tick, (1, tick), None, None, None, extra=extra)
        auto._ticks.append(tick)
    auto.restore_ticks_per_object = 0
    assert auto.before(2500).tick == 2000 and auto._points[2000].reach == 5000
    auto._thin()
    assert auto._ticks == [1000, 2000, 4000, 5000]


@pytest.mark.parametrize("asked", [2500, 3500])
def test_a_re_run_slower_than_the_line_copies_where_the_line_did_not_before_it(monkeypatch,
                                                                             tmp_path, asked):
    """A re-run after a rewind measures its stretches slower than the line it replaces (cold
    caches): spaced by its own CPU time, it made a copy just before where the line had a
    checkpoint, 20-50 ms of the step back the user waits for at tick 1M of a 40k-node compile;
    and its gap was the newest copy's, made in another part of the run (500 ticks where the
    line had 4000). The re-run makes its copies where the line had them, those closer than
    its own copies ask for (``asked``) too."""
    from types import SimpleNamespace

    from debugger_testing import synthetic_target
    from workbench.debugger import checkpoint
    from workbench.debugger.checkpoint import CheckpointStore
    from workbench.debugger.engine import Debugger
    # every stretch between two positions costs 10 ms of CPU (1000 nominal ticks) on the line,
    # 15 on a re-run; a copy before tick 7000 asks for a gap of 2500, one after it 500
    clock, factor = [0.0], [1.0]
    monkeypatch.setattr(checkpoint, "time", SimpleNamespace(thread_time=lambda: clock[0]))
    real = CheckpointStore._measure

    def measured(self: CheckpointStore, reached: int) -> None:
        clock[0] += 0.010 * factor[0]
        real(self, reached)
    monkeypatch.setattr(CheckpointStore, "_measure", measured)
    d = Debugger(synthetic_target(tmp_path, 300))
    monkeypatch.setattr(checkpoint, "_spacing", lambda objects, items:
                        (2500 if factor[0] == 1 else asked) if d.checkpoints._furthest < 7000
                        else 500)
    try:
        d.step("event")
        d.cont()
        line = [p.tick for p in d.checkpoints.points()]
        early = [t for t in line if t < 7000]
        assert len(early) >= 8 and line[-1] > 7000
        factor[0] = 1.5
        d.goto(early[2] + 1)
        d.goto(6990)   # a re-run from early[2] over the rest of the early part
        again = [p.tick for p in d.checkpoints.points()]
        assert again == [t for t in line if t < 6990], (line, again)
    finally:
        d.close()
