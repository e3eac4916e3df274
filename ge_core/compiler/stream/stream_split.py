"""SplitStreams: a logical stream longer than a physical stream can hold is cut into several.

A physical stream holds ``max_task_count`` tasks (rtGetMaxStreamAndTask: 2013 on a 910B), less
kReservedTaskNum = 27 (7 DFX + 20) that GE keeps free. Walking the nodes in build order, a node
whose tasks would pass that starts a new stream, except a stream's first node, a node owning a
body, a body's first-active StreamActive and the label ops (their jumps must stay on one
stream); nodes sharing a ``_continuous_stream_label`` move together. The old stream's last node
records an event the new stream's first node waits for, so the stream still runs in order.

Beyond GE, no node between a lowered region's first and last label op starts a new stream: GE
cuts there too, but the event chain then orders a lowered If's branches one after the other
while its jumps skip them (a LabelSwitchByIndex on one stream, its branch's LabelSet on the next,
whose first task waits for an event the jump skipped), and the model deadlocks. Such a stream
may hold more tasks than the limit asks.

What starts the new stream is GE's rule: if a StreamActive started the logical stream, it now
starts the new stream too (inside a body, the body's first-active does); otherwise nothing
activates it and it is a HEAD stream that waits on the event pair from the model's start.

A runtime that grows model streams itself (AutoSplit: a 950 answers yes to
FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH once a device is set) makes GE skip all this.
"""
from __future__ import annotations

from typing import Callable

from ge_core.compiler.stream.stream_active import RTS_ENGINE, activate_body_streams, head_streams
from ge_core.compiler.stream.stream_options import StreamOptions
from ge_core.compiler.stream.stream_report import SplitReport, StreamSplit
from ge_core.compiler.stream.stream_utils import (INVALID_STREAM, StreamAllocationError,
                                                  active_streams, launches_task, set_stream,
                                                  stream_of)
from ge_core.compiler.stream.sync_event_nodes import generate_sync_nodes
from ge_core.compiler.stream.sync_events import EVENT, SyncEvent
from ge_core.compiler.stream.topo_order import model_order
from ge_core.graph import ComputeGraph, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import (ATTR_MODEL_EVENT_NUM, ATTR_MODEL_STREAM_NUM,
                                      ATTR_NAME_ACTIVE_STREAM_LIST,
                                      ATTR_NAME_CONTINUOUS_STREAM_LABEL,
                                      ATTR_NAME_SUBGRAPH_FIRST_ACTIVE, ENGINE, EVENT_ID,
                                      HEAD_STREAMS, LABEL_REGION, LOGIC_STREAM_ID,
                                      STREAM_ID)
from npu_emu.driver.soc import FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH
from npu_emu.world import current_runtime

RESERVED_TASK_NUM = 27  # kReservedTaskNum
LABEL_OP_TYPES = frozenset({"LabelSet", "LabelGotoEx", "LabelSwitchByIndex"})

TaskCount = Callable[[Node], int]


def default_task_count(node: Node) -> int:
    """One task for each node that launches one (Send and Recv included), none otherwise."""
    return 1 if stream_of(node) != INVALID_STREAM and launches_task(node) else 0


def _device_limits(options: StreamOptions) -> tuple[bool, int]:
    """Whether the runtime grows model streams itself, and the tasks a stream may hold: GE asks
    the runtime (rtGetRtCapability(FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH) and
    rtGetMaxStreamAndTask, stream_allocator.cc), so both come from the chip the world's runtime
    drives (npu_emu/driver/soc.py); an option given explicitly wins."""
    runtime = current_runtime()
    unlimited = options.unlimited_stream_depth
    if unlimited is None:
        unlimited = runtime.get_rt_capability(FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH)
    max_task_count = options.max_task_count
    if max_task_count is None:
        max_task_count = runtime.get_max_stream_and_task()[1]
    return unlimited, max_task_count


def split_streams(graph: ComputeGraph, task_count: TaskCount = default_task_count,
                  options: StreamOptions | None = None) -> SplitReport:
    options = options or StreamOptions()
    unlimited, max_task_count = _device_limits(options)
    splits: tuple[StreamSplit, ...] = ()
    if not unlimited:
        splits = _StreamSplitter(graph, task_count, max_task_count).run()
    tasks: dict[int, int] = {}
    for node in model_order(graph):
        if stream_of(node) != INVALID_STREAM:
            tasks[stream_of(node)] = tasks.get(stream_of(node), 0) + task_count(node)
    graph.set_attr(ATTR_MODEL_STREAM_NUM, len(tasks))
    graph.set_attr(HEAD_STREAMS, head_streams(graph))
    return SplitReport(unlimited, max_task_count, len(tasks),
                       tuple(sorted(tasks.items())), splits, tuple(graph.attrs[HEAD_STREAMS]))


def _inside_label_regions(nodes: list[Node]) -> set[Node]:
    """The nodes of each lowered region's stream strictly between the region's first and last
    label op, in build order: where a cut would leave a jump on one stream and its label on
    another. (An inner region lies inside its outer one's span. Between two regions no jump
    crosses: a stream of 250 Ifs in a row, held whole, outgrew its SQ.)"""
    positions: dict[tuple[int, str | None], list[int]] = {}
    for at, node in enumerate(nodes):
        if node.type in LABEL_OP_TYPES and stream_of(node) != INVALID_STREAM:
            region = node.op_desc.get_attr(LABEL_REGION)
            positions.setdefault((stream_of(node), region), []).append(at)
    return {node for (stream, _), at in positions.items()
            for node in nodes[at[0] + 1:at[-1]] if stream_of(node) == stream}


class _StreamSplitter:
    """GE's StreamSplitHelper: per logical stream, its current physical stream and task count."""

    def __init__(self, root: ComputeGraph, task_count: TaskCount, max_task_count: int) -> None:
        self.root = root
        self.task_count = task_count
        self.max_task_count = max_task_count
        nodes = model_order(root)
        self.next_stream = 1 + max((stream_of(n) for n in nodes), default=INVALID_STREAM)
        self.next_event = 1 + max((n.op_desc.get_attr(EVENT_ID) for n in nodes
                                   if n.type in ("Send", "Recv")), default=-1)
        self.tasks: dict[int, int] = {}          # logical stream -> tasks on its newest stream
        self.current: dict[int, int] = {}        # logical stream -> its newest stream
        self.seen: dict[int, list[Node]] = {}    # logical stream -> its nodes so far
        self.continuous: dict[str, list[Node]] = {}
        self.added: dict[int, list[int]] = {}    # logical stream -> streams split from it
        self.events: list[SyncEvent] = []
        self.splits: list[StreamSplit] = []
        self.in_label_region = _inside_label_regions(nodes)

    def run(self) -> tuple[StreamSplit, ...]:
        for node in model_order(self.root):
            logical = stream_of(node)
            if logical == INVALID_STREAM:
                continue
            first = self.tasks.get(logical, 0) == 0
            self.tasks[logical] = self.tasks.get(logical, 0) + self.task_count(node)
            self.seen.setdefault(logical, []).append(node)
            label = node.op_desc.get_attr(ATTR_NAME_CONTINUOUS_STREAM_LABEL)
            if label:
                self.continuous.setdefault(label, []).append(node)
            if not first and self._over_limit(logical) and self._may_split_at(node):
                self._split(node, logical, label)
            if logical in self.current:
                set_stream(node, self.current[logical])
        self._activate_new_streams()
        generate_sync_nodes(self.root, self.events, EVENT)
        self.root.set_attr(ATTR_MODEL_EVENT_NUM, self.next_event)
        return tuple(self.splits)

    def _over_limit(self, logical: int) -> bool:
        return self.tasks[logical] + RESERVED_TASK_NUM > self.max_task_count

    def _may_split_at(self, node: Node) -> bool:
        return not node.op_desc.subgraph_names and node.type not in LABEL_OP_TYPES \
            and not node.op_desc.get_attr(ATTR_NAME_SUBGRAPH_FIRST_ACTIVE) \
            and node not in self.in_label_region

    def _split(self, node: Node, logical: int, label: str | None) -> None:
        stream = self.next_stream
        self.next_stream += 1
        moving = self.continuous[label] if label else [node]
        seen = self.seen[logical]
        if seen.index(moving[0]) == 0:
            raise StreamAllocationError(f"stream {logical}: nodes with continuous stream label "
                                        f"{label!r} start the stream and cannot move off it")
        for moved in moving:
            set_stream(moved, stream)
        self.tasks[logical] = sum(self.task_count(m) for m in moving)
        after = seen[seen.index(moving[0]) - 1]
        self.current[logical] = stream
        self.added.setdefault(logical, []).append(stream)
        self.events.append(SyncEvent(self.next_event, after, moving[0]))
        self.splits.append(StreamSplit(logical, stream, moving[0].name, after.name,
                                       self.next_event))
        self.next_event += 1

    def _activate_new_streams(self) -> None:
        """GE's UpdateActiveStreams: whatever started a logical stream starts its new ones. A
        StreamSwitch starts one stream only: where its branch's stream was split, GE puts a
        StreamActive after it, on a stream of its own, that the switch starts and that starts
        the branch's streams (UpdateActiveStreamsForSwitchNode, InsertActiveNodesAfterSwitch)."""
        for node in model_order(self.root):
            listed = active_streams(node)
            grown = sorted(set(listed + [s for old in listed for s in self.added.get(old, ())]))
            if set(grown) == set(listed):
                continue
            if node.type == "StreamSwitch":
                self._active_after_switch(node, grown)
            else:
                node.op_desc.set_attr(ATTR_NAME_ACTIVE_STREAM_LIST, grown)
        for body in self.root.subgraphs:
            activate_body_streams(body)

    def _active_after_switch(self, switch: Node, streams: list[int]) -> None:
        graph = switch.graph
        stream = self.next_stream
        self.next_stream += 1
        active = graph.add_node(OpDesc(graph.unique_name(f"{switch.name}_StreamActive_0"),
                                       "StreamActive"))
        for key, value in ((STREAM_ID, stream), (LOGIC_STREAM_ID, stream), (ENGINE, RTS_ENGINE),
                           (ATTR_NAME_ACTIVE_STREAM_LIST, streams)):
            active.op_desc.set_attr(key, value)
        for head in switch.out_control_nodes():   # the branch's first nodes now follow it
            if stream_of(head) in streams:
                GraphUtils.remove_edge(switch.out_control_anchor, head.in_control_anchor)
                GraphUtils.add_edge(active.out_control_anchor, head.in_control_anchor)
        GraphUtils.add_edge(switch.out_control_anchor, active.in_control_anchor)
        switch.op_desc.set_attr(ATTR_NAME_ACTIVE_STREAM_LIST, [stream])
        order = [n for n in graph if n is not active]
        at = order.index(switch) + 1
        graph.reorder(order[:at] + [active] + order[at:])
