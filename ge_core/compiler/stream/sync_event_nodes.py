"""The last steps of InsertSyncNodesByLogicStream: dense ids, then real nodes.

RefreshContinuousEvents numbers the surviving events 0.. in the order their senders run (GE:
first appearance among senders). GenerateSyncEventNodes turns each into a pair of RTS nodes:

    <graph>_Send_<id>  type Send, after the sender on its stream (control edge sender -> Send)
    <graph>_Recv_<id>  type Recv, before the receiver on its stream (control edge Recv -> it)

(``_Send_Notify_`` / ``_Recv_Notify_``, SendNotify / RecvNotify and ``notify_id`` for
notifies; a name already taken gets ``_Reuse_<n>``), and splices them into the build order
beside their nodes (GE's ReorderEventNodes), so each stream's order is the one the events were
optimised against. SplitStreams makes its event pairs with the same code.
"""
from __future__ import annotations

from typing import NamedTuple

from ge_core.compiler.stream.stream_active import RTS_ENGINE
from ge_core.compiler.stream.stream_utils import StreamAllocationError, stream_of
from ge_core.compiler.stream.sync_events import NOTIFY, SyncEvent, SyncPass
from ge_core.compiler.stream.topo_order import model_order, reorder_event_nodes
from ge_core.graph import ComputeGraph, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import ENGINE, EVENT_ID, LOGIC_STREAM_ID, NOTIFY_ID, STREAM_ID

MAX_NOTIFY_NUM = 1024  # kMaxNotifyNum


class SyncNodeKind(NamedTuple):
    send_name: str  # <graph>_<send_name>_<id>
    send_type: str
    recv_name: str
    recv_type: str
    id_attr: str


SYNC_NODES = {"event": SyncNodeKind("Send", "Send", "Recv", "Recv", EVENT_ID),
              "notify": SyncNodeKind("Send_Notify", "SendNotify", "Recv_Notify", "RecvNotify",
                                     NOTIFY_ID)}


class RefreshContinuousEvents(SyncPass):
    name = "RefreshContinuousEvents"

    def run(self, graph: ComputeGraph) -> bool:
        by_src = self.state.by_src()
        renumbered = [e for node in model_order(graph) for e in by_src.get(node, ())]
        for new_id, event in enumerate(renumbered):
            event.id = new_id
        self.state.events = sorted(self.state.events, key=lambda e: e.id)
        if self.state.kind == NOTIFY and len(renumbered) > MAX_NOTIFY_NUM:
            raise StreamAllocationError(f"graph {graph.name} needs {len(renumbered)} notifies; "
                                        f"the device has {MAX_NOTIFY_NUM} (kMaxNotifyNum)")
        return True


class GenerateSyncEventNodes(SyncPass):
    name = "GenerateSyncEventNodes"

    def run(self, graph: ComputeGraph) -> bool:
        generate_sync_nodes(graph, self.state.events, self.state.kind)
        return bool(self.state.events)


def generate_sync_nodes(root: ComputeGraph, events: list[SyncEvent], kind: str) -> None:
    k = SYNC_NODES[kind]
    graphs = [root] + root.subgraphs
    orders = {graph: graph.topological_sort() for graph in graphs}
    before: dict[ComputeGraph, dict[Node, list[Node]]] = {}
    after: dict[ComputeGraph, dict[Node, list[Node]]] = {}
    for event in events:
        recv = _sync_node(event.dst, f"{root.name}_{k.recv_name}_{event.id}", k.recv_type,
                          k.id_attr, event.id)
        GraphUtils.add_edge(recv.out_control_anchor, event.dst.in_control_anchor)
        before.setdefault(event.dst.graph, {}).setdefault(event.dst, []).append(recv)
        send = _sync_node(event.src, f"{root.name}_{k.send_name}_{event.id}", k.send_type,
                          k.id_attr, event.id)
        GraphUtils.add_edge(event.src.out_control_anchor, send.in_control_anchor)
        after.setdefault(event.src.graph, {}).setdefault(event.src, []).append(send)
    for graph in graphs:
        if graph in before or graph in after:
            reorder_event_nodes(graph, orders[graph], before.get(graph, {}), after.get(graph, {}))


def _sync_node(beside: Node, name: str, op_type: str, id_attr: str, sync_id: int) -> Node:
    graph = beside.graph
    unique, n = name, 0
    while graph.find_node(unique) is not None:
        n += 1
        unique = f"{name}_Reuse_{n}"
    node = graph.add_node(OpDesc(unique, op_type))
    stream = stream_of(beside)
    logic = beside.op_desc.get_attr(LOGIC_STREAM_ID, stream)  # SplitStreams' pairs keep it
    for key, value in ((STREAM_ID, stream), (LOGIC_STREAM_ID, logic), (ENGINE, RTS_ENGINE),
                       (id_attr, sync_id)):
        node.op_desc.set_attr(key, value)
    return node
