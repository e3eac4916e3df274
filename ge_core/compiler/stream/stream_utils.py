"""What every stream module asks of a node (GE's StreamUtils)."""
from __future__ import annotations

from ge_core.compiler.engine_placer import ENGINE_BY_NAME, Engine
from ge_core.graph import Node
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_STREAM_LIST, ATTR_NAME_STREAM_LABEL, ENGINE,
                                      STREAM_ID)

INVALID_STREAM = -1  # GE's kInvalidStream: the node launches nothing on any stream


class StreamAllocationError(Exception):
    """A stream rule cannot be met; the message names the node or subgraph at fault."""


def stream_of(node: Node) -> int:
    return node.op_desc.get_attr(STREAM_ID, INVALID_STREAM)


def set_stream(node: Node, stream: int) -> bool:
    """Through set_attr (a watch on stream_id fires), and only when the value changes, so the
    trace shows each real move once; whether it changed."""
    if node.op_desc.has_attr(STREAM_ID) and stream_of(node) == stream:
        return False
    node.op_desc.set_attr(STREAM_ID, stream)
    return True


def stream_label(node: Node) -> str:
    return node.op_desc.get_attr(ATTR_NAME_STREAM_LABEL) or ""


def active_streams(node: Node) -> list[int]:
    return list(node.op_desc.get_attr(ATTR_NAME_ACTIVE_STREAM_LIST) or [])


def engine_conf(node: Node) -> Engine:
    name = node.op_desc.get_attr(ENGINE)
    if name not in ENGINE_BY_NAME:
        raise StreamAllocationError(
            f"node {node.name} ({node.type}): engine {name!r} is not one of "
            f"{', '.join(ENGINE_BY_NAME)}; streams are assigned after engine placement")
    return ENGINE_BY_NAME[name]


def launches_task(node: Node) -> bool:
    """GE-local and host-CPU work runs no device task, except NetOutput (END_GRAPH)."""
    return not engine_conf(node).skip_assign_stream or node.type == "NetOutput"
