"""The host executor lets a kernel write its output into an input no one else holds (a value
at its last reader), as the device's memory planner reuses a dead input's block: never into
a value still read or viewed, a feed, a weight, or a value the run keeps."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import ModelProto, TensorProto, helper, numpy_helper

from ge_core.executor import HostExecutor
from ge_core.executor import host_executor
from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS
from ge_core.parser import parse_onnx

X = np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32)


def _model(nodes: list, outputs: list[str], inits: tuple = ()) -> ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs]
    graph = helper.make_graph(nodes, "buffers", [x], outs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


ONE = numpy_helper.from_array(np.ones((2, 2), np.float32), "one")


@pytest.fixture
def buffers(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Op type -> the address of its first output, as each kernel returns it."""
    seen: dict[str, int] = {}
    real = host_executor.get_kernel

    def spying(op_type: str, opset: int) -> object:
        fn = real(op_type, opset)

        def spy(*ins: object, **attrs: object) -> object:
            outs = fn(*ins, **attrs)
            seen[op_type] = outs[0].__array_interface__["data"][0]
            return outs
        spy.writes_out = fn.writes_out
        return spy
    monkeypatch.setattr(host_executor, "get_kernel", spying)
    return seen


def test_a_value_at_its_last_reader_takes_that_readers_output(buffers):
    model = _model([helper.make_node("Add", ["x", "one"], ["a"], name="a"),
                    helper.make_node("Relu", ["a"], ["y"], name="y")], ["y"], [ONE])
    y = HostExecutor(parse_onnx(model)).run({"x": X})["y"]
    np.testing.assert_array_equal(y, np.maximum(X + 1, 0))
    assert buffers["Relu"] == buffers["Add"]   # the Relu wrote over the Add's output


def test_a_value_still_viewed_is_not_written_over(buffers):
    # b is a view of a; the Add is a's last reader, but b still reads a's memory
    shape = numpy_helper.from_array(np.array([4], np.int64), "shape")
    model = _model([helper.make_node("Relu", ["x"], ["a"], name="a"),
                    helper.make_node("Reshape", ["a", "shape"], ["b"], name="b"),
                    helper.make_node("Add", ["a", "one"], ["c"], name="c")],
                   ["b", "c"], [ONE, shape])
    out = HostExecutor(parse_onnx(model)).run({"x": X})
    np.testing.assert_array_equal(out["b"], np.maximum(X, 0).reshape(4))
    np.testing.assert_array_equal(out["c"], np.maximum(X, 0) + 1)
    assert buffers["Add"] != buffers["Relu"]


def test_the_one_view_of_a_dead_value_takes_its_readers_output(buffers):
    # b is the only view of a, which nothing else holds once the Reshape has run (a Conv's
    # result, a matmul's reshaped, is such a view): the Add may write over b
    shape = numpy_helper.from_array(np.array([4], np.int64), "shape")
    one = numpy_helper.from_array(np.ones(4, np.float32), "one")
    model = _model([helper.make_node("Relu", ["x"], ["a"], name="a"),
                    helper.make_node("Reshape", ["a", "shape"], ["b"], name="b"),
                    helper.make_node("Add", ["b", "one"], ["c"], name="c")], ["c"], [shape, one])
    out = HostExecutor(parse_onnx(model)).run({"x": X})
    np.testing.assert_array_equal(out["c"], np.maximum(X, 0).reshape(4) + 1)
    assert buffers["Add"] == buffers["Relu"]


def test_a_view_is_not_written_over_while_another_views_the_same_memory():
    # b and c are views of a, which nothing else holds: b at its last reader is no block of
    # its own, as c reads the same memory
    shape = numpy_helper.from_array(np.array([4], np.int64), "shape")
    one = numpy_helper.from_array(np.ones(4, np.float32), "one")
    model = _model([helper.make_node("Relu", ["x"], ["a"], name="a"),
                    helper.make_node("Reshape", ["a", "shape"], ["b"], name="b"),
                    helper.make_node("Reshape", ["a", "shape"], ["c"], name="c"),
                    helper.make_node("Add", ["b", "one"], ["d"], name="d")],
                   ["c", "d"], [shape, one])
    out = HostExecutor(parse_onnx(model)).run({"x": X})
    np.testing.assert_array_equal(out["c"], np.maximum(X, 0).reshape(4))
    np.testing.assert_array_equal(out["d"], np.maximum(X, 0).reshape(4) + 1)


def test_feeds_and_weights_are_never_written():
    model = _model([helper.make_node("Add", ["x", "one"], ["y"], name="y")], ["y"], [ONE])
    graph = parse_onnx(model)
    host, x = HostExecutor(graph), X.copy()
    for _ in range(2):
        np.testing.assert_array_equal(host.run({"x": x})["y"], X + 1)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(graph.find_node("one").op_desc.get_attr(ATTR_NAME_WEIGHTS).data,
                                  1)


def test_a_kept_value_is_never_written(buffers):
    model = _model([helper.make_node("Add", ["x", "one"], ["a"], name="a"),
                    helper.make_node("Relu", ["a"], ["y"], name="y")], ["y"], [ONE])
    host = HostExecutor(parse_onnx(model), keep_values=True)
    host.run({"x": X})
    np.testing.assert_array_equal(host.values["a:0"], X + 1)   # not the Relu's output
    assert buffers["Relu"] != buffers["Add"]
