"""A multi-batch model's inputs on one execution (GE's DavinciModel::CopyModelData with
is_online_infer_dynamic_): the gear is found from the inputs' shapes (GetCurDynamicDims) and its
dim values become the extra input ``ascend_mbatch_shape_data`` (CreateMultiBatchDataBuffer), the
value the device switches on. A caller may instead give that input itself, as ACL's
aclmdlSetDynamicBatchSize writes it; the gear is then the one it names.

Each input of the gear is written from the start of the model's buffer, which has room for the
largest gear; each output comes back in the gear's own shape (GE's BuildOutputShapeInfo).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ge_core.graph.multi_batch_gears import Dims, GearError, Gears
from ge_core.runtime.errors import ModelInputError
from ge_core.runtime.model_io import DeviceBuffer, IoDesc


@dataclass(frozen=True)
class GearInputs:
    values: list[Any]         # one per model input, the shape data filled in
    gear: int | None          # None: named by a device buffer only the device reads
    dims: list[Dims]          # each input's dims in this gear


def gear_inputs(gears: Gears, ios: list[IoDesc], model: str,
                inputs: Mapping[str, Any] | list[Any]) -> GearInputs:
    shape_io = ios[gears.shape_data]
    if isinstance(inputs, Mapping):
        values = [inputs.get(io.name) for io in ios]
        missing = [io.name for io, v in zip(ios, values) if v is None and io is not shape_io]
        if missing:
            raise ModelInputError(f"model {model}: no value for input(s) {', '.join(missing)}")
    else:
        values = list(inputs)
        if len(values) == len(ios) - 1 and gears.shape_data == len(ios) - 1:
            values.append(None)   # the gear's values, for us to fill in
        if len(values) != len(ios):
            raise ModelInputError(f"model {model} takes {len(ios)} inputs, {len(values)} given")
    given = values[gears.shape_data]
    if isinstance(given, DeviceBuffer):   # the device reads the gear; the host cannot know it
        return GearInputs(values, None, [io.dims for io in ios])
    shapes = [None if isinstance(v, DeviceBuffer) or v is None else np.shape(v) for v in values]
    try:
        if given is not None:
            gear = _named_gear(gears, np.asarray(given))
        elif all(s is None for s, w in zip(shapes, gears.inputs) if w is not None):
            raise GearError("every geared input is a device buffer: give the gear's values as "
                            "ascend_mbatch_shape_data")
        else:
            gear = gears.current(shapes)
    except GearError as exc:
        raise ModelInputError(f"model {model}: {exc}") from exc
    if given is None:
        values[gears.shape_data] = np.array(gears.gears[gear], shape_io.dtype)
    dims = [gears.input_dims(gear, i) or io.dims for i, io in enumerate(ios)]
    return GearInputs(values, gear, dims)


def output_dims(gears: Gears, gear: int, ios: list[IoDesc]) -> list[Dims]:
    return [gears.output_dims(gear, io.index) or io.dims for io in ios]


def _named_gear(gears: Gears, value: np.ndarray) -> int:
    row = tuple(int(v) for v in value.reshape(-1))
    if row not in gears.gears:
        raise GearError(f"ascend_mbatch_shape_data {list(row)} is none of the gears "
                        f"{[list(g) for g in gears.gears]}")
    return gears.gears.index(row)
