"""GE's limits on what an OM may ask of the loader, and the checks a decoded OM passes before
anything is made from it: every count and index read from the file is held against the file
itself and against GE's limits, so a corrupted field is one line naming it, never a huge
allocation or a Python error further on.

The limits are GE's own (hicann/ge):
- MAX_PARTITION_NUM: OmFileLoadHelper::CheckPartitionTableNum accepts PARTITION_SIZE (5,
  inc/framework/common/framework_types_internal.h) + up to kMaxIncreasePartitionNum (3,
  base/common/helper/om_file_helper.cc) partitions;
- MAX_STREAM_NUM: gert::StreamAllocator::kMaxStreamNum (inc/framework/runtime/stream_allocator.h);
- MAX_EVENT_NUM: gert::EventAllocator::kMaxEventNum (inc/framework/runtime/event_allocator.h);
- MAX_NOTIFY_NUM: kMaxNotifyNum (compiler/graph/build/stream/stream_allocator.cc, and
  inc/framework/runtime/notify_allocator.h).
GE has no constant for labels; each label is placed by one LabelSet task (its LabelMaker), so
a model cannot have more labels than tasks.

GE trusts a model's op descs as written. Here the numpy kernels would meet descs changed in the
file as operands that do not fit, a Python error on the device; so each op's descs are checked
against its producers' and its own InferShape first (check_descs), inferred on a copy: a model
refused leaves no edit in the trace, only its error.
"""
from __future__ import annotations

from google.protobuf.message import DecodeError

from ge_core.graph import ComputeGraph, GeTensor, GeTensorDesc, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import (ATTR_MODEL_LABEL_NUM, ATTR_MODEL_NOTIFY_NUM,
                                      ATTR_NAME_BATCH_LABEL, ATTR_NAME_WEIGHTS, ENGINE,
                                      INPUT_OFFSET, OPSET, OUTPUT_OFFSET, STREAM_ID, WORKSPACE,
                                      WORKSPACE_BYTES)
from ge_core.graph.types import DataType
from ge_core.om.ge_model import model_attrs
from ge_core.om.logical_memory import FEATURE_MAP_BASE, WEIGHT_BASE, tensor_size
from ge_core.ops import get_op_def
from ge_core.ops.graph_io import GE_NODE_TYPES
from ge_core.ops.infer_context import NEWEST_OPSET
from ge_core.ops.shape_refiner import InferShapeError, infer_for_inputs
from ge_core.ops.shape_rules import ShapeError
from ge_core.pattern_fusion import fused_ops  # noqa: F401 -- a built model's fused ops' InferShape
from ge_core.om.proto import ge_ir_pb2, task_pb2

MAX_PARTITION_NUM = 5 + 3
MAX_STREAM_NUM = 2024
MAX_EVENT_NUM = 4096
MAX_NOTIFY_NUM = 1024


class OmLimitError(ValueError):
    """A field of an OM that is out of range or inconsistent; the message names the field."""


def check_task_def(task_def: task_pb2.ModelTaskDef, weights_size: int) -> list[ge_ir_pb2.OpDef]:
    """Check the task list's counts and every task's op index and stream; returns the ops it
    names (each decoded once here)."""
    counts = {"stream_num": (task_def.stream_num, MAX_STREAM_NUM),
              "event_num": (task_def.event_num, MAX_EVENT_NUM),
              ATTR_MODEL_NOTIFY_NUM: (_count_attr(task_def, ATTR_MODEL_NOTIFY_NUM), MAX_NOTIFY_NUM),
              ATTR_MODEL_LABEL_NUM: (_count_attr(task_def, ATTR_MODEL_LABEL_NUM),
                                     len(task_def.task))}
    for name, (value, limit) in counts.items():
        if value > limit:
            raise OmLimitError(f"{name} {value} exceeds the limit of {limit}")
    if task_def.weight_size != weights_size:
        raise OmLimitError(f"weight_size {task_def.weight_size} but the WEIGHTS_DATA partition "
                           f"holds {weights_size} bytes")
    ops = []
    for i, raw in enumerate(task_def.op):
        try:
            ops.append(ge_ir_pb2.OpDef.FromString(raw))
        except DecodeError:
            raise OmLimitError(f"op {i} of the task list does not decode as an OpDef") from None
    for i, task in enumerate(task_def.task):
        if task.id >= len(ops):
            raise OmLimitError(f"task {i} names op index {task.id}, the task list has "
                               f"{len(ops)} ops")
        if task.stream_id >= task_def.stream_num:
            raise OmLimitError(f"task {i} is on stream {task.stream_id}, the model has "
                               f"{task_def.stream_num} streams")
    return ops


def _count_attr(task_def: task_pb2.ModelTaskDef, key: str) -> int:
    """A count the task list keeps as a string attr (GE's ATTR_MODEL_NOTIFY_NUM...)."""
    text = task_def.attr.get(key, "0")
    if not text.isdecimal():
        raise OmLimitError(f"{key} {text[:32]!r} is not a count")
    return int(text)


def check_model_attrs(model: ge_ir_pb2.ModelDef, task_def: task_pb2.ModelTaskDef
                      ) -> dict[str, int]:
    """The model's ATTR_MODEL_* attrs, each present, an int, and what the task list says."""
    expected = model_attrs(task_def)
    for key, value in expected.items():
        if key not in model.attr or model.attr[key].WhichOneof("value") != "i":
            raise OmLimitError(f"model attr {key} is missing or not an int")
        if model.attr[key].i != value:
            raise OmLimitError(f"model attr {key} = {model.attr[key].i}, the task list says "
                               f"{value}")
    return {k: model.attr[k].i for k in sorted(model.attr)
            if model.attr[k].WhichOneof("value") == "i"}


def check_io(graph: ComputeGraph, memory_size: int, weight_size: int) -> None:
    """Each graph input and output: a data type with a size, known dims, and a place inside the
    feature map or the weights (what the loader maps and a caller's buffers are sized by)."""
    ios = [(n, n.op_desc.output_descs[:1], n.op_desc.get_attr(OUTPUT_OFFSET))
           for n in graph.input_nodes]
    if graph.output_node is not None:
        out = graph.output_node
        ios.append((out, out.op_desc.input_descs, out.op_desc.get_attr(INPUT_OFFSET)))
    segments = ((FEATURE_MAP_BASE, memory_size), (WEIGHT_BASE, weight_size))
    for node, descs, offsets in ios:
        if len(offsets or []) != len(descs):
            raise OmLimitError(f"node {node.name}: {len(descs)} tensor(s) but offsets "
                               f"{offsets}")
        for k, (desc, addr) in enumerate(zip(descs, offsets)):
            what = f"node {node.name} tensor {k} ({desc})"
            if desc.dtype in (DataType.DT_UNDEFINED, DataType.DT_STRING) \
                    or any(d < 0 for d in desc.shape.dims) or desc.shape.is_unknown_rank:
                raise OmLimitError(f"{what}: a static model's input or output needs a data "
                                   f"type with a size and known dims")
            # a feature-map tensor takes GE's padded size; a weight only its own bytes
            end = addr + (tensor_size(desc) if addr < WEIGHT_BASE else
                          desc.shape.num_elements() * desc.dtype.to_numpy().itemsize)
            if not any(base <= addr and end <= base + size for base, size in segments):
                raise OmLimitError(f"{what} at [{addr:#x}, {end:#x}) lies outside the feature "
                                   f"map ({memory_size} B) and the weights ({weight_size} B)")


_BUILD_ANNOTATIONS = {ENGINE, STREAM_ID, INPUT_OFFSET, OUTPUT_OFFSET, WORKSPACE, WORKSPACE_BYTES}


def _public_attrs(op: OpDesc) -> str:
    """The op's own attributes (not GE's build annotations), as numbers and lists print."""
    shown = {k: v for k, v in sorted(op.attrs.items())
             if not k.startswith("_") and k not in _BUILD_ANNOTATIONS
             and isinstance(v, (int, float, str, list))}
    return ", ".join(f"{k}={v}" for k, v in shown.items()) or "(none)"


def _gear_view(node: Node, producer: Node, mine: GeTensorDesc, theirs: GeTensorDesc) -> bool:
    """A multi-batch gear's node reads the front of a tensor made for the largest gear: same
    dtype and rank, no dim larger (GE's gear subgraphs keep their own gear's shapes)."""
    label = node.op_desc.get_attr(ATTR_NAME_BATCH_LABEL)
    if label is None or producer.op_desc.get_attr(ATTR_NAME_BATCH_LABEL) == label or \
            mine.dtype != theirs.dtype or mine.shape.rank != theirs.shape.rank:
        return False
    return all(0 <= a <= b for a, b in zip(mine.shape.dims, theirs.shape.dims))


def check_descs(graph: ComputeGraph) -> None:
    """Each node's descs agree with its producers' and with its own InferShape: a desc or an
    attribute changed in the file would otherwise reach a kernel as operands that do not fit.
    (Nodes with no InferShape - GE's own, the runtime's control ops - are taken as written.)
    Each is inferred on a copy (infer_for_inputs): the loaded graph is not written, so a model
    refused leaves no edit in the trace."""
    opset = int(graph.root.attrs.get(OPSET, NEWEST_OPSET))
    for node in graph.all_nodes():
        op = node.op_desc
        consts: dict[int, GeTensor] = {}   # the inputs a Const makes, which InferShape may read
        for anchor in node.in_data_anchors:
            peer = anchor.peer
            if peer is None or anchor.idx >= len(op.input_descs):
                continue
            mine, theirs = op.input_descs[anchor.idx], peer.owner.op_desc.output_descs[peer.idx]
            if (mine.shape, mine.dtype) != (theirs.shape, theirs.dtype) and \
                    not _gear_view(node, peer.owner, mine, theirs):
                raise OmLimitError(f"node {node.name} input {anchor.idx} is {mine}, its "
                                   f"producer {peer.owner.name} makes {theirs}")
            source = GraphUtils.get_in_node_cross_subgraph(anchor)
            weights = source.op_desc.get_attr(ATTR_NAME_WEIGHTS) \
                if source is not None and source.type == "Const" else None
            if isinstance(weights, GeTensor):   # a file's Const may have lost its value
                consts[anchor.idx] = weights
        if get_op_def(node.type) is None or node.type in GE_NODE_TYPES:
            continue
        written = [str(d) for d in op.output_descs]
        try:
            inferred = [str(d) for d in infer_for_inputs(op, [None] * len(op.input_descs),
                                                         consts, opset, bodies=graph)]
        except InferShapeError as exc:
            if isinstance(exc.__cause__, ShapeError):
                raise OmLimitError(f"node {node.name} ({node.type}) does not fit its inputs and "
                                   f"attributes: {' '.join(exc.reason.split())}") from None
            # an attribute of the wrong length or kind, or an input desc lost: ONNX's checker,
            # which keeps those from a parsed model's InferShape, never saw this file
            raise OmLimitError(f"node {node.name} ({node.type}) does not fit its inputs and "
                               f"attributes: {node.type}'s InferShape cannot read inputs "
                               f"({', '.join(map(str, op.input_descs))}) with attributes "
                               f"{_public_attrs(op)}") from None
        if inferred != written:
            raise OmLimitError(f"node {node.name} ({node.type}) is written to make "
                               f"{', '.join(written)}; its inputs and attributes make "
                               f"{', '.join(inferred)}")
