"""InferShapeContext: what an InferShape function sees of its node (GE's gert::InferShapeContext).

It reads input descs, attrs and constant inputs, and writes output descs; it never touches the
graph's edges, so an InferShape function cannot change the graph's structure.
"""
from __future__ import annotations

import numpy as np

from ge_core.graph.attr_names import ATTR_NAME_WEIGHTS, OPSET
from ge_core.graph.ge_tensor import GeShape, GeTensorDesc
from ge_core.graph.graph_utils import GraphUtils
from ge_core.graph.node import Node
from ge_core.graph.types import DataType
from ge_core.ops.data_type import data_type_from_onnx
from ge_core.ops.shape_rules import Dims, ShapeError, dims_of

# A graph with no recorded opset (built by hand, or by a pass) gets the newest semantics.
NEWEST_OPSET = 10_000


class InferShapeContext:
    __slots__ = ("node", "op_desc")

    def __init__(self, node: Node) -> None:
        self.node = node
        self.op_desc = node.op_desc

    @property
    def opset(self) -> int:
        return int(self.node.graph.root.attrs.get(OPSET, NEWEST_OPSET))

    @property
    def n_inputs(self) -> int:
        return len(self.op_desc.input_descs)

    @property
    def n_outputs(self) -> int:
        return len(self.op_desc.output_descs)

    def has_input(self, idx: int) -> bool:
        """Input ``idx`` exists and was not left out (ONNX's empty input name)."""
        return idx < self.n_inputs and not self.op_desc.input_descs[idx].absent

    def dims(self, idx: int) -> Dims:
        return dims_of(self.op_desc.input_descs[idx].shape)

    def dtype(self, idx: int) -> DataType:
        return self.op_desc.input_descs[idx].dtype

    def attr(self, key: str, default: object = None) -> object:
        return self.op_desc.get_attr(key, default)

    def dtype_attr(self, key: str) -> DataType | None:
        """An attr holding an ONNX element type (Cast's ``to``, EyeLike's ``dtype``) as GE's
        DataType; None when absent. A type GE lacks is a shape error naming it."""
        code = self.op_desc.get_attr(key)
        if code is None:
            return None
        try:
            return data_type_from_onnx(int(code))
        except ValueError as err:
            raise ShapeError(str(err)) from None

    def count_attr(self, key: str, default: int) -> int:
        """An int attr an output dim is counted in (RoiAlign's output_height, an RNN's
        hidden_size), refused below 1: a -1 would read as an unknown dim, which a build takes
        for a shape the op computes, and a 0 leaves the op nothing to compute."""
        value = int(self.op_desc.get_attr(key, default))
        if value < 1:
            raise ShapeError(f"{key} {value} is not positive")
        return value

    def ints_attr(self, key: str) -> list[int] | None:
        value = self.op_desc.get_attr(key)
        return None if value is None else [int(v) for v in value]

    def const(self, idx: int) -> np.ndarray | None:
        """The value of input ``idx`` when a Const produces it (shape operands of Reshape,
        Slice, Pad...); None when it is only known at run time."""
        if not self.has_input(idx):
            return None
        source = GraphUtils.get_in_node_cross_subgraph(self.node.in_data_anchors[idx])
        if source is None or source.type != "Const":
            return None
        return source.op_desc.get_attr(ATTR_NAME_WEIGHTS).data

    def const_ints(self, idx: int) -> list[int] | None:
        value = self.const(idx)
        if value is None:
            return None
        if value.dtype.kind in "iu":   # tolist makes the Python ints in C
            return value.reshape(-1).tolist()
        if value.dtype.kind == "f" and not np.isfinite(value).all():   # no int of it
            raise ShapeError(f"input {idx} holds {value.reshape(-1).tolist()}: not all finite")
        return [int(v) for v in value.reshape(-1)]

    def const_dims(self, idx: int, what: str) -> list[int] | None:
        """Input ``idx``'s value as output dims (Expand's shape, ConstantOfShape's input...),
        refused where one is negative: numpy's own refusal names no input, and a -1 would read
        as an unknown dim."""
        dims = self.const_ints(idx)
        if dims is not None and any(d < 0 for d in dims):
            raise ShapeError(f"{what} {dims} holds a negative value")
        return dims

    def operand_ints(self, key: str, idx: int) -> tuple[bool, list[int] | None]:
        """An operand that moved from an attr to an input across opsets (Reshape's shape, Slice's
        starts, Squeeze's axes...): (given, value). given is False when neither the attr nor the
        input is there; value is None when the input is there but not constant."""
        if self.op_desc.has_attr(key):
            return True, self.ints_attr(key)
        if self.has_input(idx):
            return True, self.const_ints(idx)
        return False, None

    def set_output(self, idx: int, dims: Dims, dtype: DataType) -> None:
        desc = self.op_desc.output_descs[idx]
        shape = desc.shape
        if dims is None:
            shape = GeShape.unknown_rank()
        elif shape.dims != (dims := tuple(dims)):
            shape = GeShape(dims)
        # an unchanged desc is left as it is, its shape object too (shapes are frozen): a
        # re-inference, which Prepare runs on every node the parser inferred, then writes
        # nothing, and finds the consumers' input descs already holding the shape
        # (update_peer_input_desc compares by identity first)
        if shape is not desc.shape or dtype != desc.dtype:
            self.op_desc.update_output_desc(idx, desc.inferred(shape, dtype))

    def set_output_desc(self, idx: int, desc: GeTensorDesc) -> None:
        self.set_output(idx, dims_of(desc.shape), desc.dtype)
