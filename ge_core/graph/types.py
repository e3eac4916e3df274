"""Data types and formats, numbered as GE's ge_ir.proto / graph types (ge_facts.md section 5)."""
from __future__ import annotations

from enum import IntEnum

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
    DT_BF16 = 27

    @property
    def short(self) -> str:
        return _SHORT[self]

    def to_numpy(self) -> np.dtype:
        if self not in _TO_NP:
            raise TypeError(f"{self.name} has no numpy dtype")
        return np.dtype(_TO_NP[self])

    @staticmethod
    def from_numpy(dtype: np.dtype | type) -> "DataType":
        dt = np.dtype(dtype)
        for k, v in _TO_NP.items():
            if np.dtype(v) == dt:
                return k
        if dt.kind in "OUS":
            return DataType.DT_STRING
        raise TypeError(f"numpy dtype {dt} has no GE data type")


_TO_NP = {
    DataType.DT_FLOAT: np.float32, DataType.DT_FLOAT16: np.float16, DataType.DT_INT8: np.int8,
    DataType.DT_UINT8: np.uint8, DataType.DT_INT16: np.int16, DataType.DT_UINT16: np.uint16,
    DataType.DT_INT32: np.int32, DataType.DT_INT64: np.int64, DataType.DT_UINT32: np.uint32,
    DataType.DT_UINT64: np.uint64, DataType.DT_BOOL: np.bool_, DataType.DT_DOUBLE: np.float64,
}
_SHORT = {
    DataType.DT_UNDEFINED: "?", DataType.DT_FLOAT: "f32", DataType.DT_FLOAT16: "f16",
    DataType.DT_INT8: "i8", DataType.DT_UINT8: "u8", DataType.DT_INT16: "i16",
    DataType.DT_UINT16: "u16", DataType.DT_INT32: "i32", DataType.DT_INT64: "i64",
    DataType.DT_UINT32: "u32", DataType.DT_UINT64: "u64", DataType.DT_BOOL: "bool",
    DataType.DT_DOUBLE: "f64", DataType.DT_STRING: "str", DataType.DT_BF16: "bf16",
}


class Format(IntEnum):
    FORMAT_NCHW = 0
    FORMAT_NHWC = 1
    FORMAT_ND = 2
    FORMAT_NC1HWC0 = 3
    FORMAT_FRACTAL_Z = 4
    FORMAT_NCDHW = 30
