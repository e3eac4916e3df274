"""How the facade turns the object API's typed exceptions into pyACL's return codes."""
from __future__ import annotations

import functools
from typing import Any, Callable

from npu_emu.errors import AclError
from npu_emu.world import current_runtime

_last_error = [""]


def acl_call(values: int = 0) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Wrap an API: success returns ``ret`` (0) or ``(*values, 0)``; an AclError returns its
    code in the same shape with None for each value, and its message for get_recent_err_msg."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except AclError as exc:
                _last_error[0] = str(exc)
                return exc.code if values == 0 else (None,) * values + (exc.code,)
        return call

    return wrap


def recent_error() -> str:
    return _last_error[0]


def rt() -> Any:
    return current_runtime()
