"""``npu_emu.acl``: a facade shaped like pyACL over the emulated runtime.

Calls return ``ret`` or ``(value, ret)`` with ACL error codes, as pyACL does, so a teaching
script reads like one written for a real Ascend device::

    import npu_emu.acl as acl
    acl.init()
    acl.rt.set_device(0)
    stream, ret = acl.rt.create_stream()

Handles (streams, events, contexts, models, data buffers, datasets) are plain ints; device and
host pointers are ints. Every call acts on ``npu_emu.world.current_runtime()``. A program
written for a real board runs under gewb as it is: its ``import acl`` finds this module while
the program runs (the workbench's host runner aliases it); run by plain Python it needs
``from npu_emu import acl``. acl.mdl's offline-model calls are GE's (see
npu_emu/acl/model_loader.py).
"""
import json
import os

from npu_emu.acl import mdl, rt, util
from npu_emu.acl._call import acl_call, recent_error
from npu_emu.acl.c_types import Text
from npu_emu.acl.data_buffer import (create_data_buffer, destroy_data_buffer,
                                     get_data_buffer_addr, get_data_buffer_size,
                                     get_data_buffer_size_v2, update_data_buffer)
from npu_emu.base.errors import (ACL_ERROR_FILE_ATTR_INVALID, ACL_ERROR_INVALID_FILE,
                            ACL_ERROR_PARSE_FILE, ACL_ERROR_REPEAT_INITIALIZE,
                            ACL_ERROR_UNINITIALIZE, AclError)
from npu_emu.world import current_runtime, drop_implicit_world

MAX_CONFIG_BYTES = 1 << 20   # an acl.json is a few lines; a path to anything larger is a mistake

__all__ = ["init", "finalize", "get_recent_err_msg", "get_soc_name", "rt", "mdl", "util",
           "create_data_buffer", "destroy_data_buffer", "get_data_buffer_addr",
           "get_data_buffer_size", "get_data_buffer_size_v2", "update_data_buffer"]


@acl_call()
def init(config_path: Text = "") -> int:
    """``config_path``: an acl.json; its ``"npu_emu"`` object, if any, sets RuntimeConfig
    fields (e.g. ``{"npu_emu": {"soc_version": "Ascend950", "host_sq_max_count": 48}}``). As aclInit
    answers: a file that cannot be read is ACL_ERROR_INVALID_FILE, one that is not a JSON
    object ACL_ERROR_PARSE_FILE, a field npu_emu cannot take ACL_ERROR_FILE_ATTR_INVALID."""
    runtime = current_runtime()
    if runtime.initialized:
        raise AclError("acl.init called twice", ACL_ERROR_REPEAT_INITIALIZE)
    if config_path:
        settings = _npu_emu_settings(config_path)
        try:
            runtime.configure(**settings)
        except AclError as exc:
            raise AclError(f"acl config {config_path}: {exc}", ACL_ERROR_FILE_ATTR_INVALID) \
                from None
    runtime.initialized = True
    return 0


def get_soc_name() -> str:
    """aclrtGetSocName: the SoC version this runtime drives (npu_emu/driver/soc.py's chips)."""
    return current_runtime().config.soc_version


def _npu_emu_settings(path: str) -> dict:
    if not os.path.isfile(path):   # a directory, or a FIFO whose open would block forever
        what = "is not a regular file" if os.path.exists(path) else "does not exist"
        raise AclError(f"acl config {path} {what}", ACL_ERROR_INVALID_FILE)
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise AclError(f"acl config {path}: {exc.strerror or exc}", ACL_ERROR_INVALID_FILE) \
            from None
    try:
        if len(text) > MAX_CONFIG_BYTES:
            raise ValueError(f"larger than {MAX_CONFIG_BYTES} bytes")
        config = json.loads(text) if text.strip() else {}
        if not isinstance(config, dict):
            raise ValueError("the top level is not a JSON object")
        settings = config.get("npu_emu", {})
        if not isinstance(settings, dict):
            raise ValueError('"npu_emu" is not a JSON object')
    except (ValueError, RecursionError) as exc:   # RecursionError: nesting past Python's limit
        raise AclError(f"acl config {path}: {exc}", ACL_ERROR_PARSE_FILE) from None
    return settings


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


# The runtime's kernel binaries, Snapshot and fusion launch are acl.rt calls too.
from npu_emu.acl import rt_features  # noqa: E402

for _name in rt_features.__all__:
    setattr(rt, _name, getattr(rt_features, _name))
