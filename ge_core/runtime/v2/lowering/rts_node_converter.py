"""The RTS engine's sync nodes the build inserted -> the runtime's own sync on ordinary streams:
Send / Recv -> event record / wait (+ reset), SendNotify / RecvNotify -> notify record / wait,
StreamActive -> an event from its stream to each stream it activates. With one stream for
everything (hybrid) they order nothing and are dropped."""
from __future__ import annotations

from ge_core.graph import Node
from ge_core.graph.attr_names import ATTR_NAME_ACTIVE_STREAM_LIST, EVENT_ID, NOTIFY_ID
from ge_core.runtime.v2.lowering.lowering_context import LoweringContext
from ge_core.runtime.v2.lowering.node_converter import register_node_converter

_KERNELS = {"Send": ("RecordEvent", EVENT_ID), "Recv": ("WaitEvent", EVENT_ID),
            "SendNotify": ("RecordNotify", NOTIFY_ID), "RecvNotify": ("WaitNotify", NOTIFY_ID)}


@register_node_converter(*_KERNELS)
def lower_sync_node(node: Node, lc: LoweringContext) -> None:
    if lc.options.single_stream:
        return
    kernel, id_attr = _KERNELS[node.type]
    stream, stream_value = lc.stream(node)
    ident = node.op_desc.get_attr(id_attr)
    sync = lc.event(f"event{ident}") if id_attr == EVENT_ID else lc.notify(f"notify{ident}")
    lc.issue(lc.main.add(kernel, node.name, (stream_value, sync), attrs={
        "stream": stream, id_attr: ident}), stream)


@register_node_converter("StreamActive")
def lower_stream_active(node: Node, lc: LoweringContext) -> None:
    if lc.options.single_stream:
        return
    stream, stream_value = lc.stream(node)
    for target in node.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) or []:
        event = lc.event(f"{node.name}->stream{target}")
        active = lc.main.add("ActiveStream", f"{node.name}->stream{target}",
                             (stream_value, lc.stream_value(target), event),
                             attrs={"stream": stream})
        lc.issue(active, stream)
        lc.issue(active, target)
