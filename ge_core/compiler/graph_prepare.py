"""GraphPrepare::CheckAndUpdateInput: the shapes of the inputs a user gives become the graph's
Data shapes before InferShape, as GE does at PreRun with the inputs of the first RunGraph (and
ATC with ``--input_shape`` when no gear option makes the dims dynamic: UpdateDataShapeByUserInput).

Exporters write a dimension they do not fix as a name (``batch``, ``p2o.DynamicDimension.0``,
``?``) or leave it blank; the parser reads every one as unknown (-1). Given an input's shape,
each unknown dimension takes its size (-1 given keeps it unknown); a fixed one must agree. With
every input's shape known the graph is static and is sunk; what is still unknown runs hybrid
(ModelManager decides).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from ge_core.graph import ComputeGraph, GeShape
from ge_core.graph.ge_tensor import UNKNOWN_DIM

InputShape = Mapping[str, Sequence[int]]   # Data (graph input) name -> the dims given for it


class GraphPrepareError(ValueError):
    """A given shape that does not fit the model's input; the message names the input."""


def check_and_update_input(graph: ComputeGraph, input_shape: InputShape) -> None:
    """Give each Data named in ``input_shape`` those dims (output and input desc)."""
    data = {n.op_desc.output_names[0] or n.name: n for n in graph.input_nodes}
    for name, dims in input_shape.items():
        node = data.get(name)
        if node is None:
            raise GraphPrepareError(f"a shape for {name!r}, which is no input of the model "
                                    f"(inputs: {', '.join(data) or 'none'})")
        desc = node.op_desc.output_descs[0]
        dims = tuple(int(d) for d in dims)
        if any(d < UNKNOWN_DIM for d in dims):
            raise GraphPrepareError(f"input {name}: shape {list(dims)} has a negative size "
                                    f"(-1 is an unknown one)")
        if not desc.shape.is_unknown_rank:
            model = desc.shape.dims
            if len(model) != len(dims) or any(UNKNOWN_DIM not in (m, d) and m != d
                                               for m, d in zip(model, dims)):
                # worded as the runtime's feed check words it (v2's check_feed)
                raise GraphPrepareError(f"input {name}: shape {list(dims)}, the model takes "
                                        f"{['?' if d < 0 else d for d in model]}")
        op, shape = node.op_desc, GeShape(dims)
        for i, d in enumerate(op.input_descs):
            op.update_input_desc(i, replace(d, shape=shape))
        op.update_output_desc(0, replace(desc, shape=shape))
