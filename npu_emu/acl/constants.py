"""pyACL's constants, as the real ``acl`` module names them."""
from npu_emu.base.errors import *  # noqa: F401,F403  (every ACL_ERROR_* code)
from npu_emu.core.stream import (ACL_MODEL_STREAM_FLAG_DEFAULT,  # noqa: F401
                                 ACL_MODEL_STREAM_FLAG_HEAD)
from npu_emu.feature.capture import (ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
                                     ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
                                     ACL_MODEL_RI_CAPTURE_STATUS_NONE)

# aclrtMemcpyKind
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3

# aclrtMemMallocPolicy (all behave alike here: one kind of device memory)
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEM_MALLOC_HUGE_ONLY = 1
ACL_MEM_MALLOC_NORMAL_ONLY = 2

# aclrtEventRecordedStatus / aclrtStreamStatus
ACL_EVENT_RECORDED_STATUS_NOT_READY = 0
ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
ACL_STREAM_STATUS_COMPLETE = 0
ACL_STREAM_STATUS_NOT_READY = 1

# aclrtCallbackBlockType
ACL_CALLBACK_NO_BLOCK = 0
ACL_CALLBACK_BLOCK = 1

# aclmdlRICaptureMode
ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0
ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL = 1
ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 2

# numpy type numbers pyACL's ptr_to_numpy takes (NPY_TYPES)
NPY_BOOL, NPY_INT8, NPY_UINT8, NPY_INT16, NPY_UINT16, NPY_INT32, NPY_UINT32 = 0, 1, 2, 3, 4, 5, 6
NPY_INT64, NPY_UINT64, NPY_FLOAT32, NPY_FLOAT64, NPY_FLOAT16 = 7, 8, 11, 12, 23

# aclDataType, as aclmdlGetInputDataType reports a model's tensors
ACL_DT_UNDEFINED = -1
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8 = 0, 1, 2, 3, 4
ACL_INT16, ACL_UINT16, ACL_UINT32, ACL_INT64, ACL_UINT64 = 6, 7, 8, 9, 10
ACL_DOUBLE, ACL_BOOL = 11, 12
ACL_DTYPE_OF_NUMPY = {"float32": ACL_FLOAT, "float16": ACL_FLOAT16, "int8": ACL_INT8,
                      "int32": ACL_INT32, "uint8": ACL_UINT8, "int16": ACL_INT16,
                      "uint16": ACL_UINT16, "uint32": ACL_UINT32, "int64": ACL_INT64,
                      "uint64": ACL_UINT64, "float64": ACL_DOUBLE, "bool": ACL_BOOL}

# aclFormat (the same numbers as GE's Format)
ACL_FORMAT_UNDEFINED = -1
ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND = 0, 1, 2
