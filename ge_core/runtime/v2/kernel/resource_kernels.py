"""Init and DeInit kernels: what every execution shares - streams, events, notifies, the tensor
allocator, weights - made once at load and released at unload. Each reads the executor's own
stream (value ``stream0``) to find its context and device."""
from __future__ import annotations

import numpy as np

from ge_core.runtime.model_memory import host_to_device
from ge_core.runtime.v2.caching_mem_allocator import CachingMemAllocator
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel
from npu_emu.core.kernel_task import tensor_arg


@register_kernel("CreateStream")
def create_stream(ctx: KernelContext) -> None:
    # In the executor's own stream's context, so DestroyStream finds it there.
    ctx.values[ctx.outs[0]] = ctx.values[ctx.ins[0]].context.create_stream()


@register_kernel("DestroyStream")
def destroy_stream(ctx: KernelContext) -> None:
    stream = ctx.values[ctx.ins[0]]
    stream.context.destroy_stream(stream)


@register_kernel("CreateEvent")
def create_event(ctx: KernelContext) -> None:
    ctx.values[ctx.outs[0]] = ctx.values[ctx.ins[0]].device.create_event()


@register_kernel("DestroyEvent")
def destroy_event(ctx: KernelContext) -> None:
    ctx.values[ctx.ins[0]].destroyed = True   # aclrtDestroyEvent: the handle is dead


@register_kernel("CreateNotify")
def create_notify(ctx: KernelContext) -> None:
    ctx.values[ctx.outs[0]] = ctx.values[ctx.ins[0]].device.create_notify("v2")


@register_kernel("CreateL1Allocator")
def create_allocator(ctx: KernelContext) -> None:
    ctx.values[ctx.outs[0]] = CachingMemAllocator(ctx.values[ctx.ins[0]].device)


@register_kernel("ReleaseAllocator")
def release_allocator(ctx: KernelContext) -> None:
    ctx.values[ctx.ins[0]].release()


@register_kernel("SinkWeightData")
def upload_weight(ctx: KernelContext) -> None:
    """A Const's value, copied to its own device block for the executor's lifetime."""
    device = ctx.values[ctx.ins[0]].device
    data: np.ndarray = ctx.attrs["value"]
    addr = device.malloc(max(data.nbytes, 1))
    if data.nbytes:
        host_to_device(device, addr, data)
    ctx.values[ctx.outs[0]] = tensor_arg(addr, data.shape, data.dtype)


@register_kernel("FreeWeight")
def free_weight(ctx: KernelContext) -> None:
    ctx.values[ctx.ins[0]].device.free(ctx.values[ctx.ins[1]].addr)
