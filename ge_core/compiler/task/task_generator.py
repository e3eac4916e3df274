"""TaskGenerator: an annotated graph -> the model's task list (GE's ModelTaskDef).

Nodes are visited as GE's TaskGenerator visits a static graph's GetAllNodes: the root graph in
topological order, each subgraph's nodes right after their parent node. So each stream's tasks,
the subsequence with its stream_id, keep the topological order of the nodes on that stream.
Each node that launches tasks gets the next op index and its OpDef in ModelTaskDef.op, from which
a loader rebuilds the kernel's attrs and tensor descs.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator

from ge_core.compiler.task.task_builder import TaskGenError, builder_for, node_stream
from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import (ATTR_MODEL_EVENT_NUM, ATTR_MODEL_LABEL_NUM,
                                      ATTR_MODEL_NOTIFY_NUM, ATTR_MODEL_STREAM_NUM,
                                      ATTR_MODEL_SUB_MEMORY_INFO, OUTPUT_OFFSET,
                                      STREAM_ID, WORKSPACE, WORKSPACE_BYTES)
from ge_core.model_task_type import ModelTaskType
from ge_core.om.logical_memory import FEATURE_MAP_BASE, VAR_BASE, WEIGHT_BASE, align, tensor_size
from ge_core.om.model_serializer import op_def
from ge_core.om.proto.ge_ir_pb2 import OpDef
from ge_core.om.proto.task_pb2 import ModelTaskDef, TaskDef
from ge_core.om.weights import weights_size

TASK_DEF_VERSION = "1.0"


def task_order(graph: ComputeGraph) -> Iterator[Node]:
    for node in graph.topological_sort():
        yield node
        for name in node.op_desc.subgraph_names:
            yield from task_order(graph.subgraph(name))


class OpDefs:
    """Each node's serialised OpDef and op index as GenTask made them, so the task defs
    regenerated after a stream split (GE's ReGetTaskInfo) make afresh only the op defs of the
    nodes the split edited: ``edited`` (EditCounts.touched over the split) names them, with the
    attr keys it set. A node that only moved stream, or none, keeps its OpDef, read back with
    its new stream and op index put in (as it is, where neither changed). Kept as bytes, not
    messages: a message a node costs kilobytes a large graph cannot spare. The split edits
    through set_attr and anchors only, which is what the watch sees."""

    def __init__(self) -> None:
        self._made: dict[Node, tuple[int, bytes]] = {}
        self.edited: dict[Node, set[str]] = {}

    def serialized(self, node: Node, op_index: int) -> bytes:
        made = self._made.get(node)
        edited = self.edited.get(node, ())
        if made is None or not self._moved_only(node, edited):
            op = op_def(node)
        elif not edited and made[0] == op_index:
            return made[1]
        else:
            op = OpDef.FromString(made[1])
            if edited:
                op.stream_id = node.op_desc.get_attr(STREAM_ID)
        op.id = op_index
        data = op.SerializeToString(deterministic=True)
        self._made[node] = (op_index, data)
        return data

    @staticmethod
    def _moved_only(node: Node, edited: Iterable[str]) -> bool:
        return all(key == STREAM_ID for key in edited) \
            and (not edited or isinstance(node.op_desc.get_attr(STREAM_ID), int))


def generate_tasks(graph: ComputeGraph, per_node: dict[str, int] | None = None,
                   ops: OpDefs | None = None,
                   sizes_from: ModelTaskDef | None = None) -> ModelTaskDef:
    """``per_node``, when given, gets each node's number of tasks (GE's node_id_2_node_tasks,
    which SplitStreamAndRefreshTaskDef budgets the streams with); ``ops``, when given, keeps
    each node's op def (or gives back the one kept, see OpDefs); ``sizes_from``: see
    set_totals."""
    model = ModelTaskDef(version=TASK_DEF_VERSION, base_addr=FEATURE_MAP_BASE,
                         weight_addr=WEIGHT_BASE)
    ops = OpDefs() if ops is None else ops
    for node in task_order(graph):
        builder = builder_for(node)
        if builder.count(node) == 0:
            continue
        op_index = len(model.op)
        tasks = builder.build(node, op_index, _stream(node))
        model.task.extend(tasks)
        if per_node is not None:
            per_node[node.name] = len(tasks)
        model.op.append(ops.serialized(node, op_index))
    set_totals(model, graph, sizes_from)
    return model


def _stream(node: Node) -> int:
    stream = _end_graph_stream(node) if node.type == "NetOutput" else node_stream(node)
    if stream is None:
        raise TaskGenError(f"node {node.name} ({node.type}) launches tasks but has no stream_id: "
                           f"stream allocation has not run")
    return stream


def _end_graph_stream(net_output: Node) -> int:
    """NetOutput's own stream if the allocator gave it one, else its first producer's (through
    GE-local producers, which have none); stream 0 if only Data feeds it."""
    node: Node | None = net_output
    while node is not None:
        stream = node_stream(node)
        if stream is not None:
            return stream
        node = next(iter(node.in_data_nodes()), None)
    return 0


# The task types that name a stream, event, notify or label besides their own stream: which,
# and where in the task def
_NAMED_IDS: dict[int, tuple[str, Callable[[TaskDef], Iterable[int]]]] = {
    ModelTaskType.STREAM_ACTIVE: ("streams", lambda t: (t.stream_active.active_stream_id,)),
    ModelTaskType.STREAM_SWITCH: ("streams", lambda t: (t.stream_switch.true_stream_id,)),
    ModelTaskType.STREAM_SWITCH_N: ("streams", lambda t: t.stream_switch_n.true_stream_id),
    ModelTaskType.EVENT_RECORD: ("events", lambda t: (t.event_id,)),
    ModelTaskType.EVENT_WAIT: ("events", lambda t: (t.event_id,)),
    ModelTaskType.NOTIFY_RECORD: ("notifies", lambda t: (t.notify_id,)),
    ModelTaskType.NOTIFY_WAIT: ("notifies", lambda t: (t.notify_id,)),
    ModelTaskType.LABEL_SET: ("labels", lambda t: (t.label_set.label_id,)),
}


def set_totals(model: ModelTaskDef, graph: ComputeGraph,
               sizes_from: ModelTaskDef | None = None) -> None:
    """``sizes_from``: an earlier task def of ``graph`` whose feature map and weight sizes
    still hold (a stream split moves no tensor and adds no weight), so the nodes need not be
    walked for them again."""
    ids: dict[str, set[int]] = {"streams": {0}, "events": set(), "notifies": set(),
                                "labels": set()}
    streams = ids["streams"]
    for task in model.task:
        streams.add(task.stream_id)
        named = _NAMED_IDS.get(task.type)   # most tasks (kernels) name only their stream
        if named is not None:
            kind, read = named
            ids[kind].update(read(task))
    events, notifies, labels = ids["events"], ids["notifies"], ids["labels"]
    # Ids are dense from 0 (the allocators hand them out so), so a count is the top id + 1; the
    # stream allocator also records its counts on the graph, which win where larger (a stream
    # may hold no task, and GE creates it all the same). Notifies and labels have no
    # ModelTaskDef field of their own: they go in its attr map.
    def count(key: str, ids: set[int]) -> int:
        return max(max(ids, default=-1) + 1, graph.attrs.get(key, 0))

    model.stream_num = count(ATTR_MODEL_STREAM_NUM, streams)
    model.event_num = count(ATTR_MODEL_EVENT_NUM, events)
    model.attr[ATTR_MODEL_NOTIFY_NUM] = str(count(ATTR_MODEL_NOTIFY_NUM, notifies))
    model.attr[ATTR_MODEL_LABEL_NUM] = str(count(ATTR_MODEL_LABEL_NUM, labels))
    if ATTR_MODEL_SUB_MEMORY_INFO in graph.attrs:
        model.attr[ATTR_MODEL_SUB_MEMORY_INFO] = graph.attrs[ATTR_MODEL_SUB_MEMORY_INFO]
    if sizes_from is None:
        model.memory_size, model.weight_size = feature_map_size(graph), weights_size(graph)
    else:
        model.memory_size, model.weight_size = sizes_from.memory_size, sizes_from.weight_size


def feature_map_size(graph: ComputeGraph) -> int:
    """The feature map's extent: the end of the furthest output or workspace placed in it."""
    end = FEATURE_MAP_BASE
    for node in graph.all_nodes():
        op = node.op_desc
        placed = list(zip(op.get_attr(OUTPUT_OFFSET) or [], map(tensor_size, op.output_descs)))
        placed += zip(op.get_attr(WORKSPACE) or [], op.get_attr(WORKSPACE_BYTES) or [])
        end = max([end, *(addr + size for addr, size in placed
                          if FEATURE_MAP_BASE <= addr < VAR_BASE)])
    return align(end - FEATURE_MAP_BASE)
