"""The host's malloc, set once for tensor work (glibc only; elsewhere a no-op).

glibc serves blocks above a moving threshold with mmap and hands the heap's free top back to the
OS past another. A network's activations are megabytes allocated and freed node after node, and
with those defaults a small model's heap shrinks at the end of every inference and is faulted
back in by the next: SqueezeNet re-faulted 1,800 pages (7 MB) per run, a third of its time.
Fixed thresholds (blocks under 32 MB stay on the heap, which is trimmed only past 128 MB free)
do for the executors what onnxruntime's arena allocator does for it. A compile is tensor work
too (the folded weights, the fusions' new ones and the copies between): set, a process's repeat
compiles of Inception-v1 took 73 ms where they took 104 (12,400 pages faulted each, then 1,000),
ResNet-50's 178 where 227, SqueezeNet's 33 where 40; DenseNet's, whose packed weights outgrow
the 32 MB that the heap may serve, no less.
"""
from __future__ import annotations

import ctypes
import functools
import platform

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


@functools.cache
def tune() -> bool:
    """Set the thresholds, once per process; whether they took."""
    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
                and libc.mallopt(_M_TRIM_THRESHOLD, 128 << 20))
