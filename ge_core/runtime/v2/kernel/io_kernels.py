"""Main's first and last kernels: a fed host array into a device tensor (CopyInput, GE's
CopyModelData when the input is not zero-copy), a device tensor back into a host array after
the streams are synchronized (CopyOutput)."""
from __future__ import annotations

from ge_core.runtime.model_io import check_feed
from ge_core.runtime.model_memory import device_to_host, host_to_device
from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel
from npu_emu.kernel_task import tensor_arg


@register_kernel("CopyInput")
def copy_input(ctx: KernelContext) -> None:
    v, a = ctx.values, ctx.attrs
    allocator = v[ctx.ins[0]]
    array = check_feed(a["name"], v[ctx.ins[1]], a["dims"], a["dtype"])
    addr = allocator.alloc(array.nbytes, HOST)   # the host writes it now: an idle block
    if array.nbytes:
        host_to_device(allocator.device, addr, array)
    v[ctx.outs[0]] = tensor_arg(addr, array.shape, array.dtype)


@register_kernel("CopyOutput")
def copy_output(ctx: KernelContext) -> None:
    v = ctx.values
    v[ctx.outs[0]] = device_to_host(v[ctx.ins[0]].device, v[ctx.ins[1]])
