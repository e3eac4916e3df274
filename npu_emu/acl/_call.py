"""How the facade turns the object API's typed exceptions into pyACL's return codes.

Every facade API goes through one wrapper, which first converts each argument to its
parameter's C type (the annotations, npu_emu/acl/c_types.py): a Python value that cannot be that
type is ACL_ERROR_INVALID_PARAM, whichever API it was handed to. Then the API runs, and an
AclError it raises becomes its code. The device is never touched by a refused call, so it stays
usable after any failure.
"""
from __future__ import annotations

import functools
import inspect
import threading
import typing
from typing import Any, Callable

from npu_emu.acl.call_events import AclCallFailed, AclCallMade, code_name
from npu_emu.acl.c_types import ArgumentError, CType
from npu_emu.base.errors import NORMAL_FINISH_CODES, AclError
from npu_emu.world import current_bus, current_runtime

_last_error = [""]


class _Nesting(threading.local):
    """Facade calls the facade makes itself (acl.mdl over acl.rt) are not the program's; per
    thread, since a parked run's worker sits inside a call while a side run makes its own."""
    depth = 0


_nesting = _Nesting()


class _Parameters:
    """An API's parameters and the C type of each, read from its annotations."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)
        self.types: dict[str, CType] = {}
        for name in self.signature.parameters:
            ctype = next((m for m in getattr(hints.get(name), "__metadata__", ())
                          if isinstance(m, CType)), None)
            if ctype is None:
                raise TypeError(f"{fn.__qualname__}: parameter {name!r} has no C type")
            self.types[name] = ctype
        self.api = api_name(fn)

    def convert(self, args: tuple, kwargs: dict) -> inspect.BoundArguments:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentError(f"{self.api}: {exc}") from None
        for name, value in bound.arguments.items():
            ctype = self.types[name]
            try:
                bound.arguments[name] = ctype.convert(value)
            except ArgumentError as exc:
                raise ArgumentError(f"{self.api}: {name}={_short(value)} is not {ctype.name}: "
                                    f"{exc}") from None
        return bound


def api_name(fn: Callable[..., Any]) -> str:
    """``acl.rt.create_stream``: the name a program calls it by."""
    module = fn.__module__.removeprefix("npu_emu.")
    module = _SHOWN_AS.get(module, module)
    return f"{module}.{fn.__name__}"


# Facade modules whose APIs a program reaches under another name (acl.rt's features are set
# on acl.rt; the data buffer calls are acl's own).
_SHOWN_AS = {"acl.rt_features": "acl.rt", "acl.data_buffer": "acl"}


def _traced(value: Any) -> str:
    """An argument as a trace event keeps it: plain values as written, anything else (a
    callback, an array) by its type, whose repr would carry an address or megabytes."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return _short(value)
    if isinstance(value, (tuple, list)) and len(value) <= 8 \
            and all(v is None or isinstance(v, (bool, int, float, str)) for v in value):
        return _short(value)
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _api(on_error: Callable[[AclError], Any],
         value_only: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        params: list[_Parameters] = []   # read on first call: annotations may name later types

        api = api_name(fn)
        names = list(inspect.signature(fn).parameters)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            bus = current_bus() if _nesting.depth == 0 else None
            if bus is not None and bus.observed:
                bus.emit(AclCallMade, api, _arguments(names, args, kwargs))
            _nesting.depth += 1
            try:
                if not params:
                    params.append(_Parameters(fn))
                bound = params[0].convert(args, kwargs)
                return fn(*bound.args, **bound.kwargs)
            except AclError as exc:
                _last_error[0] = str(exc)
                if bus is not None and exc.code not in NORMAL_FINISH_CODES:
                    bus.emit(AclCallFailed, api, code_name(exc.code), exc.code, str(exc))
                return on_error(exc)
            finally:
                _nesting.depth -= 1
        call.value_only = value_only   # type: ignore[attr-defined]
        return call

    return wrap


def _arguments(names: list[str], args: tuple, kwargs: dict) -> str:
    shown = [f"{names[i] if i < len(names) else '?'}={_traced(v)}" for i, v in enumerate(args)]
    return ", ".join(shown + [f"{k}={_traced(v)}" for k, v in kwargs.items()])


def acl_call(values: int = 0) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An API returning ``ret``, or ``(*values, ret)``: success returns what the function
    returns; an error returns its code in the same shape, with None for each value."""
    return _api(lambda exc: exc.code if values == 0 else (None,) * values + (exc.code,), False)


def acl_value(failed: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An API returning only a value (as aclCreateDataBuffer, aclmdlGetNumInputs): an error
    returns ``failed``, what the C API returns then (NULL is 0, an unknown type -1)."""
    return _api(lambda exc: failed, True)


def recent_error() -> str:
    return _last_error[0]


def rt() -> Any:
    return current_runtime()
