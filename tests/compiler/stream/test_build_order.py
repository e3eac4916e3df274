"""The build's one node order: fixed before logical streams (memory lifetimes and stream order
rely on it) and kept when the event nodes are spliced in."""
import pytest

from ge_core.compiler.graph_partitioner import engine_grouped_order
from ge_core.compiler.stream import StreamOptions, assign_streams
from ge_core.compiler.stream.topo_order import fix_build_order
from ge_core.graph import GraphError
from stream_testing import GE_LOCAL, RTS_NO_DATA, VECTOR, Builder, ai_core_then, compiled


def test_constants_first_then_the_engine_grouped_order_and_sorting_keeps_it():
    g = ai_core_then("v", "Add", VECTOR, arity=2)
    g.add("b", inputs=["x"])
    g.add("w", "Const", GE_LOCAL)
    g.add("c", "Add", VECTOR, inputs=["v", "b", "w"])
    want = ["w"] + [n.name for n in engine_grouped_order(g.graph)]
    fix_build_order(g.graph)
    assert [n.name for n in g.graph.topological_sort()] == want == ["w", "x", "a", "b", "v", "c"]
    assert [n.name for n in g.graph] == want


def test_reorder_refuses_an_order_that_breaks_an_edge_or_drops_a_node():
    g = Builder()
    a = g.add("a")
    b = g.add("b", inputs=["a"])
    with pytest.raises(GraphError, match="reorder puts b before its input a"):
        g.graph.reorder([b, a])
    with pytest.raises(GraphError, match="needs each of its 2 nodes once"):
        g.graph.reorder([a, a])


def test_event_nodes_are_spliced_in_without_moving_any_other_node():
    graph = compiled("inception_v1")
    fix_build_order(graph)
    before = [n.name for n in graph.topological_sort()]
    report = assign_streams(graph, StreamOptions(stream_max_parallel_num=4))
    after = graph.topological_sort()
    assert [n.name for n in after if n.type not in RTS_NO_DATA] == before
    sends = [i for i, n in enumerate(after) if n.type == "Send"]
    assert len(sends) == report.events
    assert all(after[i - 1] in after[i].in_control_nodes() or after[i - 1].type == "Send"
               for i in sends)
