"""Single op: one op compiled into a minimal graph, cached, executed on the device (aclop).

Entry point, shaped like aclopExecuteV2 (op type, inputs, attributes -> outputs):

    execute_single_op(op_type, inputs, attrs=None, *, num_outputs=1, dynamic=False,
                      opset=LATEST_OPSET, stream=None) -> list[np.ndarray]
        inputs   host arrays (None for an optional input left out); their shapes and dtypes
                 are the op's input descs
        dynamic  compile with every dim unknown (DynamicSingleOp): one compiled op per rank;
                 an op whose output shape depends on an input's value is dynamic anyway
        stream   the npu_emu stream (default: the current runtime's default stream)

    The op is looked up in the current world's cache for the stream first (single_op_manager():
    ``get_resource(stream).hits / misses``); a miss compiles it and builds its tasks
    (single_op_model.py: TbeOpTask, AiCpuCCTask, AiCpuTask), which each call launches on the
    stream.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ge_core.graph import DataType, GeShape, GeTensorDesc
from ge_core.graph.ge_tensor import UNKNOWN_DIM
from ge_core.runtime.op_kernel import LATEST_OPSET
from ge_core.runtime.single_op.single_op_cache import (OpKey, SingleOpManager, StreamResource,
                                                       freeze_attrs, single_op_manager)
from ge_core.runtime.single_op.op_task import (AiCpuCCTask, AiCpuTask, MemcpyAsyncTask,
                                               OpTask, TbeOpTask)
from ge_core.runtime.single_op.single_op_model import (DynamicSingleOp, SingleOp,
                                                       SingleOpModel, single_op_graph)
from ge_core.runtime.v2 import default_stream
from npu_emu.core.stream import Stream


def op_key(op_type: str, inputs: Sequence[np.ndarray | None], attrs: dict[str, Any],
           num_outputs: int, dynamic: bool, opset: int) -> OpKey:
    arrays = [None if x is None else np.asarray(x) for x in inputs]
    shapes = tuple(None if a is None else
                   (UNKNOWN_DIM,) * a.ndim if dynamic else tuple(a.shape) for a in arrays)
    dtypes = tuple(None if a is None else a.dtype.name for a in arrays)
    return OpKey(op_type, shapes, dtypes, freeze_attrs(attrs), num_outputs, opset, dynamic)


def build_op(key: OpKey, attrs: dict[str, Any], stream: Stream) -> SingleOp | DynamicSingleOp:
    descs = [None if shape is None else GeTensorDesc(GeShape(shape),
                                                     DataType.from_numpy(np.dtype(dtype)))
             for shape, dtype in zip(key.shapes, key.dtypes)]
    return SingleOpModel(key.op_type, descs, attrs, key.num_outputs, key.opset).build_op(stream)


def execute_single_op(op_type: str, inputs: Sequence[np.ndarray | None],
                      attrs: dict[str, Any] | None = None, *, num_outputs: int = 1,
                      dynamic: bool = False, opset: int = LATEST_OPSET,
                      stream: Stream | None = None) -> list[np.ndarray]:
    attrs = dict(attrs or {})
    stream = stream or default_stream()
    key = op_key(op_type, inputs, attrs, num_outputs, dynamic, opset)
    op = single_op_manager().get_resource(stream).get_or_build(
        key, lambda: build_op(key, attrs, stream))
    return list(op.execute(inputs).outputs.values())


__all__ = ["AiCpuCCTask", "AiCpuTask", "DynamicSingleOp", "MemcpyAsyncTask", "OpKey", "OpTask",
           "SingleOp", "SingleOpManager", "SingleOpModel", "StreamResource", "TbeOpTask",
           "execute_single_op", "op_key", "single_op_graph", "single_op_manager"]
