"""PatternMatcher on hand-built graphs: the backwards walk, backtracking, one-to-one binding,
self-containment, optional and Const inputs, several outputs, requirements."""
import pytest

from ge_core.pattern_fusion import In, Pat, Pattern, PatternMatcher
from fusion_testing import GraphBuilder, node

CONV_SHAPE = (1, 2, 4, 4)


def two_convs_added():
    """add = conv_a(d1, wa: a graph input) + conv_b(d2, wb: a Const)"""
    b = GraphBuilder()
    d1, d2, wa = b.data("d1", CONV_SHAPE), b.data("d2", CONV_SHAPE), b.data("wa", (3, 2, 1, 1))
    conv_a = b.op("Conv", "conv_a", d1, wa)
    conv_b = b.op("Conv", "conv_b", d2, b.weight("wb", (3, 2, 1, 1)))
    return b.output(b.op("Add", "add", conv_a, conv_b))


def test_backtracks_out_of_a_branch_that_fails_deep_and_undoes_its_bindings():
    # Input order (0, 1) first binds const_conv to conv_a and x to d1, then fails on conv_a's
    # weight (not a Const). The swapped order must find x unbound again: were d1 left bound,
    # conv_b's input d2 would not match it and there would be no match at all.
    g = two_convs_added()
    const_conv = Pat("Conv", In("x"), In("w", const=True), name="const_conv")
    other = Pat("Conv", In("y"), In("v"), name="other")
    pattern = Pattern(Pat("Add", const_conv, other, name="add", commutative=True))
    m = PatternMatcher(pattern).match_at(node(g, "add"))
    assert (m["const_conv"].name, m["other"].name) == ("conv_b", "conv_a")
    assert m.input("x").owner.name == "d2" and m.input("y").owner.name == "d1"
    assert [n.name for n in m.removed] == ["conv_b", "conv_a", "add"]


def test_a_predicate_refusing_the_first_candidate_sends_the_search_to_the_other_operand():
    g = two_convs_added()
    asked = []

    def const_weight(n):
        asked.append(n.name)
        return n.in_data_nodes()[1].type == "Const"

    wanted = Pat("Conv", In("x"), In("w"), name="wanted", pred=const_weight)
    pattern = Pattern(Pat("Add", wanted, Pat("Conv", In("y"), In("v"), name="any"), name="add",
                          commutative=True))
    m = PatternMatcher(pattern).match_at(node(g, "add"))
    assert asked == ["conv_a", "conv_b"]
    assert m["wanted"].name == "conv_b"


def test_two_pattern_nodes_never_bind_one_graph_node():
    b = GraphBuilder()
    conv = b.op("Conv", "conv", b.data("x", CONV_SHAPE), b.weight("w", (3, 2, 1, 1)))
    g = b.output(b.op("Add", "add", conv, conv))
    x, w = In("x"), In("w")
    c1, c2 = Pat("Conv", x, w, name="c1"), Pat("Conv", x, w, name="c2")
    assert PatternMatcher(Pattern(Pat("Add", c1, c2, name="add"))).match_at(node(g, "add")) is None
    # ... while one pattern node reached along two paths must meet the same graph node.
    m = PatternMatcher(Pattern(Pat("Add", c1, c1, name="add"))).match_at(node(g, "add"))
    assert m["c1"].name == "conv"


def conv_relu_also_read_by_the_output():
    b = GraphBuilder()
    conv = b.op("Conv", "conv", b.data("x", CONV_SHAPE), b.weight("w", (3, 2, 1, 1)))
    return b.output(b.op("Relu", "relu", conv), conv)


def test_a_match_whose_interior_feeds_an_outside_node_is_refused():
    g = conv_relu_also_read_by_the_output()
    relu = Pat("Relu", Pat("Conv", In("x"), In("w"), name="conv"), name="relu")
    assert PatternMatcher(Pattern(relu)).match_at(node(g, "relu")) is None


def test_a_shared_interior_node_may_feed_outside_and_then_stays():
    g = conv_relu_also_read_by_the_output()
    relu = Pat("Relu", Pat("Conv", In("x"), In("w"), name="conv", shared=True), name="relu")
    m = PatternMatcher(Pattern(relu)).match_at(node(g, "relu"))
    assert [n.name for n in m.removed] == ["relu"]


def test_a_second_output_of_a_node_the_rewrite_removes_must_be_unread():
    b = GraphBuilder()
    split = b.op("Split", "split", b.data("x", CONV_SHAPE), outputs=2, axis=1)
    g = b.output(b.op("Relu", "relu", split), split.owner.out_data_anchors[1])
    pattern = Pattern(Pat("Relu", Pat("Split", In("x"), name="split"), name="relu"))
    assert PatternMatcher(pattern).match_at(node(g, "relu")) is None


def conv_with_bias(bias: str):
    """bias: 'const', 'absent' (an input left out) or 'none' (only two inputs)."""
    b = GraphBuilder()
    x, w = b.data("x", CONV_SHAPE), b.weight("w", (3, 2, 1, 1))
    extra = {"const": (b.weight("b", (3,)),), "absent": (None,), "none": ()}[bias]
    return b.output(b.op("Conv", "conv", x, w, *extra))


@pytest.mark.parametrize("bias, two_inputs, optional_bias", [
    ("const", False, True), ("absent", True, True), ("none", True, True)])
def test_inputs_beyond_the_pattern_must_be_absent_and_optional_ones_may_be(bias, two_inputs,
                                                                             optional_bias):
    g = conv_with_bias(bias)
    short = Pattern(Pat("Conv", In("x"), In("w", const=True), name="conv"))
    full = Pattern(Pat("Conv", In("x"), In("w", const=True), In("b", optional=True), name="conv"))
    assert (PatternMatcher(short).match_at(node(g, "conv")) is not None) == two_inputs
    m = PatternMatcher(full).match_at(node(g, "conv"))
    assert (m is not None) == optional_bias
    assert (m.input("b") is None) == (bias != "const")
    required = Pattern(Pat("Conv", In("x"), In("w"), In("b"), name="conv"))
    assert (PatternMatcher(required).match_at(node(g, "conv")) is not None) == (bias == "const")


def test_a_const_input_refuses_any_other_producer():
    g = two_convs_added()
    pattern = Pattern(Pat("Conv", In("x"), In("w", const=True), name="conv"))
    assert PatternMatcher(pattern).match_at(node(g, "conv_a")) is None
    assert PatternMatcher(pattern).match_at(node(g, "conv_b")).const("w").shape == (3, 2, 1, 1)


def test_a_pattern_with_two_outputs_finds_the_second_among_the_graph_nodes():
    b = GraphBuilder()
    conv = b.op("Conv", "conv", b.data("x", CONV_SHAPE), b.weight("w", (3, 2, 1, 1)))
    g = b.output(b.op("Relu", "relu", conv), b.op("Sigmoid", "sigmoid", conv))
    shared = Pat("Conv", In("x"), In("w"), name="conv")
    pattern = Pattern(Pat("Relu", shared, name="relu"), Pat("Sigmoid", shared, name="sig"))
    m = PatternMatcher(pattern).match_at(node(g, "relu"))
    assert [n.name for n in m.removed] == ["conv", "relu", "sigmoid"]
    # Without the Sigmoid in the pattern the Conv has an outside consumer.
    alone = Pattern(Pat("Relu", shared, name="relu"))
    assert PatternMatcher(alone).match_at(node(g, "relu")) is None


def test_requirement_takes_part_in_the_search():
    g = two_convs_added()
    conv = Pat("Conv", In("x"), In("w"), name="conv")
    pattern = Pattern(Pat("Add", conv, Pat("Conv", In("y"), In("v"), name="other"), name="add",
                          commutative=True))
    m = PatternMatcher(pattern, lambda m: m["conv"].name == "conv_b").match_at(node(g, "add"))
    assert m["conv"].name == "conv_b"
    assert PatternMatcher(pattern, lambda m: False).match_at(node(g, "add")) is None
