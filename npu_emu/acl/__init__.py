"""``npu_emu.acl``: a facade shaped like pyACL over the emulated runtime.

Calls return ``ret`` or ``(value, ret)`` with ACL error codes, as pyACL does, so a teaching
script reads like one written for a real Ascend device::

    import npu_emu.acl as acl
    acl.init()
    acl.rt.set_device(0)
    stream, ret = acl.rt.create_stream()

Handles (streams, events, contexts, models, data buffers, datasets) are plain ints; device and
host pointers are ints. Every call acts on ``npu_emu.world.current_runtime()``. A program
written for a real board runs here with ``import acl`` changed to ``from npu_emu import acl``;
acl.mdl's offline-model calls are GE's (see npu_emu/acl/model_loader.py).
"""
import json
from pathlib import Path

from npu_emu.acl import mdl, rt, util
from npu_emu.acl._call import acl_call, recent_error
from npu_emu.acl.data_buffer import (create_data_buffer, destroy_data_buffer,
                                     get_data_buffer_addr, get_data_buffer_size,
                                     get_data_buffer_size_v2, update_data_buffer)
from npu_emu.errors import (ACL_ERROR_REPEAT_INITIALIZE, ACL_ERROR_UNINITIALIZE, AclError,
                            InvalidParamError)
from npu_emu.world import current_runtime, drop_implicit_world

__all__ = ["init", "finalize", "get_recent_err_msg", "rt", "mdl", "util", "create_data_buffer",
           "destroy_data_buffer", "get_data_buffer_addr", "get_data_buffer_size",
           "get_data_buffer_size_v2", "update_data_buffer"]


@acl_call()
def init(config_path: str = "") -> int:
    """``config_path``: an acl.json; its ``"npu_emu"`` object, if any, sets RuntimeConfig
    fields (e.g. ``{"npu_emu": {"host_sq_max_count": 8, "auto_split_reserve": 1}}``)."""
    runtime = current_runtime()
    if runtime.initialized:
        raise AclError("acl.init called twice", ACL_ERROR_REPEAT_INITIALIZE)
    if config_path:
        try:
            settings = json.loads(Path(config_path).read_text()).get("npu_emu", {})
        except (OSError, ValueError) as exc:
            raise InvalidParamError(f"acl config {config_path}: {exc}") from exc
        runtime.configure(**settings)
    runtime.initialized = True
    return 0


@acl_call()
def finalize() -> int:
    runtime = current_runtime()
    if not runtime.initialized:
        raise AclError("acl.finalize before acl.init", ACL_ERROR_UNINITIALIZE)
    try:
        for device_id in sorted(runtime.devices):
            runtime.reset_device(device_id)
    finally:
        runtime.initialized = False
        drop_implicit_world()
    return 0


def get_recent_err_msg() -> str:
    return recent_error()
