"""If, Case and Loop on v2 and hybrid: lowered to GE's control-flow kernels (GenIndexForIf + If
with a branch ExeGraph each, GenIndexForCase + Case for the gears of a multi-batch model;
IdentityAddr + While with cond and body ExeGraphs), executed on the emulated device with dynamic
shapes; Scan as the Loop ScanPass makes of it (Scan-8 as a Loop over its batch around one).
Compared with onnxruntime and with the node suite's own expected outputs."""
from __future__ import annotations

import re

import numpy as np
import pytest

from control_flow_testing import (assert_same, dynamic_if_model, floats, if_in_loop_model,
                                  loop_scan_model, loop_until_model, model,
                                  onnxruntime_outputs, reversed_scan_model, scan_8_model,
                                  scan_model, vi)
from onnx import TensorProto as T, helper
from ge_core.compiler import CompileOptions
from ge_core.executor import with_gear
from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import ENGINE
from ge_core.ops.host_cpu_ops import HOST_CPU_ENGINE
from ge_core.passes.multi_batch import MultiBatchOptions
from ge_core.runtime.hybrid import HYBRID_LOWERING
from ge_core.runtime.v2 import ExecuteGraphError, ModelV2Executor, default_stream, lower_graph
from ge_core.runtime.v2.execute_graph import SUBGRAPHS
from ge_core.session import GraphManager
from npu_emu.runtime import RuntimeConfig
from npu_emu.world import World
from workbench.conformance.runner import run_case
from workbench.conformance.suites import SUITES
from workbench.conformance.vias import VIAS

MANAGER = GraphManager(CompileOptions(dump=None))


def compiled(proto) -> ComputeGraph:
    graph = MANAGER.parse(proto)
    MANAGER.compile(graph)
    return graph


@pytest.fixture
def world():
    w = World(RuntimeConfig(memory_bytes=64 << 20))
    with w.entered():
        yield w


def run(graph: ComputeGraph, feeds: dict, runtime: str) -> dict:
    """One execution through v2 (sequential or topological executor) or hybrid lowering; every
    block Main allocated, in every branch and iteration, is back in the allocator after it."""
    executor = "topological" if runtime == "v2-topological" else "sequential"
    options = HYBRID_LOWERING if runtime == "hybrid" else None
    v2 = ModelV2Executor(lower_graph(graph, options), default_stream(), executor)
    v2.load()
    outputs = v2.execute(feeds).outputs
    assert v2.values[v2.graph.value_names.index("allocator")].live_blocks == 0
    v2.unload()
    return outputs


RUNTIMES = ["v2-sequential", "v2-topological", "hybrid"]


def _if_feeds(batch: int, cond: bool) -> dict:
    return {"x0": floats(batch, batch, 3), "c": np.array(cond), "w": floats(9, 1, 3)}


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("batch, cond", [(1, True), (4, False), (3, True)])
def test_an_if_with_a_dynamic_batch_takes_the_right_branch(world, runtime, batch, cond):
    proto = dynamic_if_model()
    feeds = _if_feeds(batch, cond)
    assert_same(run(compiled(proto), feeds, runtime), onnxruntime_outputs(proto, feeds))


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("trips", [0, 1, 4])
def test_a_loop_carries_its_state_and_stacks_its_scan_output(world, runtime, trips):
    proto = loop_scan_model()
    feeds = {"M": np.array(trips, np.int64), "a0": floats(1, 2, 3), "b0": floats(2, 2, 3),
             "x": floats(3, 2, 3)}
    got = run(compiled(proto), feeds, runtime)
    want = onnxruntime_outputs(proto, feeds)
    if trips == 0:   # no iteration: nothing stacked (onnxruntime's empty tensor has rank 1)
        assert got.pop("steps").size == want.pop("steps").size == 0
    assert_same(got, want)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("limit", [0.5, 40.0])
def test_a_loop_stops_on_the_condition_its_body_computes(world, runtime, limit):
    proto = loop_until_model()
    feeds = {"c0": np.array(True), "acc0": np.abs(floats(4, 3, 3)),
             "limit": np.array(limit, np.float32)}
    assert_same(run(compiled(proto), feeds, runtime), onnxruntime_outputs(proto, feeds))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_an_if_inside_a_loop_reads_a_capture_through_two_bodies(world, runtime):
    proto = if_in_loop_model()
    feeds = {"M": np.array(5, np.int64), "acc0": floats(5, 2, 3), "x": floats(6, 2, 3)}
    assert_same(run(compiled(proto), feeds, runtime), onnxruntime_outputs(proto, feeds))


def test_an_if_lowers_to_gen_index_and_an_if_owning_its_branches(world):
    exe = lower_graph(compiled(dynamic_if_model()), HYBRID_LOWERING)
    gen = next(n for n in exe.main.nodes if n.type == "GenIndexForIf")
    node = next(n for n in exe.main.nodes if n.type == "If")
    assert gen.outputs[0] == node.inputs[0]
    then_g, else_g = node.attrs[SUBGRAPHS]
    assert (then_g.name, else_g.name) == ("if0_then_branch", "if0_else_branch")
    # each branch allocates, launches and hands its result over: its free is the parent's
    assert [n.type for n in then_g.nodes] == ["InferShape", "AllocMemory", "LaunchKernelWithHandle"]
    assert then_g.results == [then_g.nodes[1].outputs[0]]
    free = next(n for n in exe.main.nodes if n.type == "FreeMemory" and n.name == "if0:0")
    assert node.id in free.after
    dump = exe.dump()
    assert "  [" in dump and "    subgraph if0_then_branch (3 nodes) -> (%Add_0:0)" in dump


def test_a_loop_lowers_to_identity_copies_and_a_while_with_cond_and_body(world):
    exe = lower_graph(compiled(loop_scan_model()), HYBRID_LOWERING)
    copies = [n for n in exe.main.nodes if n.type == "IdentityAddr"]
    node = next(n for n in exe.main.nodes if n.type == "While")
    assert [c.name for c in copies] == ["loop0 state 0", "loop0 state 1"]
    assert [c.outputs[0] for c in copies] == list(node.inputs[4:6])
    cond, body = node.attrs[SUBGRAPHS]
    assert [n.type for n in cond.nodes] == ["GenCondForWhile"]
    # the body's second state is its first state's input: handed back as a copy of its own
    assert "IdentityAddr" in [n.type for n in body.nodes]
    assert len(body.results) == 4


def test_a_failure_inside_a_branch_names_the_branch_and_its_node(world):
    """The else branch reshapes x to a shape fed at run time; 7 elements do not fit x's 6."""
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                               [vi("t", [None, None])])
    else_g = helper.make_graph([helper.make_node("Reshape", ["x", "s"], ["e"])], "else", [],
                               [vi("e", [None, None])])
    proto = model([helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                                    else_branch=else_g)],
                  [vi("c", [], T.BOOL), vi("x", [2, 3]), vi("s", [2], T.INT64)],
                  [vi("y", [None, None])])
    graph = compiled(proto)
    feeds = {"c": np.array(False), "x": floats(1, 2, 3), "s": np.array([7, 1], np.int64)}
    with pytest.raises(ExecuteGraphError, match=r"^if0_else_branch/Reshape_0/InferShape: "):
        run(graph, feeds, "hybrid")


@pytest.mark.parametrize("runtime", [*RUNTIMES, "host"])
def test_scan_pieces_of_two_shapes_are_refused_naming_the_output_and_iteration(world, runtime):
    # the node suite's Loop slices x[i:i+1] of a 5-long x: past 5 iterations, empty pieces
    # (onnxruntime: "Inconsistent shape in loop output")
    (case,) = [t for t in SUITES["node"].discover(0) if t.id == "node/test_loop11"]
    data = case.load()
    feeds = {**data.data_sets[0].feeds, "trip_count": np.array(7, np.int64)}
    said = "scan output 0: iteration 5's piece [0] differs from iteration 0's [1]"
    if runtime == "host":
        with pytest.raises(Exception, match=f"^node Loop_0 \\(Loop\\): {re.escape(said)}$"):
            VIAS["host"](data.model, feeds)
        return
    with pytest.raises(ExecuteGraphError, match=f"^Main/Loop_0/While: {re.escape(said)}$"):
        run(compiled(data.model), feeds, runtime)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("steps", [1, 5])
def test_a_scan_over_a_sequence_of_any_length_runs_on_the_device_as_a_loop(world, runtime,
                                                                          steps):
    proto = scan_model()
    graph = compiled(proto)
    assert [n.type for n in graph if n.op_desc.subgraph_names] == ["Loop"]   # ScanPass's
    assert not [n.name for n in graph.all_nodes()
                if n.op_desc.get_attr(ENGINE) == HOST_CPU_ENGINE]
    feeds = {"s0": floats(1, 3), "x": floats(steps, steps, 3)}
    assert_same(run(graph, feeds, runtime), onnxruntime_outputs(proto, feeds))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_scan_read_backwards_with_its_outputs_reversed_and_on_axis_1(world, runtime):
    proto = reversed_scan_model()
    feeds = {"acc0": floats(1, 2), "x": floats(2, 2, 4), "u": floats(3, 4, 2),
             "w0": floats(4, 2)}
    assert_same(run(compiled(proto), feeds, runtime), onnxruntime_outputs(proto, feeds))


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("batch, steps, lens", [(1, 4, None), (3, 1, None), (3, 4, None),
                                                (3, 4, [4, 1, 3]), (2, 3, [2, 3])])
def test_a_scan_8_runs_on_the_device_as_a_loop_over_its_batch_around_the_scans_loop(
        world, runtime, batch, steps, lens):
    """Past an entry's sequence_lens its states stay and its scan outputs are zeros."""
    proto = scan_8_model(lens=lens is not None)
    graph = compiled(proto)
    outer = next(n for n in graph if n.op_desc.subgraph_names)
    assert outer.type == "Loop" and [n.type for n in graph.all_nodes()
                                     if n.op_desc.subgraph_names] == ["Loop", "Loop"]
    assert not [n.name for n in graph.all_nodes()
                if n.op_desc.get_attr(ENGINE) == HOST_CPU_ENGINE]
    feeds = {"acc0": floats(1, batch, 2), "n0": floats(2, batch, 1),
             "x": floats(3, batch, steps, 2), "u": floats(4, batch, steps, 2),
             "w0": floats(5, 2)}
    if lens is not None:
        feeds["lens"] = np.array(lens, np.int64)
    assert_same(run(graph, feeds, runtime), onnxruntime_outputs(proto, feeds))


def _geared(batches: str) -> tuple[ComputeGraph, object]:
    """relu(x) * 2 for x [batch, 4], compiled with gears: a Case over a copy per batch size."""
    proto = model([helper.make_node("Relu", ["x"], ["r"]),
                   helper.make_node("Add", ["r", "r"], ["y"])],
                  [vi("x", ["batch", 4])], [vi("y", ["batch", 4])], "geared")
    manager = GraphManager(CompileOptions(dump=None, multi_batch=MultiBatchOptions("", batches)))
    graph = manager.parse(proto)
    manager.compile(graph)
    return graph, proto


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("batch", [1, 4])
def test_a_gear_case_runs_the_branch_of_the_inputs_batch(world, runtime, batch):
    graph, proto = _geared("1,2,4")
    feeds = {"x": floats(batch, batch, 4)}
    got = run(graph, with_gear(graph, feeds), runtime)
    assert_same(got, onnxruntime_outputs(proto, feeds))


def test_a_case_lowers_to_gen_index_and_a_case_owning_a_branch_per_gear(world):
    graph, _ = _geared("1,2,4")
    exe = lower_graph(graph)
    gen = next(n for n in exe.main.nodes if n.type == "GenIndexForCase")
    node = next(n for n in exe.main.nodes if n.type == "Case")
    assert gen.attrs["branch_num"] == 3 and gen.outputs[0] == node.inputs[0]
    assert [g.name for g in node.attrs[SUBGRAPHS]] == ["Batch_0", "Batch_1", "Batch_2"]


NODE_CASES = ["test_if", "test_loop11", "test_scan9_sum", "test_scan_sum",
              "test_scan9_multi_state", "test_scan9_scalar",
              "test_linear_attention_gated_delta_expanded",
              "test_range_float_type_positive_delta_expanded",
              "test_range_int32_type_negative_delta_expanded", "test_affine_grid_2d_expanded"]


@pytest.mark.parametrize("via", ["device-v2", "device-hybrid", "device"])
def test_node_suite_control_flow_cases_give_the_suites_outputs(via):
    cases = {c.name: c for c in SUITES["node"].discover(0) if c.name in NODE_CASES}
    results = {name: run_case(cases[name], VIAS[via]) for name in NODE_CASES}
    assert {n: r.reason for n, r in results.items() if r.status != "PASS"} == {}
