"""The host executor resolves each node's kernel and attributes once and keeps them, as a loader
would; an attribute edit (a pass, or the debugger between or during runs) is seen by the next
node run."""
from __future__ import annotations

import gc

import numpy as np
from onnx import TensorProto, helper

from ge_core.executor import HostExecutor
from ge_core.executor.events import NodeExecuted
from ge_core.parser import parse_onnx


def _two_leaky_relus() -> object:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("LeakyRelu", ["x"], ["h"], name="first", alpha=0.1),
                               helper.make_node("LeakyRelu", ["h"], ["y"], name="second",
                                                alpha=0.1)],
                              "leaky", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


X = np.array([-1.0, -2.0, 3.0, 0.0], np.float32)


def test_an_attribute_edit_between_runs_is_seen():
    graph = parse_onnx(_two_leaky_relus())
    host = HostExecutor(graph)
    np.testing.assert_allclose(host.run({"x": X})["y"], [-0.01, -0.02, 3, 0], rtol=1e-6)
    graph.find_node("second").op_desc.set_attr("alpha", 0.5)
    np.testing.assert_allclose(host.run({"x": X})["y"], [-0.05, -0.1, 3, 0], rtol=1e-6)


def test_an_attribute_edit_during_a_run_is_seen_by_the_nodes_after_it():
    graph = parse_onnx(_two_leaky_relus())
    host = HostExecutor(graph)
    host.run({"x": X})  # both nodes' launches are kept

    def edit(event: object) -> None:  # as a debugger parked at 'first' would
        if isinstance(event, NodeExecuted) and event.node == "first":
            graph.find_node("second").op_desc.set_attr("alpha", 1.0)

    graph.bus.subscribe(edit)
    try:
        np.testing.assert_allclose(host.run({"x": X})["y"], [-0.1, -0.2, 3, 0], rtol=1e-6)
    finally:
        graph.bus.unsubscribe(edit)


def test_an_edge_edit_between_runs_is_seen():
    # the order and each node's input sources are worked out once and kept until an edit
    graph = parse_onnx(_two_leaky_relus())
    host = HostExecutor(graph)
    np.testing.assert_allclose(host.run({"x": X})["y"], [-0.01, -0.02, 3, 0], rtol=1e-6)
    first, second = graph.find_node("first"), graph.find_node("second")
    source = first.in_data_anchors[0].peer
    first.out_data_anchors[0].unlink(second.in_data_anchors[0])
    source.link_to(second.in_data_anchors[0])  # second now reads x itself
    np.testing.assert_allclose(host.run({"x": X})["y"], [-0.1, -0.2, 3, 0], rtol=1e-6)


def test_the_timeout_bounds_each_run_not_the_executor():
    # 1 ms is 100 nodes at the host's 10 us a node; 50 runs of 3 nodes each are 150
    host = HostExecutor(parse_onnx(_two_leaky_relus()), timeout_ms=1)
    for _ in range(50):
        np.testing.assert_allclose(host.run({"x": X})["y"], [-0.01, -0.02, 3, 0], rtol=1e-6)


def test_a_host_run_pauses_the_collector(monkeypatch):
    """A run makes no long-lived object, and a full collection landing in one rescanned the
    whole live graph (ShuffleNet's host run: 17 ms, once in 50 runs): the collector is paused
    for the run, as the device's scheduler pauses it, and runs again after."""
    host = HostExecutor(parse_onnx(_two_leaky_relus()))
    seen = []
    run_node = HostExecutor._run_node

    def spied(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return run_node(self, *args, **kwargs)

    monkeypatch.setattr(HostExecutor, "_run_node", spied)
    was = gc.isenabled()
    gc.enable()
    try:
        host.run({"x": X})
        assert seen and not any(seen) and gc.isenabled()
    finally:
        if not was:
            gc.disable()
