"""GraphPrepare::CheckAndUpdateInput: the shapes of the inputs a user gives become the graph's
Data shapes before InferShape, as GE does at PreRun with the inputs of the first RunGraph (and
ATC with its ``--input_shape``).

Exporters write a dimension they do not fix as a name (``batch``, ``p2o.DynamicDimension.0``,
``?``) or leave it blank; the parser reads every one as unknown (-1). Given an input's shape,
each unknown dimension takes its size; a fixed one must agree. With every input's shape known
the graph is static and is sunk; what is still unknown runs hybrid (ModelManager decides).

    input_shape "x:4,3;mask:4"    GE's option text: NAME:D0,D1,... joined by ";" (a scalar: NAME:)
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ge_core.graph import ComputeGraph, GeShape
from ge_core.graph.ge_tensor import UNKNOWN_DIM

InputShape = Mapping[str, Sequence[int]]   # Data (graph input) name -> the dims given for it


class GraphPrepareError(ValueError):
    """A given shape that does not fit the model's input; the message names the input."""


def parse_input_shape(text: str) -> dict[str, tuple[int, ...]]:
    """GE's input_shape text -> {name: dims}."""
    shapes: dict[str, tuple[int, ...]] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        name, sep, dims = item.rpartition(":")
        try:
            if not sep or not name:
                raise ValueError
            shapes[name] = tuple(int(d) for d in dims.split(",")) if dims.strip() else ()
        except ValueError:
            raise GraphPrepareError(f"{item!r}: expected NAME:D0,D1,... (sizes as integers)"
                                    ) from None
    return shapes


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
        if any(d < 0 for d in dims):
            raise GraphPrepareError(f"input {name}: shape {list(dims)} has a negative size")
        if not desc.shape.is_unknown_rank:
            model = desc.shape.dims
            if len(model) != len(dims) or any(m != UNKNOWN_DIM and m != d
                                               for m, d in zip(model, dims)):
                raise GraphPrepareError(f"input {name}: shape {list(dims)} does not fit the "
                                        f"model's {desc.shape}")
        for d in (*node.op_desc.input_descs, desc):
            d.shape = GeShape(dims)
