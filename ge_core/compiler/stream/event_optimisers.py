"""GE's three event optimisations (StreamUtils / StreamAllocator::OptimizeSyncEvents), each a
step of InsertSyncNodesByLogicStream. Every rule drops an event whose order another one already
gives."""
from __future__ import annotations

from ge_core.compiler.stream.stream_active import activators
from ge_core.compiler.stream.stream_utils import stream_of
from ge_core.compiler.stream.sync_events import SyncEvent, SyncPass, stream_nodes
from ge_core.compiler.stream.topo_order import op_ids
from ge_core.graph import ComputeGraph, Node


class OptimizeBySendEvents(SyncPass):
    """Stream1's n1 and later n2 both wait for stream0's m: n2's wait is redundant, since
    stream1 runs n1 (and its wait) first.

        stream0      stream1
          m ---------> n1
           \\           |
            ---------> n2      (dropped)
    """
    name = "OptimizeBySendEvents"

    def run(self, graph: ComputeGraph) -> bool:
        by_dst = self.state.by_dst()
        dropped = False
        for nodes in stream_nodes(graph).values():
            seen: set[Node] = set()  # senders this stream already waited for
            for node in nodes:
                for event in by_dst.get(node, ()):
                    if event.src in seen:
                        self.state.remove(event)
                        dropped = True
                    seen.add(event.src)
        return dropped


class OptimizeByRecvEvents(SyncPass):
    """Stream0's m1 and later m2 both signal stream1's n: only m2's event is needed, since
    stream0 finishes m1 before m2.

        stream0      stream1
          m1 --------> n       (dropped)
          |          /
          m2 -------
    """
    name = "OptimizeByRecvEvents"

    def run(self, graph: ComputeGraph) -> bool:
        by_src = self.state.by_src()
        dropped = False
        for nodes in stream_nodes(graph).values():
            last: dict[Node, SyncEvent] = {}  # receiver -> the latest event this stream sent it
            for node in nodes:
                for event in by_src.get(node, ()):
                    if event.dst in last:
                        self.state.remove(last[event.dst])
                        dropped = True
                    last[event.dst] = event
        return dropped


class OptimizeByStreamActivate(SyncPass):
    """No event into a stream that a chain of StreamActive/StreamSwitch nodes starts from the
    sender's stream after the sender (or that the sender itself starts): the activation orders
    them.

    As GE's OptimizeSyncEvents, every event a StreamSwitch sends goes too: a switch's readers are
    its branches, which it starts itself (passes/control_flow_and_stream)."""
    name = "OptimizeByStreamActivate"

    def run(self, graph: ComputeGraph) -> bool:
        self._ids = op_ids(graph)
        self._activators = activators(graph)
        dropped = [e for e in self.state.events if e.src.type == "StreamSwitch"
                   or self._activated_by_sender(e.src, e.dst)]
        for event in dropped:
            self.state.remove(event)
        return bool(dropped)

    def _activated_by_sender(self, send: Node, recv: Node) -> bool:
        pending = list(self._activators.get(stream_of(recv), ()))
        visited: set[Node] = {recv}
        while pending:
            active = pending.pop(0)
            if active is send:
                return True
            if active in visited or active.graph is not send.graph:
                continue
            visited.add(active)
            for before in active.in_nodes():
                if (stream_of(before) == stream_of(send) and self._ids[before] >= self._ids[send]) \
                        or send in before.in_nodes():
                    return True
            pending += self._activators.get(stream_of(active), ())
        return False
