"""``acl.mdl``: the aclmdlRI model calls (build, bind, execute, abort, capture, task groups)
and the runtime's label / stream-activation launches that a model's streams carry; then the
offline-model calls (load_from_file, the model desc, datasets, execute, unload), which reach
GE's loader through the hook in model_loader.py, as libascendcl reaches GE's runtime.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from npu_emu.acl._call import acl_call, rt
from npu_emu.acl.constants import ACL_DT_UNDEFINED, ACL_DTYPE_OF_NUMPY
from npu_emu.acl.data_buffer import data_buffer
from npu_emu.acl.model_loader import ModelDescription, TensorDescInfo, model_loader
from npu_emu.acl.rt import stream_of
from npu_emu.capture import TaskGroup
from npu_emu.errors import FeatureNotSupportedError, InvalidParamError
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


# -- offline models (aclmdlLoadFromFile ... aclmdlUnload), implemented by GE's loader ----------
class ModelDesc:
    """aclmdlDesc: empty until get_desc fills it from a loaded model."""

    description: ModelDescription | None = None


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


def _dataset(handle: int) -> list[tuple[int, int]]:
    buffers = (data_buffer(b) for b in rt().resolve(handle, Dataset).buffers)
    return [(b.addr, b.size) for b in buffers]


@acl_call(1)
def load_from_file(model_path: str) -> tuple[int, int]:
    return model_loader().load_from_file(model_path), 0


@acl_call(1)
def load_from_mem(model: int, model_size: int) -> tuple[int, int]:
    """``model``: a host pointer to the OM file's bytes."""
    data = rt().host.bytes_view(model, model_size).tobytes()
    return model_loader().load_from_data(data, f"<model at {model:#x}>"), 0


@acl_call()
def unload(model_id: int) -> int:
    model_loader().unload(model_id)
    return 0


def create_desc() -> int:
    return rt().handle(ModelDesc())


@acl_call()
def get_desc(model_desc: int, model_id: int) -> int:
    rt().resolve(model_desc, ModelDesc).description = model_loader().describe(model_id)
    return 0


@acl_call()
def destroy_desc(model_desc: int) -> int:
    rt().resolve(model_desc, ModelDesc)
    del rt().handles[model_desc]
    return 0


def get_num_inputs(model_desc: int) -> int:
    return len(_desc(model_desc).inputs)


def get_num_outputs(model_desc: int) -> int:
    return len(_desc(model_desc).outputs)


def get_input_size_by_index(model_desc: int, index: int) -> int:
    return _tensor(model_desc, index, False).size


def get_output_size_by_index(model_desc: int, index: int) -> int:
    return _tensor(model_desc, index, True).size


def get_input_name_by_index(model_desc: int, index: int) -> str:
    return _tensor(model_desc, index, False).name


def get_output_name_by_index(model_desc: int, index: int) -> str:
    return _tensor(model_desc, index, True).name


def get_input_data_type(model_desc: int, index: int) -> int:
    return ACL_DTYPE_OF_NUMPY.get(_tensor(model_desc, index, False).dtype, ACL_DT_UNDEFINED)


def get_output_data_type(model_desc: int, index: int) -> int:
    return ACL_DTYPE_OF_NUMPY.get(_tensor(model_desc, index, True).dtype, ACL_DT_UNDEFINED)


def get_input_format(model_desc: int, index: int) -> int:
    return _tensor(model_desc, index, False).format


def get_output_format(model_desc: int, index: int) -> int:
    return _tensor(model_desc, index, True).format


def _dims(tensor: TensorDescInfo) -> dict[str, Any]:
    return {"name": tensor.name, "dimCount": len(tensor.dims), "dims": list(tensor.dims)}


@acl_call(1)
def get_input_dims(model_desc: int, index: int) -> tuple[dict[str, Any], int]:
    return _dims(_tensor(model_desc, index, False)), 0


@acl_call(1)
def get_output_dims(model_desc: int, index: int) -> tuple[dict[str, Any], int]:
    return _dims(_tensor(model_desc, index, True)), 0


@acl_call(1)
def get_input_index_by_name(model_desc: int, name: str) -> tuple[int, int]:
    names = [t.name for t in _desc(model_desc).inputs]
    if name not in names:
        raise InvalidParamError(f"no input named {name!r} (inputs: {', '.join(names)})")
    return names.index(name), 0


def create_dataset() -> int:
    return rt().handle(Dataset())


@acl_call(1)
def add_dataset_buffer(dataset: int, data_buffer_handle: int) -> tuple[int, int]:
    data_buffer(data_buffer_handle)
    rt().resolve(dataset, Dataset).buffers.append(data_buffer_handle)
    return dataset, 0


def get_dataset_num_buffers(dataset: int) -> int:
    return len(rt().resolve(dataset, Dataset).buffers)


def get_dataset_buffer(dataset: int, index: int) -> int | None:
    buffers = rt().resolve(dataset, Dataset).buffers
    return buffers[index] if 0 <= index < len(buffers) else None


@acl_call()
def destroy_dataset(dataset: int) -> int:
    rt().resolve(dataset, Dataset)
    del rt().handles[dataset]   # its data buffers live on: the caller destroys them
    return 0


@acl_call()
def execute(model_id: int, input: int, output: int) -> int:   # noqa: A002 (pyACL's names)
    return model_loader().execute(model_id, _dataset(input), _dataset(output), None)


@acl_call()
def execute_async(model_id: int, input: int, output: int,  # noqa: A002
                  stream: int) -> int:
    return model_loader().execute(model_id, _dataset(input), _dataset(output),
                                  stream_of(stream))
