"""ONNX element types as GE data types. Ops keep ONNX's attrs (Cast's `to` is an ONNX code), so
the op registry, not only the parser, needs this table. onnx is imported when the table is
first read: a model's ops are read after onnx has parsed it, and a face that has not opened one
yet (the workbench's first screen) need not load onnx."""
from __future__ import annotations

from functools import cache

from ge_core.graph.types import DataType


@cache
def _from_onnx() -> dict[int, DataType]:
    from onnx import TensorProto
    return {
        TensorProto.FLOAT: DataType.DT_FLOAT, TensorProto.UINT8: DataType.DT_UINT8,
        TensorProto.INT8: DataType.DT_INT8, TensorProto.UINT16: DataType.DT_UINT16,
        TensorProto.INT16: DataType.DT_INT16, TensorProto.INT32: DataType.DT_INT32,
        TensorProto.INT64: DataType.DT_INT64, TensorProto.STRING: DataType.DT_STRING,
        TensorProto.BOOL: DataType.DT_BOOL, TensorProto.FLOAT16: DataType.DT_FLOAT16,
        TensorProto.DOUBLE: DataType.DT_DOUBLE, TensorProto.UINT32: DataType.DT_UINT32,
        TensorProto.UINT64: DataType.DT_UINT64, TensorProto.BFLOAT16: DataType.DT_BF16,
        TensorProto.INT4: DataType.DT_INT4, TensorProto.UINT4: DataType.DT_UINT4,
        TensorProto.INT2: DataType.DT_INT2, TensorProto.UINT2: DataType.DT_UINT2,
        TensorProto.FLOAT8E5M2: DataType.DT_FLOAT8_E5M2,
        TensorProto.FLOAT8E4M3FN: DataType.DT_FLOAT8_E4M3FN,
        TensorProto.FLOAT8E4M3FNUZ: DataType.DT_FLOAT8_E4M3FNUZ,
        TensorProto.FLOAT8E5M2FNUZ: DataType.DT_FLOAT8_E5M2FNUZ,
        TensorProto.FLOAT8E8M0: DataType.DT_FLOAT8_E8M0,
        TensorProto.FLOAT4E2M1: DataType.DT_FLOAT4_E2M1,
    }


def data_type_from_onnx(elem_type: int) -> DataType:
    """GE's DataType for an ONNX TensorProto.DataType code; ValueError for types GE lacks
    (complex)."""
    from onnx import TensorProto
    if elem_type == TensorProto.UNDEFINED:
        return DataType.DT_UNDEFINED
    try:
        return _from_onnx()[elem_type]
    except KeyError:
        name = TensorProto.DataType.Name(elem_type) if elem_type in TensorProto.DataType.values() \
            else str(elem_type)
        raise ValueError(f"ONNX element type {name} has no GE data type") from None
