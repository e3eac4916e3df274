"""A tensor's dtype and shape as a user types them after a device address (`print tensor 0xADDR
...`): the way the IR prints a tensor desc (``f32[1,8,16,16]``, ``?`` for a dim not known) and the
other spellings a user meets (``float32``, ``DT_FLOAT``; ``[1, 10]``, ``1,10``, ``(1,10)``, ``10``).
A dim of ``?`` or ``-1`` is whatever fits in the rest of the allocation, as numpy's reshape does.
"""
from __future__ import annotations

import re
from functools import cache

import numpy as np

from ge_core.graph.types import DataType

INFERRED = -1
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_DIGITS = re.compile(r"[0-9]{1,18}")   # more would be larger than any device memory
_BRACKETS = re.compile(r"\[(.*)\]|\((.*)\)|(.*)", re.S)


class TensorSpecError(ValueError):
    """A dtype or shape that cannot be read: the message names it."""


@cache
def _dtype_names() -> dict[str, np.dtype]:
    """Every spelling of every GE data type that has a numpy dtype: the IR's (f32), GE's enum
    name (dt_float) and numpy's (float32, bfloat16). Built at the first typed dtype, not at
    import: the narrow types load ml_dtypes, which costs the app's first screen a second."""
    names: dict[str, np.dtype] = {}
    for dt in DataType:
        try:
            np_dtype = dt.to_numpy()
        except TypeError:   # a string or a variant: no bytes in device memory to read as it
            continue
        for name in (dt.short, dt.name, np_dtype.name):
            names.setdefault(name.lower(), np_dtype)
    return names


def dtype_named(text: str) -> np.dtype:
    names = _dtype_names()
    found = names.get(text.lower())
    if found is None:
        short = [dt.short for dt in DataType if dt.short.lower() in names]
        raise TensorSpecError(f"no dtype {text!r} (the IR's {', '.join(short)}; or "
                              f"numpy's float32 ..., or GE's DT_FLOAT ...)")
    return found


def _dim(text: str, shape: str) -> int:
    if text in ("?", "-1"):
        return INFERRED
    if not _DIGITS.fullmatch(text):
        raise TensorSpecError(f"shape {shape!r}: {text!r} is not a dim (a number, or ? for "
                              f"the rest of the allocation)")
    return int(text)


def shape_of(text: str) -> tuple[int, ...]:
    """``[1,10]``, ``[1, 10]``, ``(1,10)``, ``1,10``, ``10``; ``[]`` is a scalar."""
    inner = next(g for g in _BRACKETS.fullmatch(text.strip()).groups() if g is not None)
    parts = [p.strip() for p in inner.split(",")]
    if parts and parts[-1] == "" and len(parts) > 1:   # (4,)
        parts.pop()
    if parts == [""]:
        return ()
    dims = tuple(_dim(p, text) for p in parts)
    if dims.count(INFERRED) > 1:
        raise TensorSpecError(f"shape {text!r}: at most one dim can be ? (the rest of the "
                              f"allocation)")
    return dims


def parse_tensor_spec(words: list[str]) -> tuple[tuple[int, ...] | None, np.dtype | None]:
    """The shape and dtype in ``words``, in either order or run together (``f32[1,10]``); None
    for what is not given."""
    text = " ".join(words)
    names = _WORD.findall(text)
    if len(names) > 1:
        raise TensorSpecError(f"{text!r}: one dtype and one shape, not {' and '.join(names)}")
    dtype = dtype_named(names[0]) if names else None
    rest = _WORD.sub(" ", text).strip()
    return (shape_of(rest) if rest else None), dtype


def spec_text(shape: tuple[int, ...], dtype: np.dtype) -> str:
    """As the IR prints a desc: f32[1,10]."""
    return f"{DataType.from_numpy(dtype).short}[{','.join(map(str, shape))}]"
