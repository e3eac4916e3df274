"""Main's first and last kernels: a fed host array into a device tensor (CopyInput, GE's
CopyModelData when the input is not zero-copy), a device tensor back into a host array after
the streams are synchronized (CopyOutput)."""
from __future__ import annotations

import numpy as np

from ge_core.runtime.errors import ModelInputError
from ge_core.runtime.model_memory import device_to_host, host_to_device
from ge_core.runtime.v2.caching_mem_allocator import HOST, CachingMemAllocator
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel
from npu_emu.kernel_task import TensorArg, tensor_arg


def check_feed(name: str, feed: object, dims: tuple[int, ...] | None,
               dtype: str) -> np.ndarray:
    """The feed as a contiguous array, if it fits the model's input (-1: any size)."""
    array = np.asarray(feed, order="C")   # (ascontiguousarray would make a scalar 1-d)
    if array.dtype != np.dtype(dtype):
        raise ModelInputError(f"input {name}: dtype {array.dtype}, the model takes {dtype}")
    if dims is not None and (len(dims) != array.ndim or
                             any(d >= 0 and d != n for d, n in zip(dims, array.shape))):
        raise ModelInputError(f"input {name}: shape {list(array.shape)}, the model takes "
                              f"{['?' if d < 0 else d for d in dims]}")
    return array


def upload(allocator: CachingMemAllocator, array: np.ndarray) -> TensorArg:
    """A host array into a fresh device block: the host writes it now, so an idle block."""
    addr = allocator.alloc(array.nbytes, HOST)
    if array.nbytes:
        host_to_device(allocator.device, addr, array)
    return tensor_arg(addr, array.shape, array.dtype)


@register_kernel("CopyInput")
def copy_input(ctx: KernelContext) -> None:
    v, a = ctx.values, ctx.attrs
    array = check_feed(a["name"], v[ctx.ins[1]], a["dims"], a["dtype"])
    v[ctx.outs[0]] = upload(v[ctx.ins[0]], array)


@register_kernel("CopyOutput")
def copy_output(ctx: KernelContext) -> None:
    v = ctx.values
    v[ctx.outs[0]] = device_to_host(v[ctx.ins[0]].device, v[ctx.ins[1]])
