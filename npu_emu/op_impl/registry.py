"""The op implementations' registry: one kernel function per op (and per op version where the
semantics changed).

A kernel is called as ``fn(*inputs, **attrs)``. Inputs are numpy arrays, or ``None`` for an
optional input that is absent; attrs are plain Python values (int, float, str, lists of them, numpy
arrays for tensor attributes), absent ones left to the kernel's defaults. A kernel returns a tuple
of numpy arrays (one per output) and never writes into its inputs: on the device the same function
runs on views of device memory.

A kernel registered with ``writes_out`` also takes ``out=``, the device's output buffers (one per
output), and writes its result straight into each one that fits (see ``in_place``), returning that
very array; the device then has nothing to copy, as on a real NPU, where a kernel writes where its
args table points.

Lookups (``get_kernel``...) live in the package (npu_emu/op_impl/__init__.py), which imports the
family modules that register here: this module imports none of them, so no import cycle."""
from __future__ import annotations

import bisect
from typing import Callable

import numpy as np

KernelFn = Callable[..., tuple[np.ndarray, ...]]

# op type -> sorted [(since_version, fn)]: ONNX changed some ops' semantics between versions
# (Add's `broadcast` attr, Softmax's axis coercion, Reshape's shape attr -> input, ...).
_KERNELS: dict[str, list[tuple[int, KernelFn]]] = {}


class UnknownKernelError(KeyError):
    """No kernel for an op type (or none old enough for the requested opset)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def kernel(op_type: str, since: int = 1, *,
           writes_out: bool = False) -> Callable[[KernelFn], KernelFn]:
    """Register ``fn`` as the kernel of ``op_type`` from opset version ``since`` on."""

    def register(fn: KernelFn) -> KernelFn:
        fn.writes_out = writes_out  # type: ignore[attr-defined]
        versions = _KERNELS.setdefault(op_type, [])
        if any(v == since for v, _ in versions):
            raise ValueError(f"kernel {op_type} since {since} registered twice")
        bisect.insort(versions, (since, fn), key=lambda vf: vf[0])
        return fn

    return register


def find_kernel(op_type: str, opset: int = 10_000) -> KernelFn:
    """The registered kernel for ``op_type`` at ``opset`` (the newest version <= opset), among
    the families imported so far (``npu_emu.op_impl.get_kernel`` imports them all first)."""
    versions = _KERNELS.get(op_type)
    if not versions:
        raise UnknownKernelError(
            f"no kernel for op type {op_type!r}; known: {', '.join(sorted(_KERNELS))}")
    i = bisect.bisect_right([v for v, _ in versions], opset)
    if i == 0:
        raise UnknownKernelError(
            f"no kernel for {op_type} at opset {opset} (oldest is {versions[0][0]})")
    return versions[i - 1][1]
