"""Rewrites are atomic, move control edges and consumers, drop the weights only the match read,
and run in topological order, the same every time; PatternFusionPass steps and traces them."""
import dataclasses

import pytest

from ge_core.graph import GraphUtils, dump_graph
from ge_core.graph.attr_names import ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES
from ge_core.passes import PassManager
from ge_core.pattern_fusion import (ConvReluFusionPass, FusionMatched, In, Pat, Pattern,
                                    PatternFusionPass, RewriteError)
from npu_emu.base.trace import TraceBus, TraceRecorder
from fusion_testing import GraphBuilder, node, run_and_compare

SHAPE = (1, 2, 4, 4)


def conv_relu(b: GraphBuilder, name: str, x, weight=None):
    w = weight if weight is not None else b.weight(f"{name}_w", (2, 2, 3, 3))
    return b.op("Relu", f"{name}_relu", b.op("Conv", name, x, w, pads=[1, 1, 1, 1]))


class Staging(PatternFusionPass):
    """Conv -> Relu, replaced by whatever ``stage(match, rw)`` stages."""

    name = "Staging"
    patterns = ConvReluFusionPass.patterns

    def __init__(self, stage):
        super().__init__()
        self.stage = stage

    def replacement(self, match, rw):
        return self.stage(match, rw)


def fuse_then(fail):
    """Stages a correct FusedConv, then ``fail(match, rw, fused)``."""
    def stage(match, rw):
        fused = rw.add("FusedConv", [match.input("x"), match.input("w")], {"activation": "Relu"})
        return fail(match, rw, fused)
    return stage


def boom(match, rw, fused):
    raise RuntimeError("replacement failed")


@pytest.mark.parametrize("stage, error", [
    (fuse_then(boom), RuntimeError),
    (lambda m, rw: None, None),                                          # declines
    (lambda m, rw: m["conv"].out_data_anchors[0], RewriteError),         # reads a removed node
    (fuse_then(lambda m, rw, f: {"nope": f}), RewriteError),            # unknown output name
    (fuse_then(lambda m, rw, f: rw.add("Relu", [f], name="x")), RewriteError),  # name taken
])
def test_a_replacement_that_raises_declines_or_is_inconsistent_leaves_the_graph_untouched(stage,
                                                                                         error):
    b = GraphBuilder()
    g = b.output(conv_relu(b, "conv", b.data("x", SHAPE)))
    before, edits = dump_graph(g), g.edits.snapshot()
    p = Staging(stage)
    if error is None:
        assert p.run(g) is False
    else:
        with pytest.raises(error):
            p.run(g)
    assert dump_graph(g) == before
    assert not g.edits.since(edits).any


def test_control_edges_move_to_the_fused_node():
    b = GraphBuilder()
    x = b.data("x", SHAPE)
    g = b.output(conv_relu(b, "conv", x), b.op("Sigmoid", "before", x), b.op("Exp", "after", x))
    node(g, "before").out_control_anchor.link_to(node(g, "conv").in_control_anchor)
    node(g, "conv_relu").out_control_anchor.link_to(node(g, "after").in_control_anchor)
    ConvReluFusionPass().run(g)
    fused = node(g, "conv_relu")
    assert fused.type == "FusedConv"
    assert [n.name for n in fused.in_control_nodes()] == ["before"]
    assert [n.name for n in fused.out_control_nodes()] == ["after"]


def test_a_weight_goes_when_the_last_match_reading_it_does():
    b = GraphBuilder()
    x = b.data("x", SHAPE)
    w = b.weight("shared_w", (2, 2, 3, 3))
    b.output(conv_relu(b, "c1", x, w), conv_relu(b, "c2", x, w))
    g = b.graph

    class FoldWeight(PatternFusionPass):  # the weight becomes a fresh Const each time
        name = "FoldWeight"
        patterns = ConvReluFusionPass.patterns

        def replacement(self, match, rw):
            w2 = rw.const(f"{match['conv'].name}_w2", match.const("w") * 2)
            return rw.add("FusedConv", [match.input("x"), w2], {"activation": "Relu"})

    p = FoldWeight()
    steps = p.walk(g)
    next(steps)  # about to rewrite c1_relu: the weight is still read by c2
    next(steps)
    assert g.find_node("shared_w") is not None and node(g, "c1_relu").type == "FusedConv"
    with pytest.raises(StopIteration):
        next(steps)
    assert g.find_node("shared_w") is None
    assert [n.name for n in g if n.type == "Const"] == ["c1_w2", "c2_w2"]


def test_a_fused_node_is_named_after_the_output_it_replaces_and_lists_what_it_came_from():
    b = GraphBuilder()
    g = b.output(conv_relu(b, "conv1", b.data("x", SHAPE)))
    ConvReluFusionPass().run(g)
    fused = node(g, "conv1_relu")
    assert fused.op_desc.get_attr(ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES) == ["conv1", "conv1_relu"]
    assert "%conv1_relu : FusedConv(%x:0, %conv1_w:0) -> f32[1,2,4,4] => [%out:0]" in dump_graph(g)


def graph_with_chains(bus=None):
    """x -> early conv/relu -> head -> late conv/relu, the late chain inserted first."""
    b = GraphBuilder(bus=bus)
    x = b.data("x", SHAPE)
    head = b.op("Sigmoid", "head", None)  # its input is linked once `early` exists
    late = conv_relu(b, "late", head)
    early = conv_relu(b, "early", x)
    op = head.owner.op_desc
    op.update_input_desc(0, dataclasses.replace(op.input_descs[0], absent=False))
    GraphUtils.add_edge(early, head.owner.in_data_anchors[0])
    return b, b.output(late)


def test_rewrites_follow_the_topological_order_the_same_way_every_run():
    runs = []
    for _ in range(2):
        bus = TraceBus()
        recorder = TraceRecorder()
        bus.subscribe(recorder)
        _, g = graph_with_chains(bus)
        p = ConvReluFusionPass()
        p.run(g)
        matched = [e for e in recorder.events if isinstance(e, FusionMatched)]
        runs.append((dump_graph(g), [e.describe() for e in recorder.events]))
        assert p.fused == ["early_relu", "late_relu"]
        assert [e.nodes for e in matched] == ["early,early_relu", "late,late_relu"]
    assert runs[0] == runs[1]


def test_a_pass_manager_steps_fusion_by_fusion_and_the_numbers_hold():
    b, g = graph_with_chains()
    manager = PassManager("test").add_pass("ConvReluFusionPass", ConvReluFusionPass())
    steps = [(s.kind, s.node) for s in manager.iter_run(g)]
    assert steps == [("node", "early_relu"), ("node", "late_relu"), ("pass", ""),
                     ("position", "")]   # a copy taken after the pass resumes past it
    assert manager.history[-1].nodes_removed == 4
    b2, _ = graph_with_chains()
    assert run_and_compare(b2, ConvReluFusionPass()) == [2]


def test_two_items_of_a_pattern_may_not_share_a_name():
    with pytest.raises(ValueError, match="two items named 'x'"):
        Pattern(Pat("Add", In("x"), In("x"), name="add"))
