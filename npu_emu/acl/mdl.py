"""``acl.mdl``: the aclmdlRI model calls (build, bind, execute, abort, capture, task groups)
and the runtime's label / stream-activation launches that a model's streams carry; then the
offline-model calls (load_from_file, the model desc, datasets, execute, unload), which reach
GE's loader through the hook in model_loader.py, as libascendcl reaches GE's runtime.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from npu_emu.acl._call import acl_call, acl_value, rt
from npu_emu.acl.c_types import (DType, Handle, Handles, Int32, Opaque, Ptr, Scalar, Size,
                                 StreamHandle, Text, UInt32)
from npu_emu.acl.constants import ACL_DTYPE_OF_NUMPY, ACL_DT_UNDEFINED, ACL_FORMAT_UNDEFINED
from npu_emu.acl.data_buffer import data_buffer
from npu_emu.acl.model_loader import ModelDescription, TensorDescInfo, model_loader
from npu_emu.acl.rt import stream_of
from npu_emu.base.errors import FeatureNotSupportedError, InvalidParamError
from npu_emu.core.label import Label
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_DEFAULT
from npu_emu.feature.capture import TaskGroup
from npu_emu.feature.model import Model
from npu_emu.snapshot.codec import INT, STR, Inline, Opt, Seq, Tup
from npu_emu.snapshot.schema import api_handle


def _model(handle: int) -> Model:
    return rt().resolve(handle, Model)


@acl_call(1)
def ri_build_begin(flag: UInt32 = 0) -> tuple[int, int]:
    return rt().handle(rt().model_build_begin()), 0


@acl_call()
def ri_bind_stream(model_ri: Handle, stream: StreamHandle,
                   flag: UInt32 = ACL_MODEL_STREAM_FLAG_DEFAULT) -> int:
    _model(model_ri).bind_stream(stream_of(stream), flag)
    return 0


@acl_call()
def ri_unbind_stream(model_ri: Handle, stream: StreamHandle) -> int:
    _model(model_ri).unbind_stream(stream_of(stream))
    return 0


@acl_call()
def ri_end_task(model_ri: Handle, stream: StreamHandle) -> int:
    _model(model_ri).end_task(stream_of(stream))
    return 0


@acl_call()
def ri_build_end(model_ri: Handle, reserve: Opaque = None) -> int:
    _model(model_ri).build_end()
    return 0


@acl_call()
def ri_execute(model_ri: Handle, timeout: Int32 = -1) -> int:
    """``timeout`` in ms of device time; -1 waits forever, below -1 is invalid."""
    if timeout < -1:
        raise InvalidParamError(f"execute timeout {timeout} ms (-1 or more)")
    return _model(model_ri).execute(timeout)


@acl_call()
def ri_execute_async(model_ri: Handle, stream: StreamHandle) -> int:
    _model(model_ri).execute_async(stream_of(stream))
    return 0


@acl_call()
def ri_abort(model_ri: Handle) -> int:
    _model(model_ri).abort()
    return 0


@acl_call()
def ri_destroy(model_ri: Handle) -> int:
    _model(model_ri).destroy()
    return 0


@acl_call()
def ri_set_name(model_ri: Handle, name: Text) -> int:
    _model(model_ri).set_name(name)
    return 0


# -- labels and stream activation (rtLabel*, rtStreamActive, rtStreamSwitch) ------------------
@acl_call(1)
def ri_label_create(model_ri: Handle) -> tuple[int, int]:
    return rt().handle(_model(model_ri).create_label()), 0


@acl_call()
def ri_label_set(label: Handle, stream: StreamHandle) -> int:
    stream_of(stream).label_set(rt().resolve(label, Label))
    return 0


@acl_call()
def ri_label_goto(label: Handle, stream: StreamHandle) -> int:
    stream_of(stream).label_goto(rt().resolve(label, Label))
    return 0


@acl_call()
def ri_label_switch_by_index(index_ptr: Ptr, labels: Handles, stream: StreamHandle) -> int:
    stream_of(stream).label_switch_by_index(index_ptr, [rt().resolve(x, Label) for x in labels])
    return 0


@acl_call()
def ri_stream_active(active_stream: Handle, stream: StreamHandle) -> int:
    stream_of(stream).active_stream(stream_of(active_stream))
    return 0


@acl_call()
def ri_stream_switch(value_ptr: Ptr, condition: UInt32, value: Scalar, true_stream: Handle,
                     stream: StreamHandle, dtype: DType = np.int64) -> int:
    stream_of(stream).stream_switch(value_ptr, condition, value, stream_of(true_stream), dtype)
    return 0


# -- ACL Graph capture -------------------------------------------------------------------------
@acl_call()
def ri_capture_begin(stream: StreamHandle, mode: Int32 = 0) -> int:
    if mode != 0:
        raise FeatureNotSupportedError("only the global capture mode is emulated")
    rt().capture.begin(stream_of(stream))
    return 0


@acl_call(1)
def ri_capture_end(stream: StreamHandle) -> tuple[int, int]:
    return rt().handle(rt().capture.end(stream_of(stream))), 0


@acl_call(2)
def ri_capture_get_info(stream: StreamHandle) -> tuple[int, int | None, int]:
    status, model = rt().capture.status(stream_of(stream))
    return status, (rt().handle(model) if model is not None else None), 0


@acl_call()
def ri_capture_task_grp_begin(stream: StreamHandle) -> int:
    rt().capture.task_group_begin(stream_of(stream))
    return 0


@acl_call(1)
def ri_capture_task_grp_end(stream: StreamHandle) -> tuple[int, int]:
    return rt().handle(rt().capture.task_group_end(stream_of(stream))), 0


@acl_call()
def ri_capture_task_update_begin(stream: StreamHandle, handle: Handle) -> int:
    rt().capture.task_update_begin(stream_of(stream), rt().resolve(handle, TaskGroup))
    return 0


@acl_call()
def ri_capture_task_update_end(stream: StreamHandle) -> int:
    rt().capture.task_update_end(stream_of(stream))
    return 0


# -- offline models (aclmdlLoadFromFile ... aclmdlUnload), implemented by GE's loader ----------
_TENSOR_INFO = Inline(TensorDescInfo, {"name": STR, "dims": Tup(INT), "dtype": STR,
                                       "format": INT, "size": INT})


@api_handle({"description": Opt(Inline(ModelDescription, {
    "inputs": Tup(_TENSOR_INFO), "outputs": Tup(_TENSOR_INFO)}))})
class ModelDesc:
    """aclmdlDesc: empty until get_desc fills it from a loaded model."""

    def __init__(self) -> None:
        self.description: ModelDescription | None = None


@api_handle({"buffers": Seq(INT)})
class Dataset:
    """aclmdlDataset: the data buffers of a model's inputs or outputs, in order."""

    def __init__(self) -> None:
        self.buffers: list[int] = []


def _desc(handle: int) -> ModelDescription:
    described = rt().resolve(handle, ModelDesc).description
    if described is None:
        raise InvalidParamError("model desc not filled: call acl.mdl.get_desc first")
    return described


def _tensor(desc: int, index: int, outputs: bool) -> TensorDescInfo:
    tensors = _desc(desc).outputs if outputs else _desc(desc).inputs
    if not 0 <= index < len(tensors):
        raise InvalidParamError(f"{'output' if outputs else 'input'} index {index} "
                                f"(the model has {len(tensors)})")
    return tensors[index]


def _device_buffers(handle: int) -> list[tuple[int, int]]:
    """A dataset's (addr, size) buffers, each checked to lie inside one live device allocation,
    as a memcpy from it would be: a freed or undersized buffer fails here (507053), before GE
    reads or writes a byte of it."""
    memory = rt().device().memory
    buffers = [data_buffer(b) for b in rt().resolve(handle, Dataset).buffers]
    for b in buffers:
        memory.check(b.addr, b.size)
    return [(b.addr, b.size) for b in buffers]


@acl_call(1)
def load_from_file(model_path: Text) -> tuple[int, int]:
    return model_loader().load_from_file(model_path), 0


@acl_call(1)
def load_from_mem(model: Ptr, model_size: Size) -> tuple[int, int]:
    """``model``: a host pointer to the OM file's bytes."""
    data = rt().host.bytes_view(model, model_size).tobytes()
    return model_loader().load_from_data(data, f"<model at {model:#x}>"), 0


@acl_call()
def unload(model_id: UInt32) -> int:
    model_loader().unload(model_id)
    return 0


@acl_value(0)
def create_desc() -> int:
    return rt().handle(ModelDesc())


@acl_call()
def get_desc(model_desc: Handle, model_id: UInt32) -> int:
    rt().resolve(model_desc, ModelDesc).description = model_loader().describe(model_id)
    return 0


@acl_call()
def destroy_desc(model_desc: Handle) -> int:
    rt().release(model_desc, ModelDesc)
    return 0


@acl_value(0)
def get_num_inputs(model_desc: Handle) -> int:
    return len(_desc(model_desc).inputs)


@acl_value(0)
def get_num_outputs(model_desc: Handle) -> int:
    return len(_desc(model_desc).outputs)


@acl_value(0)
def get_input_size_by_index(model_desc: Handle, index: Size) -> int:
    return _tensor(model_desc, index, False).size


@acl_value(0)
def get_output_size_by_index(model_desc: Handle, index: Size) -> int:
    return _tensor(model_desc, index, True).size


@acl_value("")
def get_input_name_by_index(model_desc: Handle, index: Size) -> str:
    return _tensor(model_desc, index, False).name


@acl_value("")
def get_output_name_by_index(model_desc: Handle, index: Size) -> str:
    return _tensor(model_desc, index, True).name


@acl_value(ACL_DT_UNDEFINED)
def get_input_data_type(model_desc: Handle, index: Size) -> int:
    return ACL_DTYPE_OF_NUMPY.get(_tensor(model_desc, index, False).dtype, ACL_DT_UNDEFINED)


@acl_value(ACL_DT_UNDEFINED)
def get_output_data_type(model_desc: Handle, index: Size) -> int:
    return ACL_DTYPE_OF_NUMPY.get(_tensor(model_desc, index, True).dtype, ACL_DT_UNDEFINED)


@acl_value(ACL_FORMAT_UNDEFINED)
def get_input_format(model_desc: Handle, index: Size) -> int:
    return _tensor(model_desc, index, False).format


@acl_value(ACL_FORMAT_UNDEFINED)
def get_output_format(model_desc: Handle, index: Size) -> int:
    return _tensor(model_desc, index, True).format


def _dims(tensor: TensorDescInfo) -> dict[str, Any]:
    return {"name": tensor.name, "dimCount": len(tensor.dims), "dims": list(tensor.dims)}


@acl_call(1)
def get_input_dims(model_desc: Handle, index: Size) -> tuple[dict[str, Any], int]:
    return _dims(_tensor(model_desc, index, False)), 0


@acl_call(1)
def get_output_dims(model_desc: Handle, index: Size) -> tuple[dict[str, Any], int]:
    return _dims(_tensor(model_desc, index, True)), 0


@acl_call(1)
def get_input_index_by_name(model_desc: Handle, name: Text) -> tuple[int, int]:
    names = [t.name for t in _desc(model_desc).inputs]
    if name not in names:
        raise InvalidParamError(f"no input named {name!r} (inputs: {', '.join(names)})")
    return names.index(name), 0


@acl_value(0)
def create_dataset() -> int:
    return rt().handle(Dataset())


@acl_call(1)
def add_dataset_buffer(dataset: Handle, data_buffer_handle: Handle) -> tuple[int, int]:
    data_buffer(data_buffer_handle)
    rt().resolve(dataset, Dataset).buffers.append(data_buffer_handle)
    return dataset, 0


@acl_value(0)
def get_dataset_num_buffers(dataset: Handle) -> int:
    return len(rt().resolve(dataset, Dataset).buffers)


@acl_value(0)
def get_dataset_buffer(dataset: Handle, index: Size) -> int:
    buffers = rt().resolve(dataset, Dataset).buffers
    if index >= len(buffers):
        raise InvalidParamError(f"dataset buffer index {index} (the dataset has {len(buffers)})")
    return buffers[index]


@acl_call()
def destroy_dataset(dataset: Handle) -> int:
    rt().release(dataset, Dataset)   # its data buffers live on: the caller destroys them
    return 0


@acl_call()
def execute(model_id: UInt32, input: Handle, output: Handle) -> int:   # noqa: A002 (pyACL's names)
    return model_loader().execute(model_id, _device_buffers(input), _device_buffers(output),
                                  None)


@acl_call()
def execute_async(model_id: UInt32, input: Handle, output: Handle,  # noqa: A002
                  stream: StreamHandle) -> int:
    return model_loader().execute(model_id, _device_buffers(input), _device_buffers(output),
                                  stream_of(stream))
