"""What a multi-batch graph says about its gears, read back from the attributes the gear passes
wrote: for the loader and the reference executor, which must turn a run's input shapes into the
gear's dim values (GE's DavinciModel::GetCurDynamicDims) and know each output's shape in that
gear (GE's BuildOutputShapeInfo over NetOutput's ``_dynamic_output_dims``).

A graph is multi-batch when a node carries ``_batch_num``: the Case the clone pass made, or the
switch the build lowered it to (which keeps the Case's gear attributes).
"""
from __future__ import annotations

from dataclasses import dataclass

from ge_core.graph.attr_names import (ATTR_NAME_BATCH_NUM, ATTR_NAME_DYNAMIC_OUTPUT_DIMS,
                                      ATTR_NAME_PRED_VALUE)
from ge_core.graph.compute_graph import ComputeGraph

Dims = tuple[int, ...]
IS_SHAPE_DATA = "_is_multi_batch_shape_data"   # the Data that carries the gear's dim values
ALL_GEARS_INPUTS = "_all_origin_gears_inputs"  # a geared input's shape in each gear, as
                                               # "format:dtype:name:bytes:rank:d,d,..."
STATIC_OUTPUT = -1                              # GE's kStaticOutput: the same in every gear


class GearError(ValueError):
    """Input shapes that match no gear; the message names the shapes and the gears."""


@dataclass(frozen=True)
class Gears:
    gears: tuple[Dims, ...]                 # each gear's values of the dynamic dims
    inputs: tuple[tuple[Dims, ...] | None, ...]   # per graph input: its dims in each gear
    shape_data: int                         # the graph input that carries the values
    outputs: dict[tuple[int, int], Dims]    # (gear or STATIC_OUTPUT, output) -> dims
    names: tuple[str, ...] = ()             # the graph inputs' names

    @staticmethod
    def of(graph: ComputeGraph) -> Gears | None:
        """The gears of ``graph`` (its root nodes and bodies), or None if it has none."""
        switch = next((n for n in graph.all_nodes() if n.op_desc.has_attr(ATTR_NAME_BATCH_NUM)),
                      None)
        if switch is None:
            return None
        op = switch.op_desc
        gears = tuple(tuple(op.get_attr(f"{ATTR_NAME_PRED_VALUE}_{i}"))
                      for i in range(op.get_attr(ATTR_NAME_BATCH_NUM)))
        inputs = graph.input_nodes
        shapes = tuple(None if d.op_desc.get_attr(ALL_GEARS_INPUTS) is None
                       else tuple(_gear_dims(e) for e in d.op_desc.get_attr(ALL_GEARS_INPUTS))
                       for d in inputs)
        shape_data = next(i for i, d in enumerate(inputs) if d.op_desc.get_attr(IS_SHAPE_DATA))
        out = graph.output_node
        entries = out.op_desc.get_attr(ATTR_NAME_DYNAMIC_OUTPUT_DIMS) if out else None
        outputs = {}
        for entry in entries or ():
            gear, index, *dims = (int(v) for v in entry.split(","))
            outputs[(gear, index)] = tuple(dims)
        names = tuple(d.op_desc.output_names[0] or d.name for d in inputs)
        return Gears(gears, shapes, shape_data, outputs, names)

    def current(self, shapes: list[Dims | None]) -> int:
        """GetCurDynamicDims: the gear in which every geared input has the shape given
        (``shapes``: one per graph input, None where unknown)."""
        for gear in range(len(self.gears)):
            if all(want is None or shape is None or tuple(shape) == want[gear]
                   for want, shape in zip(self.inputs, shapes)):
                return gear
        geared = [i for i, (w, s) in enumerate(zip(self.inputs, shapes))
                  if w is not None and s is not None]
        given = ", ".join(f"{self.names[i]} {list(shapes[i])}" for i in geared)
        gears = "; ".join(", ".join(f"{self.names[i]} {list(self.inputs[i][g])}" for i in geared)
                          for g in range(len(self.gears)))
        raise GearError(f"input shapes {given} are in no gear (gears: {gears})")

    def input_dims(self, gear: int, index: int) -> Dims | None:
        """Input ``index``'s dims in ``gear``; None for an input the gears leave as it is."""
        shapes = self.inputs[index]
        return None if shapes is None else shapes[gear]

    def output_dims(self, gear: int, index: int) -> Dims | None:
        """Output ``index``'s dims in ``gear``, if the model recorded them."""
        return self.outputs.get((gear, index), self.outputs.get((STATIC_OUTPUT, index)))


def _gear_dims(entry: str) -> Dims:
    dims = entry.rsplit(":", 1)[1]
    return tuple(int(v) for v in dims.split(",") if v)
