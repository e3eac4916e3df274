"""Checkpoints inside the parse and inside a compile stage: the parser's loops (ge_core/parser/
onnx_parser.py's Parsing), a GEPass walk (Prepare's InferShape group, OptimizeOriginalGraph's),
a whole-graph pass's loop over nodes (CSE, ConstantFuseSamePass), EnginePlacer, Partition and
MergeSubgraph stop at resumable positions every 128 nodes (ge_core/passes/ge_pass.py,
passes/graph_pass.py, compiler/engine_placer.py, compiler/graph_partitioner.py), so going back
into them re-executes from a copy taken inside, not from the phase's or the stage's start. A
run resumed there must be indistinguishable from one that never stopped: same trace, same
graphs, same place."""
from pathlib import Path

import onnx

from debugger_testing import finished, stopped, synthetic_model
from ge_core.graph import dump_graph
from ge_core.parser import parse_onnx
from workbench.commands.inspecting import _resumes_at
from workbench.debugger.engine import Debugger
from workbench.debugger.outcomes import Stopped
from workbench.debugger.targets import open_target

NODES = 320   # 40 blocks: each walk passes its positions (128 nodes apart) a few times


def _graphs(d: Debugger) -> str:
    return "".join(dump_graph(g) for g in d.state.graphs())


def _shared_descs(d: Debugger) -> list[tuple[str, ...]]:
    """Which nodes hold the same op desc, and the node each desc says it is on: inside
    Partition a node's desc moves onto the node adopting it while the original keeps it."""
    holders: dict[int, list[str]] = {}
    for g in d.state.graphs():
        for member in [g, *g.subgraphs]:
            for n in member.nodes:
                holders.setdefault(id(n.op_desc), []).append(f"{member.name}/{n.name}")
                on = n.op_desc.node
                holders[id(n.op_desc)].append(f"on {on.graph.name}/{on.name}" if on else "on -")
    return sorted(tuple(sorted(set(names))) for names in holders.values())


def _lands_as_a_fresh_run(d: Debugger, fresh: Debugger, inside: dict[int, str]) -> None:
    """Going back to just after each checkpoint of ``d`` (run to its end) and further on lands
    where ``fresh``, a run that never went back, stops: same trace, graphs and place."""
    end_tick, whole = d.tick, d.run.trace_hash()
    ticks = sorted({t + k for t in inside for k in (1, 57)})
    seen = {}
    for tick in ticks:   # a run that never went back, stopped at each
        f = stopped(fresh.run_to_tick(tick))
        seen[tick] = (fresh.run.trace_hash(), _graphs(fresh), _shared_descs(fresh),
                      (f.tick, f.event, f.where))
    held = sorted(c.tick for c in d.checkpoints.points())
    for tick in reversed(ticks):   # going back, each from the landing before
        s = stopped(d.goto(tick))
        assert d.run.start_tick == max(c for c in held if c < tick)
        assert (d.run.trace_hash(), _graphs(d), _shared_descs(d),
                (s.tick, s.event, s.where)) == seen[tick], \
            f"tick {tick}, resumed from {d.run.start_tick} ({inside.get(d.run.start_tick)})"
    # and forward again from the last landing to the end: the same whole trace
    assert finished(d.cont()).tick == end_tick and d.run.trace_hash() == whole


def _debuggers(path: Path, tmp_path: Path) -> tuple[Debugger, Debugger]:
    target = open_target(str(path), tmp_path)
    d = Debugger(target, trace_hash=True, checkpoint_gap=100)
    d.checkpoints.restore_ticks_per_object = 0   # always from the newest copy: each is used
    return d, Debugger(target, trace_hash=True, checkpoint_gap=10**9)   # never copies


def _blocks(tmp_path: Path) -> Path:
    path = tmp_path / "blocks.onnx"
    onnx.save(synthetic_model(NODES), str(path))
    return path


def test_going_back_inside_partition_and_merge_lands_on_a_fresh_runs_state(tmp_path):
    path = _blocks(tmp_path)
    d, fresh = _debuggers(path, tmp_path)
    try:
        finished(d.cont())
        inside = {c.tick: c.state.pipeline.stage for c in d.checkpoints.points()
                  if c.state.pipeline is not None and c.state.pipeline.stage is not None}
        assert {"Prepare", "OptimizeOriginalGraph", "EnginePlacer", "Partition",
                "MergeSubgraph"} <= set(inside.values()), inside
        passes = {type(c.state.pipeline.manager.current).__name__ for c in d.checkpoints.points()
                  if c.state.pipeline is not None and c.state.pipeline.manager is not None}
        assert "CommonSubexpressionEliminationPass" in passes, passes
        where = {_resumes_at(d, c.position, c.state) for c in d.checkpoints.points()}
        assert {"compile, inside Partition", "compile, inside MergeSubgraph"} <= where  # info
        _lands_as_a_fresh_run(d, fresh, inside)
    finally:
        d.close()
        fresh.close()


def _if_model(blocks: int) -> onnx.ModelProto:
    """``blocks`` Relus and Ifs in a chain, each If's branches reading the block's input from
    the graph around them (captured: a Data node in the body, an input added to the If)."""
    from onnx import TensorProto, helper
    io = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [4])  # noqa: E731
    nodes, x = [helper.make_node("ReduceSum", ["input"], ["s"], "sum", keepdims=0),
                helper.make_node("Greater", ["s", "zero"], ["c"], "cond")], "input"
    for b in range(blocks):
        branch = lambda op: helper.make_graph(  # noqa: E731
            [helper.make_node(op, [f"r{b}"], [f"{op}{b}"])], f"{op}{b}", [], [io(f"{op}{b}")])
        nodes += [helper.make_node("Relu", [x], [f"r{b}"], f"relu{b}"),
                  helper.make_node("If", ["c"], [f"y{b}"], f"if{b}", then_branch=branch("Neg"),
                                   else_branch=branch("Abs"))]
        x = f"y{b}"
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    return helper.make_model(helper.make_graph(nodes, "ifs", [io("input")], [io(x)], [zero]),
                             opset_imports=[helper.make_opsetid("", 13)])


def test_going_back_inside_the_parse_lands_on_a_fresh_runs_state(tmp_path):
    """The parse of a big model is most of its first ticks (40k nodes: 170k, 2 s to re-run):
    its checks make the first copy, and its loops (nodes, links, InferShape) are resumable,
    an If's bodies built and inferred with their If."""
    for name, model in (("blocks", synthetic_model(NODES)), ("ifs", _if_model(90))):
        path = tmp_path / f"{name}.onnx"
        onnx.save(model, str(path))
        d, fresh = _debuggers(path, tmp_path)
        d.checkpoints.limit = 4096   # none thinned: the Ifs' run is long
        try:
            finished(d.cont())
            inside = {c.tick: c.state.parsing.under_way for c in d.checkpoints.points()
                      if c.state.parsing is not None}
            assert min(inside) <= 2, inside   # right after the checks, before any node
            assert {"nodes", "links", "InferShape"} <= set(inside.values()), inside
            where = {_resumes_at(d, c.position, c.state) for c in d.checkpoints.points()}
            assert "parse, inside InferShape" in where
            _lands_as_a_fresh_run(d, fresh, inside)
        finally:
            d.close()
            fresh.close()


def test_a_look_beside_the_run_inside_the_parse_sees_the_graph_built_so_far(tmp_path):
    """A copy of its own (materialise) of a checkpoint inside the parse is the graph as far as
    the parser had built it then, and the parse goes on from it to the same graph."""
    from npu_emu.base.trace import TraceBus
    path = _blocks(tmp_path)
    d, fresh = _debuggers(path, tmp_path)
    try:
        finished(d.cont())
        # (at tick 1 a run stopped at the parse's outset has no graph yet; the copy made right
        # after the checks has it empty)
        inside = [c for c in d.checkpoints.points() if c.state.parsing is not None and c.tick > 1]
        assert len(inside) >= 3
        parsed = dump_graph(parse_onnx(str(path)))
        for c in inside:
            state = d.checkpoints.materialise(c, TraceBus())
            stopped(fresh.run_to_tick(c.tick))
            assert dump_graph(state.graph) == dump_graph(fresh.state.graph)
            assert state.parsing.graph is state.graph is not c.state.graph
            for _ in state.parsing.steps():
                pass
            assert dump_graph(state.graph) == parsed
            state.discard()
    finally:
        d.close()
        fresh.close()


def test_going_back_between_the_copies_of_a_constant_partition_makes_lands_alike(tmp_path):
    """A weight read in 150 subgraphs (each Conv on AI Core between two Softmaxes on AI CPU)
    is copied into each: Partition's constants loop takes each copy as an item, so it has
    positions between one constant's copies, and a run resumed there finishes alike."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    nodes, x = [], "input"
    for b in range(150):
        nodes += [helper.make_node("Conv", [x, "k", "k2"], [f"c{b}"], f"conv{b}"),
                  helper.make_node("Softmax", [f"c{b}"], [f"s{b}"], f"softmax{b}"),
                  helper.make_node("Relu", [f"s{b}"], [f"r{b}"], f"relu{b}")]
        x = f"r{b}"
    weights = [numpy_helper.from_array(np.full([4, 4, 1, 1], 0.5, np.float32), "k"),
               numpy_helper.from_array(np.full([4], 2.0, np.float32), "k2")]
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4, 8, 8]) for n in ("input", x)]
    path = tmp_path / "shared_weight.onnx"
    onnx.save(helper.make_model(helper.make_graph(nodes, "g", io[:1], io[1:], weights)),
              str(path))
    d, fresh = _debuggers(path, tmp_path)
    try:
        finished(d.cont())
        inside = {c.tick: "Partition" for c in d.checkpoints.points()
                  if c.state.pipeline is not None and c.state.pipeline.stage == "Partition"
                  and c.state.pipeline.cut.loop == 1}   # the constants loop
        assert inside, [c.tick for c in d.checkpoints.points()]
        _lands_as_a_fresh_run(d, fresh, inside)
    finally:
        d.close()
        fresh.close()


def test_going_back_restores_the_copy_that_is_cheapest_to_restore_and_re_run_from():
    """A copy's restore costs ticks by the objects it holds: a large copy close behind the
    target loses to a small one further back, and a copy costing more than re-running from
    the start is not used."""
    from workbench.debugger.checkpoint import Checkpoint, CheckpointStore
    store = CheckpointStore(phases=5)
    store.restore_ticks_per_object = 0.1
    for tick, objects in ((2_000, 30_000), (10_000, 20_000), (13_000, 60_000),
                          (30_000, 60_000)):
        store._points[tick] = Checkpoint(tick, (1, 0), None, None, None, objects)
        store._ticks.append(tick)
    assert store.before(2_500) is None   # 2500 ticks from the start beat 500 + 3000
    assert store.before(13_500).tick == 10_000   # 3500 + 2000 beat 500 + 6000
    assert store.before(31_000).tick == 30_000   # 1000 + 6000 beat 21000 + 2000
    store.restore_ticks_per_object = 0
    assert store.before(13_500).tick == 13_000 and store.before(2_500).tick == 2_000


def test_a_look_beside_the_run_inside_cse_copies_no_node_it_merged_away(tmp_path):
    """A copy of its own (materialise: a look at an earlier tick) of a checkpoint inside a
    NodeLoopPass leaves out the nodes the loop is done with: a merged-away one would be copied
    with its desc and weights, into a graph that no longer holds it."""
    from npu_emu.base.trace import TraceBus
    path = _blocks(tmp_path)
    d = Debugger(open_target(str(path), tmp_path), checkpoint_gap=100)
    try:
        finished(d.cont())
        inside = [c for c in d.checkpoints.points()
                  if c.state.pipeline is not None and c.state.pipeline.manager is not None
                  and type(c.state.pipeline.manager.current).__name__
                  == "CommonSubexpressionEliminationPass"]
        assert inside
        for c in inside:
            state = d.checkpoints.materialise(c, TraceBus())
            loop = state.pipeline.manager.current.loop
            live = {id(n) for g in state.graphs() for n in g.all_nodes()}
            assert loop.done and all(n is None for n in loop.nodes[:loop.done])
            assert all(id(n) in live for n in loop.nodes[loop.done:])
            state.discard()
    finally:
        d.close()


def test_a_look_beside_the_run_inside_a_walk_sees_the_nodes_the_walk_had_seen_then(tmp_path):
    """A checkpoint inside a GEPass walk holds how many nodes the walk had seen and shares
    the list of them, which the walk goes on growing (ge_pass._Walk): a copy of its own
    (materialise) must see those the graph still holds (as any such copy leaves out nodes
    passes removed), in that order, and none the walk saw after."""
    from npu_emu.base.trace import TraceBus
    path = _blocks(tmp_path)
    d, fresh = _debuggers(path, tmp_path)

    def walk(state):
        group = state.pipeline.manager.current if state.pipeline.manager is not None else None
        ge_pass = getattr(group, "ge_pass", None)
        return ge_pass.state if ge_pass is not None and ge_pass.state is not None else None
    try:
        finished(d.cont())
        inside = [c for c in d.checkpoints.points()   # not at a walk's outset: none seen yet
                  if c.state.pipeline is not None and walk(c.state) is not None
                  and walk(c.state).visits]
        assert len(inside) >= 3
        for c in inside:
            state = d.checkpoints.materialise(c, TraceBus())
            stopped(fresh.run_to_tick(c.tick))
            then = walk(fresh.state)
            held = [n.name for n in then.order if then.graph.find_node(n.name) is n]
            seen = [n.name for n in walk(state).order]
            assert seen == held and seen
            assert {n.name for n in walk(state).seen} == set(held)
            state.discard()
    finally:
        d.close()
        fresh.close()


def _at_pass(tmp_path: Path, where: str) -> tuple[Debugger, Stopped]:
    """A debugger on a 2000-node synthetic compile, stepped by pass to the one ``where`` ends
    with (the pass's begin), its checkpoints spaced by ticks plus work, at least DEFAULT_GAP
    apart (where the store chooses, by what the run's CPU time says they cost: the same places
    at 40k nodes, where a pattern fusion takes 80-100 ms, not at 2000)."""
    from workbench.debugger.checkpoint import DEFAULT_GAP
    path = tmp_path / "blocks.onnx"
    onnx.save(synthetic_model(2000), str(path))
    d = Debugger(open_target(str(path), tmp_path), checkpoint_gap=DEFAULT_GAP)
    while not (s := stopped(d.step("pass"))).where.endswith(where):
        pass
    return d, s


def test_a_pass_reading_the_whole_graph_in_one_event_is_spaced_by_its_work(tmp_path):
    """A pattern fusion tries every node within one event, so ticks alone undercount it: the
    three in a row before OptimizeOriginalGraph's PrunePass had no checkpoint between them,
    and going back one event from there re-ran all three (250-300 ms at 40k nodes). Spaced by
    tick + work (TraceBus.work), each such pass over a graph wider than the gap ends at one."""
    d, s = _at_pass(tmp_path, "OptimizeOriginalGraph > PrunePass")
    try:
        nearest = d.checkpoints.before(s.tick)
        assert nearest is not None and s.tick - nearest.tick <= 2, nearest
        back = stopped(d.reverse_step("event"))   # re-run from the pass's end before it
        assert back.tick == s.tick - 1 and back.tick - d.run.start_tick <= 2
    finally:
        d.close()


def test_a_walk_setting_out_is_work_a_checkpoint_follows(tmp_path):
    """A GEPass walk sets out by reading every node (the ones it starts from), as the stage's
    start did before it (its inputs, the op types its pass lists ask for): ~50 ms at 40k
    nodes, and a step back to the walk's first visits re-ran all of it. Counted as work, with
    a position as the walk sets out, a checkpoint follows it, and the re-run is a few events."""
    d, s = _at_pass(tmp_path, "Prepare > InferShapeForPreprocess")
    try:
        visit = stopped(d.step("event"))   # the walk's first visit
        assert "NodeVisited" in visit.event
        nearest = d.checkpoints.before(visit.tick)
        assert nearest is not None and nearest.tick == s.tick, nearest
        d.step("pass")
        back = stopped(d.goto(visit.tick))
        assert back.tick == visit.tick and d.run.start_tick == s.tick
    finally:
        d.close()


def test_a_walk_and_partition_have_a_position_a_checkpoint_may_take_every_1024_ticks(tmp_path):
    """A GEPass walk yields a position every 128 visits, or sooner once 1024 ticks have passed
    (InferShapeForPreprocess's visits are ~30 ticks: 3840 ticks, 100-140 ms at 40k nodes, had
    no place between); Partition yields one right after its constructor has read the graph
    (~100 ms at 40k nodes, in no tick)."""
    path = _blocks(tmp_path)
    d = Debugger(open_target(str(path), tmp_path), checkpoint_gap=1)   # a copy at every one
    d.checkpoints.limit = 10_000
    try:
        finished(d.cont())
        points = d.checkpoints.points()
        walks = [(c.tick, c.state.pipeline.manager.current.ge_pass.state) for c in points
                 if c.state.pipeline is not None and c.state.pipeline.manager is not None
                 and getattr(c.state.pipeline.manager.current, "ge_pass", None) is not None
                 and c.state.pipeline.manager.current.ge_pass.state is not None]
        # at 128-visit multiples, and between them where POSITION_TICKS passed since the last
        inside = [(tick, walk.visits) for tick, walk in walks if walk.visits]
        assert any(visits % 128 for _, visits in inside), inside
        cuts = [c.state.pipeline.cut for c in points if c.state.pipeline is not None
                and c.state.pipeline.cut is not None
                and c.state.pipeline.stage == "Partition"]
        assert any(cut.begun and (cut.loop, cut.done) == (0, 0) for cut in cuts)
        # a node loop's, right after its order is made, before any visit (CSE's topological
        # sort: ~40 ms at 20k nodes, which a step back into the loop re-ran)
        loops = [c.state.pipeline.manager.current for c in points
                 if c.state.pipeline is not None and c.state.pipeline.manager is not None
                 and getattr(c.state.pipeline.manager.current, "loop", None) is not None]
        assert any(p.name == "CommonSubexpressionEliminationPass" and p.loop.done == 0
                   and p.loop.nodes for p in loops), [(p.name, p.loop.done) for p in loops]
    finally:
        d.close()
