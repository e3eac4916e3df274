"""Checkpoints inside a compile stage: a GEPass walk (Prepare's InferShape group,
OptimizeOriginalGraph's), Partition and MergeSubgraph stop at resumable positions every 128
nodes (ge_core/passes/ge_pass.py, ge_core/compiler/graph_partitioner.py), so going back into
them re-executes from a copy taken inside the stage, not from its start. A run resumed there must be
indistinguishable from one that never stopped: same trace, same graphs, same place."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from debugger_testing import finished, stopped
from ge_core.graph import dump_graph
from workbench.commands.inspecting import _resumes_at
from workbench.debugger.engine import Debugger
from workbench.debugger.targets import open_target

BLOCKS = 40   # 320 nodes: each walk passes its positions (128 nodes apart) a few times


def _blocks(n: int) -> onnx.ModelProto:
    """``n`` blocks of 8 nodes: a foldable constant, a duplicate branch, an Identity and a
    residual join (what the passes before Partition look for)."""
    nodes, inits, x = [], [], "input"
    for b in range(n):
        p = f"b{b}_"
        inits += [numpy_helper.from_array(np.full([16], 0.5, np.float32), p + "k1"),
                  numpy_helper.from_array(np.full([16], 0.25, np.float32), p + "k2")]
        nodes += [helper.make_node("Add", [p + "k1", p + "k2"], [p + "c"], p + "fold"),
                  helper.make_node("Mul", [x, p + "c"], [p + "m"], p + "mul"),
                  helper.make_node("Relu", [p + "m"], [p + "r1"], p + "relu1"),
                  helper.make_node("Relu", [p + "m"], [p + "r2"], p + "relu2"),
                  helper.make_node("Add", [p + "r1", p + "r2"], [p + "s"], p + "join"),
                  helper.make_node("Identity", [p + "s"], [p + "i"], p + "identity"),
                  helper.make_node("Sigmoid", [p + "i"], [p + "g"], p + "sigmoid"),
                  helper.make_node("Add", [p + "g", x], [p + "out"], p + "residual")]
        x = p + "out"
    graph = helper.make_graph(nodes, "blocks",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [16])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, [16])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _graphs(d: Debugger) -> str:
    return "".join(dump_graph(g) for g in d.state.graphs())


def test_going_back_inside_partition_and_merge_lands_on_a_fresh_runs_state(tmp_path):
    path = tmp_path / "blocks.onnx"
    onnx.save(_blocks(BLOCKS), str(path))
    target = open_target(str(path), tmp_path)
    d = Debugger(target, trace_hash=True, checkpoint_gap=100)
    d.checkpoints.restore_ticks_per_object = 0   # always from the newest copy: each is used
    fresh = Debugger(target, trace_hash=True, checkpoint_gap=10**9)   # never copies
    try:
        end = finished(d.cont())
        whole = d.run.trace_hash()
        inside = {c.tick: c.state.pipeline.stage for c in d.checkpoints.points()
                  if c.state.pipeline is not None and c.state.pipeline.stage is not None}
        assert {"Prepare", "OptimizeOriginalGraph", "Partition", "MergeSubgraph"} <= set(
            inside.values()), inside
        where = {_resumes_at(d, c.position, c.state) for c in d.checkpoints.points()}
        assert {"compile, inside Partition", "compile, inside MergeSubgraph"} <= where  # info
        # several depths: just after each copy inside the stages, and further on
        ticks = sorted({t + k for t in inside for k in (1, 57)})
        seen = {}
        for tick in ticks:   # a run that never went back, stopped at each
            f = stopped(fresh.run_to_tick(tick))
            seen[tick] = (fresh.run.trace_hash(), _graphs(fresh), (f.tick, f.event, f.where))
        held = sorted(c.tick for c in d.checkpoints.points())
        for tick in reversed(ticks):   # going back, each from the landing before
            s = stopped(d.goto(tick))
            assert d.run.start_tick == max(c for c in held if c < tick)
            assert (d.run.trace_hash(), _graphs(d), (s.tick, s.event, s.where)) == seen[tick], \
                f"tick {tick}, resumed from {d.run.start_tick} ({inside.get(d.run.start_tick)})"
        # and forward again from the last landing to the end: the same whole trace
        assert finished(d.cont()).tick == end.tick and d.run.trace_hash() == whole
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
