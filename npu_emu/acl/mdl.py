"""``acl.mdl``: the aclmdlRI model calls (build, bind, execute, abort, capture, task groups)
and the runtime's label / stream-activation launches that a model's streams carry.

Loading an offline model (acl.mdl.load_from_file, the model desc and dataset calls) belongs to
GE's runtime, which builds on this module; it is not part of the emulated CANN Runtime.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from npu_emu.acl._call import acl_call, rt
from npu_emu.acl.rt import stream_of
from npu_emu.capture import TaskGroup
from npu_emu.errors import FeatureNotSupportedError
from npu_emu.label import Label
from npu_emu.model import Model
from npu_emu.stream import ACL_MODEL_STREAM_FLAG_DEFAULT


def _model(handle: int) -> Model:
    return rt().resolve(handle, Model)


@acl_call(1)
def ri_build_begin(flag: int = 0) -> tuple[int, int]:
    return rt().handle(rt().model_build_begin()), 0


@acl_call()
def ri_bind_stream(model_ri: int, stream: int, flag: int = ACL_MODEL_STREAM_FLAG_DEFAULT) -> int:
    _model(model_ri).bind_stream(stream_of(stream), flag)
    return 0


@acl_call()
def ri_unbind_stream(model_ri: int, stream: int) -> int:
    _model(model_ri).unbind_stream(stream_of(stream))
    return 0


@acl_call()
def ri_end_task(model_ri: int, stream: int) -> int:
    _model(model_ri).end_task(stream_of(stream))
    return 0


@acl_call()
def ri_build_end(model_ri: int, reserve: Any = None) -> int:
    _model(model_ri).build_end()
    return 0


@acl_call()
def ri_execute(model_ri: int, timeout: int = -1) -> int:
    return _model(model_ri).execute(timeout)


@acl_call()
def ri_execute_async(model_ri: int, stream: int) -> int:
    _model(model_ri).execute_async(stream_of(stream))
    return 0


@acl_call()
def ri_abort(model_ri: int) -> int:
    _model(model_ri).abort()
    return 0


@acl_call()
def ri_destroy(model_ri: int) -> int:
    _model(model_ri).destroy()
    return 0


@acl_call()
def ri_set_name(model_ri: int, name: str) -> int:
    _model(model_ri).set_name(name)
    return 0


# -- labels and stream activation (rtLabel*, rtStreamActive, rtStreamSwitch) ------------------
@acl_call(1)
def ri_label_create(model_ri: int) -> tuple[int, int]:
    return rt().handle(_model(model_ri).create_label()), 0


@acl_call()
def ri_label_set(label: int, stream: int) -> int:
    stream_of(stream).label_set(rt().resolve(label, Label))
    return 0


@acl_call()
def ri_label_goto(label: int, stream: int) -> int:
    stream_of(stream).label_goto(rt().resolve(label, Label))
    return 0


@acl_call()
def ri_label_switch_by_index(index_ptr: int, labels: Sequence[int], stream: int) -> int:
    stream_of(stream).label_switch_by_index(index_ptr, [rt().resolve(x, Label) for x in labels])
    return 0


@acl_call()
def ri_stream_active(active_stream: int, stream: int) -> int:
    stream_of(stream).active_stream(stream_of(active_stream))
    return 0


@acl_call()
def ri_stream_switch(value_ptr: int, condition: int, value: Any, true_stream: int,
                     stream: int, dtype: Any = np.int64) -> int:
    stream_of(stream).stream_switch(value_ptr, condition, value, stream_of(true_stream), dtype)
    return 0


# -- ACL Graph capture -------------------------------------------------------------------------
@acl_call()
def ri_capture_begin(stream: int, mode: int = 0) -> int:
    if mode != 0:
        raise FeatureNotSupportedError("only the global capture mode is emulated")
    rt().capture.begin(stream_of(stream))
    return 0


@acl_call(1)
def ri_capture_end(stream: int) -> tuple[int, int]:
    return rt().handle(rt().capture.end(stream_of(stream))), 0


@acl_call(2)
def ri_capture_get_info(stream: int) -> tuple[int, int | None, int]:
    status, model = rt().capture.status(stream_of(stream))
    return status, (rt().handle(model) if model is not None else None), 0


@acl_call()
def ri_capture_task_grp_begin(stream: int) -> int:
    rt().capture.task_group_begin(stream_of(stream))
    return 0


@acl_call(1)
def ri_capture_task_grp_end(stream: int) -> tuple[int, int]:
    return rt().handle(rt().capture.task_group_end(stream_of(stream))), 0


@acl_call()
def ri_capture_task_update_begin(stream: int, handle: int) -> int:
    rt().capture.task_update_begin(stream_of(stream), rt().resolve(handle, TaskGroup))
    return 0


@acl_call()
def ri_capture_task_update_end(stream: int) -> int:
    rt().capture.task_update_end(stream_of(stream))
    return 0
