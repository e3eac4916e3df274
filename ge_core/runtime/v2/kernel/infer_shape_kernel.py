"""InferShape at run time (GE's InferShape kernel for a node whose shapes are not static): the
op's registered InferShape, run on a per-execution copy of its descs with the input shapes of
this execution.

The copy lives in a throwaway one-node graph (shape_refiner's infer_for_inputs), so the
model's graph is never touched. Outputs the input shapes alone decide are kept per input shapes
(``seen``), so a Loop body's nodes are inferred once, not at every iteration: the one-node graph
was half of a hybrid Loop's time (GE's hybrid executor skips a node whose output shapes are
static; it infers the others each time). The Const inputs an InferShape may read (Reshape's shape,
Slice's starts) are linked in as Consts. When the outputs still have unknown dims, they depend on
input *values* computed on the device (a shape built by Shape -> Gather -> Concat, Expand's target
shape from a graph input): GE's data-dependent InferShape. The host then synchronizes the stream,
reads those inputs back, and infers again with them as Consts.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ge_core.graph import DataType, GeTensor, OpDesc
from ge_core.ops.shape_refiner import infer_for_inputs
from ge_core.runtime.model_memory import device_to_host
from ge_core.runtime.v2.execute_graph import ExecuteGraphError, TensorSpec
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel
from npu_emu.core.kernel_task import TensorArg

# An input read back for a data-dependent InferShape is a shape-like operand, and few of them:
# integers (Reshape's shape, Range's bounds) or floats (Resize's scales); a large tensor is
# data, and reading it back would not help.
MAX_VALUE_DEPENDENT_ELEMENTS = 4096
NUMBER_KINDS = "iufV"   # ml_dtypes' narrow floats (Range's bfloat16 bounds) are numpy kind "V"


def infer_specs(op_desc: OpDesc, consts: dict[int, GeTensor], opset: int,
                args: Sequence[TensorArg | None]) -> list[TensorSpec | None]:
    """Output specs of ``op_desc`` for inputs shaped like ``args``; None where still unknown."""
    descs = infer_for_inputs(op_desc, [None if a is None else
                                       (a.shape, DataType.from_numpy(a.dtype)) for a in args],
                             consts, opset)
    return [None if d.shape.is_unknown else TensorSpec(d.shape.dims, d.dtype.to_numpy().name)
            for d in descs]


@register_kernel("InferShape")
def infer_shape_at_run_time(ctx: KernelContext) -> None:
    v, a = ctx.values, ctx.attrs
    stream = v[ctx.ins[0]]
    args = [v[i] for i in ctx.ins[1:]]
    consts: dict[int, GeTensor] = a["consts"]
    seen: dict[tuple, list[TensorSpec]] = a["seen"]
    key = tuple(None if arg is None else (tuple(arg.shape), np.dtype(arg.dtype).str)
                for arg in args)
    specs = seen.get(key)
    if specs is None:
        specs = infer_specs(a["op_desc"], consts, a["opset"], args)
        if None not in specs:   # shapes alone decided them: the same shapes decide the same
            seen[key] = specs
    if None in specs:
        readable = {i: arg for i, arg in enumerate(args) if arg is not None and i not in consts
                    and np.dtype(arg.dtype).kind in NUMBER_KINDS
                    and math.prod(arg.shape) <= MAX_VALUE_DEPENDENT_ELEMENTS}
        if readable:
            stream.synchronize()
            values = {i: GeTensor(device_to_host(stream.device, arg))
                      for i, arg in readable.items()}
            specs = infer_specs(a["op_desc"], {**consts, **values}, a["opset"], args)
    if None in specs:
        raise ExecuteGraphError(f"{ctx.name}: output {specs.index(None)}'s shape depends on the "
                                f"values the op computes (GE's DEPEND_COMPUTE); not supported")
    for out, spec in zip(ctx.outs, specs):
        v[out] = spec
