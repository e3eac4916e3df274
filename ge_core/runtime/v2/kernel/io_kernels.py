"""Main's first and last kernels: a fed host array into a device tensor (CopyH2D, GE's
CopyModelData when the input is not zero-copy) or, for strings, checked where it is
(CheckHostInput); a device tensor back into a host array after the streams are synchronized
(CopyOutput)."""
from __future__ import annotations

import numpy as np

from ge_core.runtime.model_io import check_feed
from ge_core.runtime.model_memory import device_to_host, host_to_device
from ge_core.runtime.v2.caching_mem_allocator import HOST, CachingMemAllocator
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel
from npu_emu.core.kernel_task import TensorArg, tensor_arg


def upload(allocator: CachingMemAllocator, array: np.ndarray) -> TensorArg:
    """A host array into a fresh device block: the host writes it now, so an idle block."""
    addr = allocator.alloc(array.nbytes, HOST)
    if array.nbytes:
        host_to_device(allocator.device, addr, array)
    return tensor_arg(addr, array.shape, array.dtype)


@register_kernel("CopyH2D")
def copy_input(ctx: KernelContext) -> None:
    v, a = ctx.values, ctx.attrs
    array = check_feed(a["name"], v[ctx.ins[1]], a["dims"], a["dtype"])
    v[ctx.outs[0]] = upload(v[ctx.ins[0]], array)


@register_kernel("CheckHostInput")
def check_host_input(ctx: KernelContext) -> None:
    """A string input: host memory holds it, so nothing is copied, but it is checked as every
    feed is."""
    v, a = ctx.values, ctx.attrs
    v[ctx.outs[0]] = check_feed(a["name"], v[ctx.ins[0]], a["dims"], "object")


@register_kernel("CopyOutput")
def copy_output(ctx: KernelContext) -> None:
    v = ctx.values
    v[ctx.outs[0]] = device_to_host(v[ctx.ins[0]].device, v[ctx.ins[1]])
