"""The v2 runtime kernels an ExecuteGraph's nodes run, by family (importing a family registers
its kernels)."""
from ge_core.runtime.v2.kernel import (host_cpu_kernels, infer_shape_kernel,  # noqa: F401
                                       io_kernels, memory_kernels, resource_kernels,
                                       stream_kernels)
from ge_core.runtime.v2.kernel import summary_kernels  # noqa: F401
from ge_core.runtime.v2.kernel.kernel_registry import (KernelContext, KernelFunc,
                                                       get_kernel_func, register_kernel)

__all__ = ["KernelContext", "KernelFunc", "get_kernel_func", "register_kernel"]
