"""Operands a kernel derives from a constant input, kept so later calls skip the derivation.

Winograd's transformed weights U = G g G^T are the case: a per-call transform is a third of a
small conv's time. BatchNormalization's scale and shift, derived from four parameters, another. GE does the same at build time (weights are converted to the cube's format
once, by constant folding); the host executor runs the unoptimised graph, so the kernel keeps
what it derived, and only from arrays that cannot change under it.

An array is immutable here when its buffer chain ends in a ``bytes`` object: the Const tensors
the parser loads from ONNX initializers are such views. Anything writable (device memory, a
tensor the debugger may edit, a test's array) is derived again on every call, so a kernel stays
a pure function of its inputs.
"""
from __future__ import annotations

import weakref
from typing import Callable

import numpy as np

Source = np.ndarray | tuple[np.ndarray, ...]

# (id of the source array, or the ids of its arrays, what was derived) -> (weak references to
# the source arrays, the result). An entry goes when one of its sources is freed, before the id
# can be reused.
_CACHE: dict[tuple[object, str], tuple[tuple[weakref.ref, ...], np.ndarray]] = {}
_BUDGET = 512 << 20  # bytes of derived arrays kept at most (VGG-19's U would be 136 MB)
_held = 0


def immutable(a: np.ndarray) -> bool:
    base = a
    while isinstance(base, np.ndarray):
        if base.flags.writeable:
            return False
        base = base.base
    return isinstance(base, bytes)


def prepared(a: Source, what: str, derive: Callable[[Source], np.ndarray]) -> np.ndarray:
    """``derive(a)``, computed once per immutable ``a`` (an array, or a tuple of arrays all
    immutable; the result read-only), else every call."""
    arrays = a if isinstance(a, tuple) else (a,)
    if not all(immutable(x) for x in arrays):
        return derive(a)
    key = (tuple(map(id, arrays)) if isinstance(a, tuple) else id(a), what)
    hit = _CACHE.get(key)
    if hit is not None and all(ref() is x for ref, x in zip(hit[0], arrays)):
        return hit[1]
    value = derive(a)
    if _held + value.nbytes <= _BUDGET:
        value.flags.writeable = False
        _keep(key, arrays, value)
    return value


def _keep(key: tuple[object, str], arrays: tuple[np.ndarray, ...], value: np.ndarray) -> None:
    global _held

    def forget(_: weakref.ref) -> None:
        global _held
        if _CACHE.pop(key, None) is not None:
            _held -= value.nbytes

    _CACHE[key] = (tuple(weakref.ref(x, forget) for x in arrays), value)
    _held += value.nbytes
