"""Broadcasting ufuncs run row by row where numpy would buffer.

numpy buffers an operand that repeats along the inner axes (a per-channel scale against an
(N, C, H, W) map) whenever those rows are shorter than its ufunc buffer (8192 elements): it
copies the repeated value out across every row first, which doubles the op on ResNet's 56x56
maps. With a buffer no longer than a row, numpy loops row by row instead, at the speed of a
plain elementwise op. Rows under 256 elements (7x7 and 14x14 maps) are faster buffered.
``np.errstate`` scopes the buffer size (numpy >= 2), per thread.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable

import numpy as np

_BUFFER = 8192  # numpy's default ufunc buffer, in elements
_SHORTEST = 256


def row_by_row(row: int) -> contextlib.AbstractContextManager:
    """Ufuncs inside loop row by row over rows of ``row`` elements (where that is faster)."""
    if not _SHORTEST <= row < _BUFFER:
        return _UNCHANGED
    return _BufferSize(row - row % 16)


_UNCHANGED = contextlib.nullcontext()


class _BufferSize:
    """The buffer size for the block, then the one before (a conv's bias takes one: a
    generator-based context and an errstate cost it 4 us, this 1)."""
    __slots__ = ("size", "before")

    def __init__(self, size: int) -> None:
        self.size = size

    def __enter__(self) -> None:
        self.before = np.setbufsize(self.size)

    def __exit__(self, *exc: object) -> None:
        np.setbufsize(self.before)


def repeated_run(*operands: np.ndarray) -> int:
    """Elements per row over which some operand repeats one value: the product of the result's
    trailing dims along which an operand has size 1 or stride 0 (1 if the innermost has none)."""
    return _run(tuple((a.shape, a.strides) for a in map(np.asarray, operands)))


@functools.lru_cache(maxsize=1024)
def _run(layouts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]) -> int:
    """repeated_run by the operands' shapes and strides: a model asks it of the same layouts on
    every run (8 us a call worked out, a third of a 7x7 BatchNormalization's time)."""
    shape = layouts[0][0]
    if shape and shape[-1] > 1 and all(s == shape and st[-1] for s, st in layouts):
        return 1  # equal shapes, none repeating along the innermost axis (ShuffleNet's Sums)
    out = np.broadcast_shapes(*(s for s, _ in layouts))
    run = 1
    for axis in range(1, len(out) + 1):
        if out[-axis] == 1:
            continue
        if not any(len(s) < axis or s[-axis] == 1 or st[-axis] == 0 for s, st in layouts):
            break
        run *= out[-axis]
    return run


def call(fn: Callable[..., np.ndarray], a: np.ndarray, b: np.ndarray,
         **kwargs: object) -> np.ndarray:
    """``fn(a, b, **kwargs)``, row by row over the rows along which one operand repeats."""
    with row_by_row(repeated_run(a, b)):
        return fn(a, b, **kwargs)


def rowwise(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]
            ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``fn`` made to run as ``call`` runs it."""
    return functools.wraps(fn)(lambda a, b: call(fn, a, b))


def check_one_per(count: tuple[int, ...], of: str, **params: np.ndarray | None) -> None:
    """Each of ``params`` given is one value per ``of`` (of shape ``count``: a conv's bias, one
    per filter), else a ValueError naming them: numpy would stretch a single value over all,
    or fail in its own words."""
    given = [(name, p) for name, p in params.items() if p is not None]
    if any(p.shape != count for _, p in given):
        names = ", ".join(f"{name} {list(p.shape)}" for name, p in given)
        raise ValueError(f"{names} {'is' if len(given) == 1 else 'are'} not one value per {of} "
                         f"({list(count)})")


def check_onto(a: np.ndarray, shape: tuple[int, ...], name: str, onto: str) -> None:
    """``a`` broadcasts onto ``shape`` one way (ONNX's unidirectional broadcasting: a scale onto
    the tensor it scales), else a ValueError naming both: numpy would broadcast both ways, into a
    result larger than the op's output."""
    if len(a.shape) > len(shape) or any(d not in (1, s) for d, s in zip(a.shape[::-1],
                                                                          shape[::-1])):
        raise ValueError(f"{name} of shape {list(a.shape)} does not broadcast to {onto} "
                         f"{list(shape)}")
