"""Main's kernels of the host CPU engine: a node run on host values (HostCpuKernel), and the two
copies where host and device values meet (MakeSureTensorAtDevice, CopyD2H)."""
from __future__ import annotations

import numpy as np

from ge_core.runtime.model_memory import device_to_host
from ge_core.runtime.v2.execute_graph import ExecuteGraphError
from ge_core.runtime.v2.kernel.io_kernels import upload
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel


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
    """A host CPU op's result into a device block, for a device kernel to read."""
    v = ctx.values
    # (np.ascontiguousarray would make a scalar, a Loop's iteration number, 1-d)
    v[ctx.outs[0]] = upload(v[ctx.ins[0]], np.asarray(v[ctx.ins[1]], order="C"))


@register_kernel("CopyD2H")
def copy_d2h(ctx: KernelContext) -> None:
    """A device tensor read back once its stream has produced it."""
    v = ctx.values
    stream = v[ctx.ins[0]]
    stream.synchronize()
    v[ctx.outs[0]] = device_to_host(stream.device, v[ctx.ins[1]])
