"""The facade's trace events: a call about to be made, and a call that returned a code other
than success. The debugger places both at the host program's line (cuda-gdb's api_failures:
report, stop or hide), `break call API` stops on the first, and `gewb devrun` counts the
second."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from npu_emu.base import errors
from npu_emu.base.trace import TraceEvent


@dataclass(frozen=True, slots=True)
class AclCallMade(TraceEvent):
    api: str     # acl.rt.stream_wait_event
    args: str    # stream=1342177280, event=1610612736 (values a trace hash can keep)


@dataclass(frozen=True, slots=True)
class AclCallFailed(TraceEvent):
    api: str
    code_name: str   # ACL_ERROR_RT_INVALID_HANDLE
    code: int        # 107017
    message: str     # what acl.get_recent_err_msg() says


@cache
def _code_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, value in vars(errors).items():
        if name.startswith("ACL_ERROR_") and isinstance(value, int):
            names.setdefault(value, name)
    return names


def code_name(code: int) -> str:
    """ACL_ERROR_... for a code (the first name errors.py gives it), else the number."""
    return _code_names().get(code, f"error {code}")
