"""Main's kernels of the host CPU engine: a node run on host values (HostCpuKernel), and the two
copies where host and device values meet (MakeSureTensorAtDevice, CopyD2H)."""
from __future__ import annotations

import numpy as np

from ge_core.runtime.model_memory import device_to_host, host_to_device
from ge_core.runtime.v2.caching_mem_allocator import HOST
from ge_core.runtime.v2.execute_graph import ExecuteGraphError
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel
from npu_emu.kernel import tensor_arg


@register_kernel("HostCpuKernel")
def host_cpu_kernel(ctx: KernelContext) -> None:
    v, a = ctx.values, ctx.attrs
    outs = a["executor"].run_node(a["node"], [v[i] for i in ctx.ins])
    if len(outs) < len(ctx.outs):
        raise ExecuteGraphError(f"{ctx.name}: {len(outs)} outputs, the node has {len(ctx.outs)}")
    for out, value in zip(ctx.outs, outs):
        v[out] = value


@register_kernel("MakeSureTensorAtDevice")
def make_sure_tensor_at_device(ctx: KernelContext) -> None:
    """A host array into a fresh device block, written by the host now (an idle block)."""
    v = ctx.values
    allocator, array = v[ctx.ins[0]], np.ascontiguousarray(v[ctx.ins[1]])
    addr = allocator.alloc(array.nbytes, HOST)
    if array.nbytes:
        host_to_device(allocator.device, addr, array)
    v[ctx.outs[0]] = tensor_arg(addr, array.shape, array.dtype)


@register_kernel("CopyD2H")
def copy_d2h(ctx: KernelContext) -> None:
    """A device tensor read back once its stream has produced it."""
    v = ctx.values
    stream = v[ctx.ins[0]]
    stream.synchronize()
    v[ctx.outs[0]] = device_to_host(stream.device, v[ctx.ins[1]])
