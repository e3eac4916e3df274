"""The vector clocks that answer the event minimiser and the race check agree with networkx on
random multi-stream graphs: `ordered` is a path, `implied` is an edge the transitive reduction
drops (networkx is the independent oracle here; the build no longer calls it, since its
reduction is quadratic)."""
import random

import networkx as nx
import pytest

from ge_core.compiler.stream.happens_before import HappensBefore, stream_edges
from ge_core.compiler.stream.stream_active import activation_edges
from ge_core.compiler.stream.sync_events import InsertSyncEvents, SyncState
from ge_core.compiler.stream.topo_order import model_order
from stream_testing import Builder


def random_graph(seed: int, size: int = 30, streams: int = 4, fan_in: int = 3) -> Builder:
    rng = random.Random(seed)
    g, names = Builder(), []
    for i in range(size):
        inputs = rng.sample(names, k=min(len(names), rng.randint(0, fan_in)))
        g.add(f"n{i}", inputs=inputs, stream_id=rng.randrange(streams))
        names.append(f"n{i}")
    return g


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("fan_in", [3, 12])   # 12: joins with several inputs per stream
def test_clocks_agree_with_paths_and_the_transitive_reduction(seed, fan_in):
    g = random_graph(seed, fan_in=fan_in)
    state = SyncState(g.graph)
    InsertSyncEvents(state).run(g.graph)
    assert state.dependencies   # four streams and thirty nodes: some edges cross
    nodes = model_order(g.graph)
    hb = HappensBefore(nodes, state.dependencies)
    oracle = nx.DiGraph()
    oracle.add_nodes_from(nodes)
    oracle.add_edges_from(stream_edges(nodes) + activation_edges(nodes) + state.dependencies)
    reduced = nx.transitive_reduction(oracle)
    for src, dst in state.dependencies:
        assert hb.implied(src, dst) == (not reduced.has_edge(src, dst)), (src.name, dst.name)
    for a in nodes:
        for b in nodes:
            assert hb.ordered(a, b) == (a is b or nx.has_path(oracle, a, b)), (a.name, b.name)
