"""ConcatNotaskPass: which Concats launch no task (GE's notask_pass_base.cc checks), and that
the task generator then emits none for them."""
import sys
from pathlib import Path

from ge_core.compiler.memory import assign_memory
from ge_core.compiler.task import generate_tasks
from ge_core.model_task_type import ModelTaskType
from ge_core.graph.attr_names import (ATTR_NAME_NOPADDING_CONTINUOUS_INPUT, ATTR_NAME_NOTASK,
                                      ATTR_NAME_OUTPUT_REUSE_INPUT, ENGINE)
from ge_core.passes.concat_notask_pass import ConcatNotaskPass, is_no_task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler" / "memory"))
from mem_testing import GraphBuilder  # noqa: E402


def _graph(axis: int = 1, shape_a=(1, 8), shape_c=(1, 24), to_output: bool = False,
           from_data: bool = False):
    b = GraphBuilder()
    x = b.data(shape=shape_a)
    a = x if from_data else b.node("a", "Relu", x, shape=shape_a)
    c = b.node("c", "Relu", x, shape=shape_c)
    out_shape = list(shape_a)
    out_shape[axis] += shape_c[axis]
    cat = b.node("cat", "Concat", a, c, shape=tuple(out_shape), axis=axis)
    b.output(cat if to_output else b.node("r", "Relu", cat, shape=tuple(out_shape)))
    return b.graph


def test_a_concat_of_two_computed_slices_launches_no_task():
    graph = _graph()
    assert ConcatNotaskPass().run(graph)
    op = graph.find_node("cat").op_desc
    assert op.get_attr(ATTR_NAME_NOTASK) and op.get_attr(ATTR_NAME_OUTPUT_REUSE_INPUT)
    assert op.get_attr(ATTR_NAME_NOPADDING_CONTINUOUS_INPUT)
    for node in graph:
        node.op_desc.set_attr(ENGINE, "DNN_VM_GE_LOCAL" if node.type in ("Data", "NetOutput")
                              else "VectorEngine")
    assign_memory(graph)
    kernels = [t for t in generate_tasks(graph).task if t.type == ModelTaskType.KERNEL]
    assert len(kernels) == 3   # a, c and r: the Concat launches nothing


def test_ges_conditions_keep_the_task():
    # a dim before the concat dim that is not 1; an input straight from a Data; the result a
    # graph output (ours: the user's zero-copy buffer); 40 bytes is not 32-byte aligned
    for graph in (_graph(axis=1, shape_a=(2, 8), shape_c=(2, 24)), _graph(from_data=True),
                  _graph(to_output=True), _graph(shape_a=(1, 10))):
        assert not ConcatNotaskPass().run(graph)
        assert not is_no_task(graph.find_node("cat"))


def test_a_concat_of_a_no_task_concat_keeps_its_task():
    b = GraphBuilder()
    x = b.data(shape=(1, 8))
    a = b.node("a", "Relu", x, shape=(1, 8))
    c = b.node("c", "Relu", x, shape=(1, 8))
    first = b.node("first", "Concat", a, c, shape=(1, 16), axis=1)
    d = b.node("d", "Relu", x, shape=(1, 8))
    second = b.node("second", "Concat", first, d, shape=(1, 24), axis=1)
    b.output(b.node("r", "Relu", second, shape=(1, 24)))
    ConcatNotaskPass().run(b.graph)
    assert is_no_task(b.graph.find_node("first"))
    assert not is_no_task(b.graph.find_node("second"))   # its producer places its memory


def test_a_graph_output_behind_views_keeps_the_task():
    """ReshapeRecoveryPass puts back one Reshape an edge, so an input's tensor can reach the
    graph's output through a view of its own, beside the one the Concat reads (a random graph
    had stopped the build: the input lay in the user's buffer, apart from the Concat's); and
    the Concat's own result can reach it through two views."""
    b = GraphBuilder()
    x = b.data(shape=(1, 8))
    a = b.node("a", "Relu", x, shape=(1, 8))
    c = b.node("c", "Relu", x, shape=(1, 8))
    cat = b.node("cat", "Concat", b.node("view", "Reshape", a, shape=(1, 8)), c, shape=(1, 16),
                 axis=1)
    b.output(b.node("r", "Relu", cat, shape=(1, 16)),
             b.node("a_out", "Reshape", a, shape=(1, 8)))
    assert not ConcatNotaskPass().run(b.graph)

    b = GraphBuilder()
    x = b.data(shape=(1, 8))
    a, c = (b.node(n, "Relu", x, shape=(1, 8)) for n in "ac")
    cat = b.node("cat", "Concat", a, c, shape=(1, 16), axis=1)
    b.output(b.node("s", "Squeeze", b.node("v", "Reshape", cat, shape=(1, 16)), shape=(16,)))
    assert not ConcatNotaskPass().run(b.graph)


def test_a_chain_of_views_longer_than_the_stack_is_followed():
    """The walk to the graph output had recursed once a view: 3000 of them overflowed."""
    b = GraphBuilder()
    x = b.data(shape=(1, 8))
    a, c = (b.node(n, "Relu", x, shape=(1, 8)) for n in "ac")
    cat = b.node("cat", "Concat", a, c, shape=(1, 16), axis=1)
    view = a
    for k in range(3000):
        view = b.node(f"view{k}", "Reshape", view, shape=(1, 8))
    b.output(b.node("r", "Relu", cat, shape=(1, 16)), view)
    assert not ConcatNotaskPass().run(b.graph)
