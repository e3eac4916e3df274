"""IR attribute values <-> AttrDef (GE's oneof: s, i, f, b, t, list ...).

Our attributes are plain Python values (the parser's and the passes'): bool, int, float, str,
GeTensor, a bare numpy array, or a list of one of those. ``f`` is a 32-bit float in GE's schema;
ONNX attribute floats are 32-bit too, so they come back exactly.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ge_core.graph import GeTensor
from ge_core.om.proto import ge_ir_pb2 as pb
from ge_core.om.tensor_serializer import SerializeError, tensor_def, tensor_value, utf8

_LV = pb.AttrDef.ListValue

# A list's element kind -> (ListValue field, its val_type, element encoder, element decoder).
# bool before int: a bool is an int to isinstance.
_LIST_KINDS: tuple[tuple[type | tuple[type, ...], str, int, Callable, Callable], ...] = (
    (bool, "b", _LV.VT_LIST_BOOL, bool, bool),
    (int, "i", _LV.VT_LIST_INT, int, int),
    (float, "f", _LV.VT_LIST_FLOAT, float, float),
    (str, "s", _LV.VT_LIST_STRING, str.encode, utf8),
    ((GeTensor, np.ndarray), "t", _LV.VT_LIST_TENSOR, tensor_def, tensor_value),
)
_LIST_BY_TYPE = {val_type: (name, decode) for _, name, val_type, _, decode in _LIST_KINDS}


def attr_def(value: Any, into: pb.AttrDef | None = None) -> pb.AttrDef:
    """``into``: a fresh AttrDef to fill (a map entry: no copy of a new one into the map)."""
    attr = pb.AttrDef() if into is None else into
    if isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        attr.i = value
    elif isinstance(value, float):
        attr.f = value
    elif isinstance(value, str):
        attr.s = value.encode()
    elif isinstance(value, (GeTensor, np.ndarray)):
        attr.t.CopyFrom(tensor_def(value))
    elif isinstance(value, (list, tuple)):
        _list_value(list(value), into=attr.list)
    else:
        raise SerializeError(f"attribute value of type {type(value).__name__} is not supported")
    return attr


def _list_value(items: list, into: pb.AttrDef.ListValue | None = None) -> pb.AttrDef.ListValue:
    """``into``: an AttrDef's own list to fill (no copy of a new one into it)."""
    lv = _LV() if into is None else into
    if not items:
        lv.val_type = _LV.VT_LIST_NONE
        return lv
    for kind, name, val_type, encode, _ in _LIST_KINDS:
        # An exact kind check per element, so [1, True] or [1, 2.5] is refused, not coerced.
        if all(isinstance(v, kind) and (kind is bool or not isinstance(v, bool)) for v in items):
            getattr(lv, name).extend(encode(v) for v in items)
            lv.val_type = val_type
            return lv
    kinds = sorted({type(v).__name__ for v in items})
    raise SerializeError(f"a list of {'/'.join(kinds)} is not supported")


def attr_value(attr: pb.AttrDef, weights: bytes | None = None) -> Any:
    """The inverse of attr_def; a detached weight's data comes from ``weights``."""
    kind = attr.WhichOneof("value")
    if kind in ("b", "i", "f"):
        return getattr(attr, kind)
    if kind == "s":
        return utf8(attr.s)
    if kind == "t":
        return tensor_value(attr.t, weights)
    if kind == "list":
        if attr.list.val_type == _LV.VT_LIST_NONE:
            return []
        if attr.list.val_type not in _LIST_BY_TYPE:
            raise SerializeError(f"list AttrDef of val_type {attr.list.val_type} is not supported")
        name, decode = _LIST_BY_TYPE[attr.list.val_type]
        return [decode(v) for v in getattr(attr.list, name)]
    raise SerializeError(f"AttrDef holding {kind or 'nothing'} is not supported")
