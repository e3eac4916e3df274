"""Cast and CastLike between any two ONNX element types, the narrow ones and strings included.

The narrow float and int types are ml_dtypes dtypes, so most casts are one ``astype``. ONNX adds
two things numpy lacks: ``saturate`` (19+), which clamps what a float8 cannot hold to its
largest finite value instead of overflowing to inf or NaN, and float8e8m0's ``round_mode``
(24+), whose power-of-two rounding onnx's own helper implements. Numbers become strings as
onnxruntime writes them (the shortest digits that read back the same; "NaN", "INF"; a bool 1/0).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from npu_emu.op_impl.elementwise import one_output

_SATURATING = frozenset({TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ,
                         TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ})


_NOT_FINITE = {"nan": "NaN", "inf": "INF", "-inf": "-INF"}


def _float_text(digits: str) -> str:
    # numpy's shortest round-trip digits, as onnxruntime writes them: "2" not "2.0", "NaN".
    return _NOT_FINITE.get(digits, digits[:-2] if digits.endswith(".0") else digits)


_float_texts = np.frompyfunc(_float_text, 1, 1)


def _to_strings(x: np.ndarray) -> np.ndarray:
    # a ufunc of a 0-d array answers a bare str: made an array again
    if x.dtype.kind in "fV" and x.dtype != np.float64:  # float16, the narrow floats: as float32
        return np.asarray(_float_texts(x.astype(np.float32).astype(str)), dtype=object)
    if x.dtype == np.float64:
        return np.asarray(_float_texts(x.astype(str)), dtype=object)
    return (x.astype(np.int8) if x.dtype == np.bool_ else x).astype(str).astype(object)


def element_dtype(code: int, attr: str) -> np.dtype:
    """The numpy dtype of ONNX element type ``code``, which attribute ``attr`` names; a
    ValueError in the parser's words where it names none (onnx's helper raised KeyError: 0, which
    read as a bare "0")."""
    try:
        return np.dtype(helper.tensor_dtype_to_np_dtype(code))
    except (KeyError, ValueError):
        name = TensorProto.DataType.Name(code) if code in TensorProto.DataType.values() \
            else f"{code} (no such ONNX type)"
        raise ValueError(f"attribute '{attr}' is {name}, no tensor element type") from None


def cast_to(x: np.ndarray, to: int, saturate: bool = True, round_mode: str = "up") -> np.ndarray:
    """``x`` as ONNX element type ``to``."""
    if to == TensorProto.STRING:
        return x if x.dtype == object else _to_strings(x)
    if to == TensorProto.FLOAT8E8M0:
        return numpy_helper.to_float8e8m0(x, bool(saturate), round_mode)
    dtype = element_dtype(to, "to")
    if x.dtype == object:  # strings parse as Python numbers first ("1e3" -> 1000.0)
        x = x.astype(np.float64 if dtype.kind == "f" or dtype.itemsize < 8 else dtype)
    if to in _SATURATING and saturate:
        info = ml_dtypes.finfo(dtype)
        x = np.clip(x, info.min, info.max)
    return x.astype(dtype)


@one_output("Cast")
def cast(x: np.ndarray, *, to: int | str, saturate: int = 1, round_mode: str = "up") -> np.ndarray:
    if isinstance(to, str):  # opset 1 named the type ("FLOAT")
        to = TensorProto.DataType.Value(to)
    return cast_to(x, to, bool(saturate), round_mode)


@one_output("CastLike")
def cast_like(x: np.ndarray, target_type: np.ndarray, *, saturate: int = 1,
              round_mode: str = "up") -> np.ndarray:
    # ONNX's function bodies (Selu, Elu, ... expanded) use it to type their constants.
    return cast_to(x, helper.np_dtype_to_tensor_dtype(target_type.dtype), bool(saturate),
                   round_mode)
