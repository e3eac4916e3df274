"""Data types and formats, numbered as GE's ge_ir.proto / graph types (hicann/ge
graph_metadef/proto/ge_ir.proto).

The narrow types (bfloat16, float8, float4, int4, int2) have numpy dtypes from ml_dtypes, so a
tensor of them is a numpy array like any other: in emulated device memory, in a kernel, in an
OM weight. ml_dtypes keeps an int4 or an int2 in a byte of its own; GE packs them (two int4 a
byte), so emulated memory holds them wider than an NPU's does. ml_dtypes is imported the
first time a narrow type is asked for: loading it costs more than numpy does, and most models
(and the workbench's first screen) never need it.
"""
from __future__ import annotations

import sys
from enum import IntEnum
from functools import cache

import numpy as np


class DataType(IntEnum):
    DT_UNDEFINED = 0
    DT_FLOAT = 1
    DT_FLOAT16 = 2
    DT_INT8 = 3
    DT_UINT8 = 4
    DT_INT16 = 5
    DT_UINT16 = 6
    DT_INT32 = 7
    DT_INT64 = 8
    DT_UINT32 = 9
    DT_UINT64 = 10
    DT_BOOL = 11
    DT_DOUBLE = 12
    DT_STRING = 13
    DT_VARIANT = 26  # a value that is no tensor: an ONNX sequence or optional (host only)
    DT_BF16 = 27
    DT_INT4 = 28
    DT_INT2 = 30
    DT_UINT2 = 31
    DT_FLOAT8_E5M2 = 34
    DT_FLOAT8_E4M3FN = 35
    DT_FLOAT8_E8M0 = 36
    DT_FLOAT4_E2M1 = 39
    # ONNX types GE has no number for; numbered past GE's range so they never collide with one.
    DT_UINT4 = 1001
    DT_FLOAT8_E4M3FNUZ = 1002
    DT_FLOAT8_E5M2FNUZ = 1003

    @property
    def short(self) -> str:
        return _SHORT[self]

    def to_numpy(self) -> np.dtype:
        np_type = _TO_NP.get(self) or _narrow().get(self)
        if np_type is None:
            raise TypeError(f"{self.name} has no numpy dtype")
        return np.dtype(np_type)

    @staticmethod
    def from_numpy(dtype: np.dtype | type) -> "DataType":
        dt = np.dtype(dtype)
        known = _FROM_NP.get(dt)
        if known is None:
            known = _FROM_NP[dt] = DataType._find_numpy(dt)
        return known

    @staticmethod
    def _find_numpy(dt: np.dtype) -> "DataType":
        for k, v in _TO_NP.items():
            if np.dtype(v) == dt:
                return k
        if "ml_dtypes" in sys.modules:   # else no dtype of its can exist yet
            for k, v in _narrow().items():
                if np.dtype(v) == dt:
                    return k
        if dt.kind in "OUS":
            return DataType.DT_STRING
        raise TypeError(f"numpy dtype {dt} has no GE data type")


_FROM_NP: dict[np.dtype, "DataType"] = {}   # from_numpy's answers: every weight asks

_TO_NP = {
    DataType.DT_FLOAT: np.float32, DataType.DT_FLOAT16: np.float16, DataType.DT_INT8: np.int8,
    DataType.DT_UINT8: np.uint8, DataType.DT_INT16: np.int16, DataType.DT_UINT16: np.uint16,
    DataType.DT_INT32: np.int32, DataType.DT_INT64: np.int64, DataType.DT_UINT32: np.uint32,
    DataType.DT_UINT64: np.uint64, DataType.DT_BOOL: np.bool_, DataType.DT_DOUBLE: np.float64,
}


@cache
def _narrow() -> dict[DataType, type]:
    import ml_dtypes
    return {
        DataType.DT_BF16: ml_dtypes.bfloat16, DataType.DT_INT4: ml_dtypes.int4,
        DataType.DT_UINT4: ml_dtypes.uint4, DataType.DT_INT2: ml_dtypes.int2,
        DataType.DT_UINT2: ml_dtypes.uint2, DataType.DT_FLOAT8_E5M2: ml_dtypes.float8_e5m2,
        DataType.DT_FLOAT8_E4M3FN: ml_dtypes.float8_e4m3fn,
        DataType.DT_FLOAT8_E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
        DataType.DT_FLOAT8_E5M2FNUZ: ml_dtypes.float8_e5m2fnuz,
        DataType.DT_FLOAT8_E8M0: ml_dtypes.float8_e8m0fnu,
        DataType.DT_FLOAT4_E2M1: ml_dtypes.float4_e2m1fn,
    }


_SHORT = {
    DataType.DT_UNDEFINED: "?", DataType.DT_FLOAT: "f32", DataType.DT_FLOAT16: "f16",
    DataType.DT_INT8: "i8", DataType.DT_UINT8: "u8", DataType.DT_INT16: "i16",
    DataType.DT_UINT16: "u16", DataType.DT_INT32: "i32", DataType.DT_INT64: "i64",
    DataType.DT_UINT32: "u32", DataType.DT_UINT64: "u64", DataType.DT_BOOL: "bool",
    DataType.DT_DOUBLE: "f64", DataType.DT_STRING: "str", DataType.DT_BF16: "bf16",
    DataType.DT_VARIANT: "variant", DataType.DT_INT4: "i4", DataType.DT_UINT4: "u4",
    DataType.DT_INT2: "i2", DataType.DT_UINT2: "u2", DataType.DT_FLOAT8_E5M2: "f8e5m2",
    DataType.DT_FLOAT8_E4M3FN: "f8e4m3fn", DataType.DT_FLOAT8_E4M3FNUZ: "f8e4m3fnuz",
    DataType.DT_FLOAT8_E5M2FNUZ: "f8e5m2fnuz", DataType.DT_FLOAT8_E8M0: "f8e8m0",
    DataType.DT_FLOAT4_E2M1: "f4e2m1",
}


class Format(IntEnum):
    FORMAT_NCHW = 0
    FORMAT_NHWC = 1
    FORMAT_ND = 2
    FORMAT_NC1HWC0 = 3
    FORMAT_FRACTAL_Z = 4
    FORMAT_NCDHW = 30
