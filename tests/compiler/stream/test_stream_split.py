"""SplitStreams at a small per-stream task limit: where it cuts, the event pair, what starts
the new stream, the no-split rules, and AutoSplit skipping it all."""
import pytest

from ge_core.compiler.stream import (StreamAllocator, StreamOptions, assign_streams,
                                     split_streams, unordered_dependencies)
from ge_core.compiler.stream.stream_split import RESERVED_TASK_NUM
from stream_testing import VECTOR, Builder, if_with_body, streams

SMALL = StreamOptions(max_task_count=32)  # 32 - 27 reserved: five tasks a stream


def test_the_build_asks_the_runtime_for_the_chips_limits():
    """GE learns a chip's limits from the runtime (rtGetMaxStreamAndTask and
    rtGetRtCapability): a 910B holds 2013 tasks a stream and has no AutoSplit, so GE splits; a
    950 with a device set grows streams itself, so GE skips the split; without a device set
    (an offline build) the runtime answers no, and GE splits for the 950 too."""
    from npu_emu.runtime import RuntimeConfig
    from npu_emu.world import World
    for soc, set_device, skipped, limit in (("Ascend910B1", True, False, 2013),
                                            ("Ascend950DT_9571", True, True, 2014),
                                            ("Ascend950DT_9571", False, False, 2014)):
        world = World(RuntimeConfig(soc_version=soc))
        with world.entered():
            if set_device:
                world.runtime.set_device(0)
            g = chain(3)
            assign_streams(g.graph)
            report = split_streams(g.graph)
        assert (report.skipped, report.max_task_count) == (skipped, limit), soc
    # an option given explicitly still wins (lesson 13 shrinks the limit to see a split)
    with World(RuntimeConfig(soc_version="Ascend950")).entered():
        assert split_streams(chain(12).graph, options=SMALL).max_task_count == 32
    with pytest.raises(ValueError, match="stream_max_parallel_num must be >= 1"):
        StreamOptions(stream_max_parallel_num=0)


def chain(n: int, **attrs_of) -> Builder:
    g = Builder()
    g.data("x")
    prev = "x"
    for i in range(1, n + 1):
        g.add(f"n{i}", inputs=[prev], **attrs_of.get(f"n{i}", {}))
        prev = f"n{i}"
    g.output(prev)
    return g


def test_a_long_stream_is_cut_every_five_tasks_with_an_event_pair_at_each_cut():
    g = chain(12)
    assign_streams(g.graph)
    report = split_streams(g.graph, options=SMALL)
    assert SMALL.max_task_count - RESERVED_TASK_NUM == 5
    assert [(s.logical_stream, s.stream, s.after_node, s.first_node) for s in report.splits] == [
        (0, 1, "n5", "n6"), (0, 2, "n10", "n11")]
    s = streams(g.graph)
    assert {s[f"n{i}"] for i in range(1, 6)} == {0} and {s[f"n{i}"] for i in range(6, 11)} == {1}
    assert s["n11"] == s["n12"] == s["NetOutput"] == 2
    send, recv = (g.graph.find_node(f"g_{kind}_{report.splits[0].event_id}")
                  for kind in ("Send", "Recv"))
    assert (s[send.name], s[recv.name]) == (0, 1)
    assert send.in_control_nodes()[0].name == "n5" and recv.out_control_nodes()[0].name == "n6"
    assert recv.op_desc.get_attr("_logic_stream_id") == 0
    # nothing started stream 0, so nothing starts its pieces: HEAD streams ordered by events
    assert report.physical_streams == 3 and report.head_streams == (0, 1, 2)
    assert g.graph.attrs["stream_num"] == 3 and g.graph.attrs["event_num"] == 2
    assert unordered_dependencies(g.graph) == []


def test_task_count_comes_from_the_caller():
    g = chain(6)
    assign_streams(g.graph)
    report = split_streams(g.graph, task_count=lambda n: 3 if n.type == "Relu" else 0,
                           options=SMALL)
    assert [s.first_node for s in report.splits] == ["n2", "n3", "n4", "n5", "n6"]


def test_unlimited_stream_depth_skips_splitting():
    g = chain(12)
    assign_streams(g.graph)
    before = streams(g.graph)
    report = split_streams(g.graph, options=StreamOptions(max_task_count=32,
                                                          unlimited_stream_depth=True))
    assert report.skipped and report.splits == () and streams(g.graph) == before
    assert report.tasks_per_stream == ((0, 13),)


@pytest.mark.parametrize("attrs, first", [
    ({"n6": {"op_type": "LabelSet", "engine": "DNN_VM_RTS"}}, "n7"),
    ({"n6": {"_subgraph_first_active": True}}, "n7"),
])
def test_no_split_at_label_ops_or_a_first_active_node(attrs, first):
    g = chain(8, **attrs)
    assign_streams(g.graph)
    assert split_streams(g.graph, options=SMALL).splits[0].first_node == first


def test_nodes_sharing_a_continuous_stream_label_move_together():
    g = chain(8, n5={"_continuous_stream_label": "c"}, n6={"_continuous_stream_label": "c"})
    assign_streams(g.graph)
    (split,) = split_streams(g.graph, options=SMALL).splits
    assert (split.after_node, split.first_node) == ("n4", "n5")
    s = streams(g.graph)
    assert s["n4"] == 0 and s["n5"] == s["n6"] == s["n7"] == 1
    assert unordered_dependencies(g.graph) == []


def test_a_split_of_an_activated_stream_is_started_by_the_same_stream_active():
    g = Builder()
    g.add("a", stream_id=0)
    g.add("act", "StreamActive", "DNN_VM_RTS", ctrl=["a"], stream_id=0,
          _active_label_list=["L"])
    g.add("l0", ctrl=["act"], stream_id=1, _stream_label="L")
    for i in range(1, 7):
        g.add(f"l{i}", inputs=[f"l{i - 1}"], stream_id=1, _stream_label="L")
    StreamAllocator(g.graph).insert_sync_nodes_by_logic_stream()
    report = split_streams(g.graph, options=SMALL)
    (split,) = report.splits
    assert g.graph.find_node("act").op_desc.get_attr("active_stream_list") == [1, split.stream]
    assert report.head_streams == (0,)
    assert unordered_dependencies(g.graph) == []


def test_a_split_inside_a_body_is_started_by_the_bodys_first_active():
    g, body = if_with_body()
    prev = "bx"
    for i in range(7):
        body.add(f"r{i}", inputs=[prev])
        prev = f"r{i}"
    body.add("v1", "Add", VECTOR, inputs=[prev, prev])
    body.add("v2", "Add", VECTOR, inputs=["v1", "v1"])
    body.output("v2")
    assign_streams(g.graph)
    report = split_streams(g.graph, options=SMALL)
    active = next(n for n in body.graph if n.type == "StreamActive")
    in_body = [s.stream for s in report.splits if body.graph.find_node(s.first_node)]
    assert in_body and set(in_body) <= set(active.op_desc.get_attr("active_stream_list"))
    assert not set(in_body) & set(report.head_streams)
    assert unordered_dependencies(g.graph) == []


@pytest.mark.parametrize("case", ["test_if", "test_scan_sum", "test_scan9_sum"])
def test_a_lowered_control_flow_is_not_cut_between_its_jumps_and_labels(case):
    """One task a stream (28 - 27 reserved): GE cut a lowered If between its LabelSwitchByIndex
    and the branch's LabelSet, and the event chain made the branch's stream wait for a task the
    jump skipped; the model never finished (ModelExecuteTimeout). The label region stays on its
    stream, and the model computes the node suite's expected outputs."""
    import numpy as np

    from ge_core.om import load_om_bytes, om_bytes
    from ge_core.session import GraphManager
    from npu_emu.world import World
    from workbench.conformance import node_cases
    from workbench.conformance.compare import mismatch
    (test,) = [t for t in node_cases.testcases() if t.name == case]
    model, data_sets, _ = node_cases.load(test)
    manager = GraphManager.from_ge_options({"gewb.maxTaskCount": "28"})
    graph = manager.parse(model)
    manager.compile(graph)
    with World().entered():
        root = load_om_bytes(om_bytes(manager.build_root_model(graph)))
        feeds, expected = data_sets[0]
        got = list(manager.run(root, feeds).values())
    assert mismatch(got, expected, 1e-5, 1e-6) is None
    assert np.asarray(got[0]).size   # it ran to its end
