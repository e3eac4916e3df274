"""``acl.util``: host pointers for numpy arrays and bytes. A pointer is an address the
emulated runtime hands out (never the process's own), so copies through it are checked.
pyACL documents no return code here: a failed call returns 0 for a pointer and None for an
object, and says why in acl.get_recent_err_msg()."""
from __future__ import annotations

import numpy as np

from npu_emu.acl._call import acl_value, rt
from npu_emu.acl.c_types import ArgumentError, Bytes, NDArray, Opaque, Ptr, Shape, Size
from npu_emu.acl.constants import (NPY_BOOL, NPY_FLOAT16, NPY_FLOAT32, NPY_FLOAT64, NPY_INT8,
                                   NPY_INT16, NPY_INT32, NPY_INT64, NPY_UINT8, NPY_UINT16,
                                   NPY_UINT32, NPY_UINT64)

_NPY = {NPY_BOOL: np.bool_, NPY_INT8: np.int8, NPY_UINT8: np.uint8, NPY_INT16: np.int16,
        NPY_UINT16: np.uint16, NPY_INT32: np.int32, NPY_UINT32: np.uint32, NPY_INT64: np.int64,
        NPY_UINT64: np.uint64, NPY_FLOAT32: np.float32, NPY_FLOAT64: np.float64,
        NPY_FLOAT16: np.float16}


@acl_value(0)
def numpy_to_ptr(array: NDArray) -> int:
    """The host pointer of ``array``'s buffer (shared: the device reads and writes it)."""
    return rt().host.register(array)


@acl_value(None)
def ptr_to_numpy(ptr: Ptr, shape: Shape, npy_type: Opaque) -> np.ndarray:
    """A numpy view of host memory; ``npy_type`` is a NPY type number or a numpy dtype."""
    try:
        dtype = np.dtype(_NPY.get(npy_type) if isinstance(npy_type, int) else npy_type)
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or dtype.kind not in "biufc":
        raise ArgumentError(f"acl.util.ptr_to_numpy: {npy_type!r} is not a numeric NPY type")
    return rt().host.view(ptr, shape, dtype)


@acl_value(0)
def bytes_to_ptr(data: Bytes) -> int:
    """A host buffer holding a copy of ``data`` (bytes are immutable; arrays are shared)."""
    return rt().host.register(np.frombuffer(data, dtype=np.uint8).copy())


@acl_value(None)
def ptr_to_bytes(ptr: Ptr, size: Size) -> bytes:
    return rt().host.bytes_view(ptr, size).tobytes()
