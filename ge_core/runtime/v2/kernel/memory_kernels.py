"""Main's memory kernels: a tensor's block from the executor's allocator (AllocMemory), back to
it after its last user (FreeMemory), and a view sharing an existing block (RefTensor, for the
GE-local ops that only reinterpret their input: Reshape, Flatten, Squeeze ...)."""
from __future__ import annotations

from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, register_kernel
from npu_emu.core.kernel_task import TensorArg


@register_kernel("AllocMemory")
def alloc_memory(ctx: KernelContext) -> None:
    v = ctx.values
    spec = v[ctx.ins[1]]
    addr = v[ctx.ins[0]].alloc(spec.nbytes, ctx.attrs["stream"])
    v[ctx.outs[0]] = TensorArg(addr, spec.shape, spec.dtype)


@register_kernel("FreeMemory")
def free_memory(ctx: KernelContext) -> None:
    v = ctx.values
    v[ctx.ins[0]].free(v[ctx.ins[1]].addr, ctx.attrs["stream"])


@register_kernel("RefTensor")
def ref_tensor(ctx: KernelContext) -> None:
    v = ctx.values
    spec = v[ctx.ins[1]]
    v[ctx.outs[0]] = TensorArg(v[ctx.ins[0]].addr, spec.shape, spec.dtype)
