"""The graph IR: anchors, GraphUtils edits, validation messages, order, events, dump."""
import pytest

from ge_core.graph import (ComputeGraph, DataType, GeShape, GeTensorDesc, GraphError, GraphUtils,
                           GraphValidationError, OpDesc, dump_graph, to_dot, validate)
from ge_core.graph.events import AnchorLinked, AnchorUnlinked, AttrSet, NodeAdded, NodeRemoved
from npu_emu.base.trace import TraceBus, TraceRecorder

F32 = DataType.DT_FLOAT


def _node(g, name, type_, n_in, n_out, shape=(2, 3), **attrs):
    op = OpDesc(name, type_, n_in, n_out, attrs)
    desc = GeTensorDesc(GeShape(shape), F32)
    op.input_descs, op.output_descs = [desc] * n_in, [desc] * n_out
    return g.add_node(op)


def chain(bus=None):
    """x -> a(Relu) -> b(Exp) -> out"""
    g = ComputeGraph("g", bus or TraceBus())
    x = _node(g, "x", "Data", 0, 1, index=0)
    a = _node(g, "a", "Relu", 1, 1)
    b = _node(g, "b", "Exp", 1, 1)
    out = _node(g, "out", "NetOutput", 1, 0)
    GraphUtils.add_edge(x.out_data_anchor(0), a.in_data_anchor(0))
    GraphUtils.add_edge(a.out_data_anchor(0), b.in_data_anchor(0))
    GraphUtils.add_edge(b.out_data_anchor(0), out.in_data_anchor(0))
    return g, x, a, b, out


def test_anchors_link_both_ways():
    g, x, a, b, out = chain()
    assert a.in_data_anchor(0).peer is x.out_data_anchor(0)
    assert x.out_data_anchor(0).peers == [a.in_data_anchor(0)]
    assert a.in_data_nodes() == [x] and a.out_data_nodes() == [b]


def test_out_anchor_feeds_many_in_anchor_takes_one():
    g, x, a, b, out = chain()
    GraphUtils.add_edge(x.out_data_anchor(0), b.add_input())
    assert len(x.out_data_anchor(0).peers) == 2
    with pytest.raises(GraphError, match="a:0 already has producer x:0"):
        GraphUtils.add_edge(b.out_data_anchor(0), a.in_data_anchor(0))


def test_data_and_control_cannot_mix():
    g, x, a, b, out = chain()
    with pytest.raises(GraphError, match="data and control mixed"):
        GraphUtils.add_edge(x.out_data_anchor(0), b.in_control_anchor)


def test_replace_edge_src_and_dst():
    g, x, a, b, out = chain()
    GraphUtils.replace_edge_src(a.out_data_anchor(0), b.in_data_anchor(0), x.out_data_anchor(0))
    assert b.in_data_anchor(0).peer is x.out_data_anchor(0)
    assert a.out_data_anchor(0).peers == []
    GraphUtils.replace_edge_dst(x.out_data_anchor(0), b.in_data_anchor(0), out.add_input())
    assert b.in_data_anchor(0).peer is None
    assert out.in_data_nodes() == [b, x]


def test_insert_node_between():
    g, x, a, b, out = chain()
    c = _node(g, "c", "Abs", 1, 1)
    GraphUtils.insert_node_between(a.out_data_anchor(0), b.in_data_anchor(0), c)
    assert [n.name for n in g.topological_sort()] == ["x", "a", "c", "b", "out"]


def test_isolate_node_reconnects_data_and_control():
    g, x, a, b, out = chain()
    pre = _node(g, "pre", "NoOp", 0, 0)
    post = _node(g, "post", "NoOp", 0, 0)
    GraphUtils.add_edge(pre.out_control_anchor, a.in_control_anchor)
    GraphUtils.add_edge(a.out_control_anchor, post.in_control_anchor)
    GraphUtils.isolate_and_remove(a)
    assert g.find_node("a") is None
    assert b.in_data_anchor(0).peer is x.out_data_anchor(0)
    # pre ran before a, a before b (data) and post: pre must still run before both.
    assert sorted(n.name for n in pre.out_control_nodes()) == ["b", "post"]
    validate(g)


def test_remove_node_unlinks_everything():
    g, x, a, b, out = chain()
    GraphUtils.remove_node(b)
    assert a.out_data_anchor(0).peers == [] and out.in_data_anchor(0).peer is None
    with pytest.raises(GraphValidationError, match="node out .NetOutput.: input 0 has no producer"):
        validate(g)


def test_remove_node_refuses_connected_node():
    g, x, a, b, out = chain()
    with pytest.raises(GraphError, match="node a still has edges"):
        g.remove_node(a)


def test_duplicate_name_is_rejected():
    g, *_ = chain()
    with pytest.raises(GraphError, match="node name 'a' already exists"):
        _node(g, "a", "Relu", 1, 1)


def test_cycle_error_names_a_node_on_the_cycle():
    g, x, a, b, out = chain()
    tail = _node(g, "tail", "Abs", 0, 0)  # downstream of the cycle, not on it
    GraphUtils.add_edge(b.out_control_anchor, a.in_control_anchor)
    GraphUtils.add_edge(b.out_control_anchor, tail.in_control_anchor)
    with pytest.raises(GraphError, match=r"cycle through node (a|b) "):
        validate(g)


def test_dangling_anchor_is_reported():
    g, x, a, b, out = chain()
    x.out_data_anchor(0).peers.clear()  # corrupt one side only, as a buggy pass might
    with pytest.raises(GraphValidationError, match="node a .Relu.: input 0 is dangling"):
        validate(g)


def _fan_out(width):
    """x feeding ``width`` Relus, each read by the NetOutput."""
    g = ComputeGraph("g", TraceBus())
    x = _node(g, "x", "Data", 0, 1, index=0)
    out = _node(g, "out", "NetOutput", width, 0)
    relus = [_node(g, f"r{i}", "Relu", 1, 1) for i in range(width)]
    for i, r in enumerate(relus):
        GraphUtils.add_edge(x.out_data_anchor(0), r.in_data_anchor(0))
        GraphUtils.add_edge(r.out_data_anchor(0), out.in_data_anchor(i))
    return g, x, relus


def test_dangling_anchor_of_a_widely_read_output_is_reported():
    # an output with many consumers is checked through a set: the fault is still found
    g, x, relus = _fan_out(40)
    validate(g)
    x.out_data_anchor(0).peers.remove(relus[23].in_data_anchor(0))
    with pytest.raises(GraphValidationError, match="node r23 .Relu.: input 0 is dangling"):
        validate(g)


def test_unlink_from_a_widely_read_output_in_any_order():
    g, x, relus = _fan_out(40)
    anchors = [r.in_data_anchor(0) for r in relus]
    for i in (39, 0, 17, 38, 1):   # the last, the first and between
        x.out_data_anchor(0).unlink(anchors[i])
        assert anchors[i].peer is None
    kept = [a for i, a in enumerate(anchors) if i not in (39, 0, 17, 38, 1)]
    assert x.out_data_anchor(0).peers == kept
    with pytest.raises(GraphError, match="is not linked"):
        x.out_data_anchor(0).unlink(anchors[0])


def test_absent_optional_input_is_fine():
    g, x, a, b, out = chain()
    clip = _node(g, "clip", "Clip", 2, 1)
    clip.op_desc.input_descs[1] = GeTensorDesc(absent=True)
    GraphUtils.add_edge(b.out_data_anchor(0), clip.in_data_anchor(0))
    GraphUtils.add_edge(clip.out_data_anchor(0), out.add_input())
    validate(g)


def test_dtype_and_rank_mismatch_on_an_edge():
    g, x, a, b, out = chain()
    b.op_desc.update_input_desc(0, GeTensorDesc(GeShape((2, 3)), DataType.DT_INT64))
    with pytest.raises(GraphValidationError,
                       match="node b .Exp.: input 0 expects i64 but a:0 produces f32"):
        validate(g)
    b.op_desc.input_descs[0] = GeTensorDesc(GeShape((2, 3, 2)), F32)
    with pytest.raises(GraphValidationError, match="expects rank 3 but a:0 produces"):
        validate(g)
    b.op_desc.input_descs[0] = GeTensorDesc(GeShape((2, 3, 1)), F32)
    validate(g)   # as many elements: a flat read, where ReshapeRemovePass took a Reshape out


def test_topological_sort_is_deterministic_by_insertion():
    g = ComputeGraph("diamond", TraceBus())
    src = _node(g, "src", "Data", 0, 1)
    right = _node(g, "right", "Relu", 1, 1)  # inserted first, so sorted first
    left = _node(g, "left", "Relu", 1, 1)
    join = _node(g, "join", "Add", 2, 1)
    for n, i in ((right, 1), (left, 0)):
        GraphUtils.add_edge(src.out_data_anchor(0), n.in_data_anchor(0))
        GraphUtils.add_edge(n.out_data_anchor(0), join.in_data_anchor(i))
    assert [n.name for n in g.topological_sort()] == ["src", "right", "left", "join"]


def _min_seq_kahn(g):
    """Kahn's order by the definition: among the ready nodes, the first inserted."""
    done, order = set(), []
    while len(order) < len(g):
        ready = [n for n in g.nodes if n not in done and all(p in done for p in n.in_nodes())]
        order.append(min(ready, key=lambda n: n.seq))
        done.add(order[-1])
    return order


def test_topological_sort_takes_insertion_order_only_when_it_is_kahns():
    g = ComputeGraph("g", TraceBus())
    src = _node(g, "src", "Data", 0, 1)
    a = _node(g, "a", "Add", 2, 1)
    b = _node(g, "b", "Relu", 1, 1)
    GraphUtils.add_edge(src.out_data_anchor(0), b.in_data_anchor(0))
    GraphUtils.add_edge(b.out_data_anchor(0), a.in_data_anchor(0))   # b feeds a, inserted before
    late = _node(g, "late", "Const", 0, 1)   # a producer added after its consumer, as a fold does
    GraphUtils.add_edge(late.out_data_anchor(0), a.in_data_anchor(1))
    assert g.topological_sort() == _min_seq_kahn(g)
    assert [n.name for n in g.topological_sort()] == ["src", "b", "late", "a"]
    g2, x, a2, b2, out = chain()
    GraphUtils.add_edge(a2.out_control_anchor, b2.in_control_anchor)
    assert g2.topological_sort() == _min_seq_kahn(g2) == [x, a2, b2, out]   # in order already
    GraphUtils.add_edge(out.out_control_anchor, a2.in_control_anchor)   # a cycle, by control
    with pytest.raises(GraphError, match="cycle"):
        g2.topological_sort()


def test_mutations_are_trace_events():
    bus = TraceBus()
    rec = TraceRecorder()
    bus.subscribe(rec)
    g, x, a, b, out = chain(bus)
    a.op_desc.set_attr("stream_id", 1)
    GraphUtils.isolate_and_remove(a)
    kinds = [type(e) for e in rec.events]
    assert kinds[:4] == [NodeAdded] * 4
    assert kinds.count(AnchorLinked) == 3 + 1  # chain + the reconnection
    assert AnchorUnlinked in kinds and kinds[-1] is NodeRemoved
    attr = next(e for e in rec.events if isinstance(e, AttrSet))
    assert (attr.node, attr.key, attr.old, attr.new) == ("a", "stream_id", "None", "1")
    assert [e.tick for e in rec.events] == list(range(1, len(rec.events) + 1))


def test_unobserved_bus_builds_no_events():
    bus = TraceBus()
    chain(bus)
    assert bus.tick == 0


def test_subgraphs_are_owned_by_the_root():
    g, x, a, b, out = chain()
    body = ComputeGraph("body")
    _node(body, "inner", "Relu", 0, 0)
    g.add_subgraph(b, body)
    assert g.subgraph("body") is body and body.root is g and body.parent_node is b
    assert body.bus is g.bus
    assert [n.name for n in g.all_nodes()] == ["x", "a", "b", "inner", "out"]
    assert [n.name for n in body.all_nodes()] == ["inner"]
    assert g.holds("Relu") and g.holds("Conv", "Relu") and not g.holds("Conv")
    assert not body.holds("Data")
    with pytest.raises(GraphError, match="subgraph name 'body' already exists"):
        g.add_subgraph(a, ComputeGraph("body"))


def test_a_node_has_in_and_out_nodes_by_data_or_control_edge():
    g, x, a, b, out = chain()
    assert [n.has_in_nodes() for n in (x, a, b, out)] == [False, True, True, True]
    assert [n.has_out_nodes() for n in (x, a, b, out)] == [True, True, True, False]
    c, d = _node(g, "c", "Relu", 1, 1), _node(g, "d", "Relu", 1, 1)
    assert not c.has_in_nodes() and not c.has_out_nodes()
    GraphUtils.add_edge(x.out_control_anchor, c.in_control_anchor)
    GraphUtils.add_edge(c.out_control_anchor, d.in_control_anchor)
    assert c.has_in_nodes() and c.in_nodes() == [x]
    assert c.has_out_nodes() and c.out_nodes() == [d]


def test_unknown_dims_and_rank():
    assert GeShape((1, -1, 4)).is_unknown and str(GeShape((1, -1, 4))) == "[1,?,4]"
    assert GeShape.unknown_rank().rank is None and str(GeShape.unknown_rank()) == "[*]"
    assert GeShape((2, 3)).num_elements() == 6 and GeShape((2, -1)).num_elements() is None


def test_dump_is_one_line_per_node_with_peers():
    g, x, a, b, out = chain()
    a.op_desc.set_attr("alpha", 0.5)
    GraphUtils.add_edge(x.out_control_anchor, b.in_control_anchor)
    assert dump_graph(g) == (
        "graph g (4 nodes)\n"
        "  %x : Data() -> f32[2,3] => [%a:0]; [^%b] {index=0}\n"
        "  %a : Relu(%x:0) -> f32[2,3] => [%b:0] {alpha=0.5}\n"
        "  %b : Exp(%a:0, ^%x) -> f32[2,3] => [%out:0]\n"
        "  %out : NetOutput(%b:0) -> ()\n")


def test_dot_export():
    g, *_ = chain()
    dot = to_dot(g)
    assert dot.startswith('digraph "g" {') and '"a" -> "b" [label="f32[2,3]"];' in dot


def test_topological_order_is_kept_until_an_edit():
    g, x, a, b, out = chain()
    first = g.topological_sort()
    assert g.topological_sort() == first and g.topological_sort() is not first  # a copy
    c = _node(g, "c", "Neg", 1, 1)
    GraphUtils.insert_node_between(a.out_data_anchor(0), b.in_data_anchor(0), c)
    assert [n.name for n in g.topological_sort()] == ["x", "a", "c", "b", "out"]
    p, q = _node(g, "p", "Data", 0, 1), _node(g, "q", "Data", 0, 1)
    assert [n.name for n in g.topological_sort()][-2:] == ["p", "q"]
    g.reorder([q, p, x, a, c, b, out])
    assert [n.name for n in g.topological_sort()] == ["q", "p", "x", "a", "c", "b", "out"]


def test_a_discarded_graph_leaves_no_cycles_for_the_collector():
    import gc
    gc.collect()
    gc.disable()
    try:
        g, *_ = chain()
        g.discard()
        del g, _
        assert gc.collect() == 0
        g, *_ = chain()
        del g, _
        assert gc.collect() > 0  # undiscarded, the same graph is cyclic garbage
    finally:
        gc.enable()


def test_dump_counts_a_one_node_subgraph_in_the_singular():
    g, x, a, b, out = chain()
    body = ComputeGraph("body")
    _node(body, "inner", "Relu", 0, 0)
    g.add_subgraph(b, body)
    assert "subgraph body of %b (1 node)\n" in dump_graph(g)
    assert dump_graph(body).startswith("graph body (1 node)\n")


def test_one_watcher_of_a_graphs_edits_at_a_time():
    g, x, a, b, out = chain()
    touched = g.edits.watch()
    a.op_desc.set_attr("alpha", 0.5)
    assert touched == {a: {"alpha"}}
    with pytest.raises(GraphError, match="already watched"):
        g.edits.watch()
    g.edits.unwatch()
    assert g.edits.watch() == {}


def test_edit_counts_since_gives_each_type_its_net_change():
    g, x, a, b, out = chain()
    before = g.edits.snapshot()
    GraphUtils.isolate_and_remove(a)                  # a Relu gone
    _node(g, "c", "Sigmoid", 1, 1)                    # a Sigmoid made
    _node(g, "d", "Exp", 1, 1)
    GraphUtils.remove_node(g.find_node("d"))          # an Exp made and gone: no change
    delta = g.edits.since(before)
    assert dict(delta.types) == {"Relu": -1, "Sigmoid": 1}
    assert (delta.nodes_added, delta.nodes_removed) == (2, 2)


def test_the_edit_total_counts_every_kind_of_edit_once():
    """GEPass reads ``total`` for whether a node pass edited: an edit that counted in its own
    total and not in it would go unseen (re-pass, the pass's record of edits)."""
    from ge_core.graph.compute_graph import edit_totals
    g, x, a, b, out = chain()
    before = g.edits.snapshot()
    GraphUtils.isolate_and_remove(a)                  # unlinks, links, a node removed
    c = _node(g, "c", "Sigmoid", 1, 1)                # a node added
    c.op_desc.set_attr("alpha", 1.0)                  # an attr set
    c.op_desc.set_type("Exp")                         # a type set
    c.op_desc.update_input_desc(0, GeTensorDesc(GeShape([2])))   # a desc updated
    g.set_attr("note", 1)                             # a graph attr set
    delta = g.edits.since(before)
    counts = edit_totals(delta)[:-1]   # every total but ``total`` itself
    assert all(counts) and delta.total == sum(counts)


def test_an_inferred_desc_carries_every_field_infershape_does_not_write():
    """inferred() names the fields by hand (it is on every desc InferShape writes): a field
    added to the dataclass and not to it would be lost from every inferred desc."""
    import dataclasses

    from ge_core.graph.types import Format
    desc = GeTensorDesc(GeShape([2, 3]), DataType.DT_FLOAT16, Format.FORMAT_NCHW,
                        GeShape([6]), Format.FORMAT_NHWC, absent=True)
    assert all(getattr(desc, f.name) != f.default for f in dataclasses.fields(desc))
    shape, origin = GeShape((4,)), GeShape((1, 4))
    assert desc.inferred(shape, DataType.DT_INT32) == dataclasses.replace(
        desc, shape=shape, dtype=DataType.DT_INT32)
    assert desc.inferred(shape, DataType.DT_INT32, origin_shape=origin, absent=False) == \
        dataclasses.replace(desc, shape=shape, dtype=DataType.DT_INT32, origin_shape=origin,
                            absent=False)


def test_a_tensor_desc_is_frozen_and_copies_share_it():
    """A desc is replaced, never changed in place: a copy of an op (and a checkpoint's of a
    graph) shares its descs, and one replaced in the original leaves the copy's as it was."""
    import dataclasses
    desc = GeTensorDesc(GeShape((2, 3)), DataType.DT_FLOAT)
    with pytest.raises(dataclasses.FrozenInstanceError):
        desc.shape = GeShape((3,))
    op = OpDesc("a", "Relu", 1, 1)
    op.update_output_desc(0, desc)
    twin = op.clone()
    assert twin.output_descs[0] is desc
    op.update_output_desc(0, GeTensorDesc(GeShape((4,)), DataType.DT_FLOAT))
    assert str(twin.output_descs[0]) == "f32[2,3]" and str(op.output_descs[0]) == "f32[4]"


def test_a_graph_deep_copied_on_its_own_is_a_whole_graph_of_its_own():
    """copy.deepcopy, as a copy for a look beside the run makes of a graph outside the state's
    own: every field of the slotted graph, the nodes and their links copied."""
    import copy
    g = ComputeGraph("g")
    a, b = g.add_node(OpDesc("a", "Relu", 1, 1)), g.add_node(OpDesc("b", "Relu", 1, 1))
    a.out_data_anchors[0].link_to(b.in_data_anchors[0])
    g.set_attr("opset", 13)
    h = copy.deepcopy(g)
    assert [n.name for n in h.topological_sort()] == ["a", "b"] and h.attrs == {"opset": 13}
    assert h.find_node("a") is not a and h.find_node("b").in_nodes() == [h.find_node("a")]
