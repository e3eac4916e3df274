"""numpy op implementations, grouped by family; the executable spec of what each op computes.

Each family module registers its kernels with npu_emu/op_impl/registry.py; the lookups here
import every family on first use (the registry stays free of them, and importing the package
stays cheap until a kernel is needed). Families are registered before the first lookup caches
anything, so the cache never holds a stale answer.
"""
from __future__ import annotations

import functools

from npu_emu.op_impl.registry import (_KERNELS, KernelFn, UnknownKernelError, find_kernel,
                                      kernel)

__all__ = ["KernelFn", "UnknownKernelError", "find_kernel", "get_kernel", "has_kernel", "kernel",
           "known_ops"]


@functools.cache  # executors look a kernel up per node and run
def get_kernel(op_type: str, opset: int = 10_000) -> KernelFn:
    """The kernel for ``op_type`` as defined at ``opset`` (the newest version <= opset)."""
    _load_families()
    return find_kernel(op_type, opset)


def has_kernel(op_type: str) -> bool:
    _load_families()
    return op_type in _KERNELS


def known_ops() -> list[str]:
    _load_families()
    return sorted(_KERNELS)


# Once: an import statement costs microseconds even when the modules are loaded, and constant
# folding asks has_kernel of every node it may fold.
@functools.cache
def _load_families() -> None:
    # Importing the family modules runs their @kernel decorators.
    from npu_emu.op_impl import (activation, asc_backend, attention, bitwise, cast, control_flow,
                                 conv_variants, cumulative, elementwise, fused, hccl, image,
                                 indexing, linalg,
                                 loss, matrix, ml, multi_batch, nn, normalization, quant, random,
                                 reduce, rnn, sequence, signal, string, tensor, training)  # noqa: F401
