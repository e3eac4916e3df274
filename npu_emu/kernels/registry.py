"""Kernel registry: one function per op (and per op version where the semantics changed).

A kernel is called as ``fn(*inputs, **attrs)``. Inputs are numpy arrays, or ``None`` for an
optional input that is absent; attrs are plain Python values (int, float, str, lists of them,
numpy arrays for tensor attributes), absent ones left to the kernel's defaults. A kernel returns
a tuple of numpy arrays (one per output) and never writes into its inputs: on the device the same
function runs on views of device memory.

A kernel registered with ``writes_out`` also takes ``out=``, the device's output buffers (one
per output), and writes its result straight into each one that fits (see ``in_place``),
returning that very array; the device then has nothing to copy, as on a real NPU, where a
kernel writes where its args table points.
"""
from __future__ import annotations

import bisect
import functools
from typing import Callable

import numpy as np

Kernel = Callable[..., tuple[np.ndarray, ...]]

# op type -> sorted [(since_version, fn)]: ONNX changed some ops' semantics between versions
# (Add's `broadcast` attr, Softmax's axis coercion, Reshape's shape attr -> input, ...).
_KERNELS: dict[str, list[tuple[int, Kernel]]] = {}


class UnknownKernelError(KeyError):
    """No kernel for an op type (or none old enough for the requested opset)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def kernel(op_type: str, since: int = 1, *,
           writes_out: bool = False) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the kernel of ``op_type`` from opset version ``since`` on."""

    def register(fn: Kernel) -> Kernel:
        fn.writes_out = writes_out  # type: ignore[attr-defined]
        versions = _KERNELS.setdefault(op_type, [])
        if any(v == since for v, _ in versions):
            raise ValueError(f"kernel {op_type} since {since} registered twice")
        bisect.insort(versions, (since, fn), key=lambda vf: vf[0])
        get_kernel.cache_clear()
        return fn

    return register


@functools.cache  # executors look a kernel up per node and run
def get_kernel(op_type: str, opset: int = 10_000) -> Kernel:
    """The kernel for ``op_type`` as defined at ``opset`` (the newest version <= opset)."""
    _load_families()
    versions = _KERNELS.get(op_type)
    if not versions:
        raise UnknownKernelError(
            f"no kernel for op type {op_type!r}; known: {', '.join(known_ops())}")
    i = bisect.bisect_right([v for v, _ in versions], opset)
    if i == 0:
        raise UnknownKernelError(
            f"no kernel for {op_type} at opset {opset} (oldest is {versions[0][0]})")
    return versions[i - 1][1]


def has_kernel(op_type: str) -> bool:
    _load_families()
    return op_type in _KERNELS


def known_ops() -> list[str]:
    _load_families()
    return sorted(_KERNELS)


def _load_families() -> None:
    # Importing the family modules runs their @kernel decorators.
    from npu_emu.kernels import elementwise, linalg, nn, reduce, tensor  # noqa: F401
    from npu_emu.kernels import asc_backend, control_flow, fused, hccl, multi_batch  # noqa: F401
    from npu_emu.kernels import cast  # noqa: F401
    from npu_emu.kernels import ml  # noqa: F401
    from npu_emu.kernels import attention, quant, rnn, sequence, string, training  # noqa: F401
    from npu_emu.kernels import (activation, bitwise, conv_variants, cumulative,  # noqa: F401
                                 image, indexing, loss, matrix, normalization, random,
                                 signal)
