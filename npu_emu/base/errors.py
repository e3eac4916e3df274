"""Typed runtime errors, each carrying the ACL error code the real runtime returns for it.

The object API raises these; ``npu_emu.acl`` turns them into ``(value, ret)`` pairs. Codes are
those of CANN's ``rt_error_codes.h`` / ``acl_base.h`` so a lesson's numbers transfer.
"""
from __future__ import annotations

ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_UNINITIALIZE = 100001
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_INVALID_FILE = 100003
ACL_ERROR_PARSE_FILE = 100006
ACL_ERROR_FILE_ATTR_INVALID = 100008
ACL_ERROR_BAD_ALLOC = 200000
ACL_ERROR_API_NOT_SUPPORT = 200001
ACL_ERROR_INVALID_DEVICE = 200002
# aclmdl* (acl_base.h): what GE's loader answers through the ACL model calls
ACL_ERROR_INVALID_MODEL_ID = 100011
ACL_ERROR_READ_MODEL_FAILURE = 100014
ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017
ACL_ERROR_MODEL_OUTPUT_NOT_MATCH = 100018
ACL_ERROR_GE_FAILURE = 500002

ACL_ERROR_RT_PARAM_INVALID = 107000
ACL_ERROR_RT_INVALID_DEVICEID = 107001
ACL_ERROR_RT_CONTEXT_NULL = 107002
ACL_ERROR_RT_STREAM_CONTEXT = 107003
ACL_ERROR_RT_STREAM_MODEL = 107005
ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006
ACL_ERROR_RT_INVALID_HANDLE = 107017
ACL_ERROR_RT_WAIT_TIMEOUT = 107019
ACL_ERROR_RT_STREAM_UNJOINED = 107025
ACL_ERROR_RT_STREAM_CAPTURED = 107027
ACL_ERROR_RT_STREAM_NOT_CAPTURED = 107029
ACL_ERROR_STREAM_TASK_GROUP_STATUS = 107033
ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000
ACL_ERROR_RT_MEMORY_ALLOCATION = 207001
ACL_ERROR_RT_MEMORY_FREE = 207002
ACL_ERROR_RT_INTERNAL_ERROR = 507000
ACL_ERROR_RT_STREAM_TASK_FULL = 507002
ACL_ERROR_RT_END_OF_SEQUENCE = 507005
ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006
ACL_ERROR_RT_MODEL_EXECUTE = 507011
ACL_ERROR_RT_AICORE_EXCEPTION = 507015
ACL_ERROR_RT_MODEL_ABORT_NORMAL = 507023
ACL_ERROR_RT_KERNEL_LOOKUP = 507027
ACL_ERROR_RT_LABEL_CONTEXT = 507031
ACL_ERROR_RT_STREAM_SYNC_TIMEOUT = 507046
ACL_ERROR_RT_EVENT_SYNC_TIMEOUT = 507047
ACL_ERROR_RT_DEVICE_MEM_ERROR = 507053
ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED = 507903
ACL_ERROR_SNAPSHOT_BACKUP_FAILED = 507908
ACL_ERROR_SNAPSHOT_RESTORE_FAILED = 507909

# Statuses a synchronize returns without them being failures (the runtime's succStmSyncErrCodes).
NORMAL_FINISH_CODES = frozenset({ACL_SUCCESS, ACL_ERROR_RT_MODEL_ABORT_NORMAL,
                                 ACL_ERROR_RT_END_OF_SEQUENCE})


class AclError(Exception):
    """Base of every runtime error; ``code`` is the ACL error code."""

    code = ACL_ERROR_RT_INTERNAL_ERROR

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidParamError(AclError):
    code = ACL_ERROR_RT_PARAM_INVALID


class InvalidHandleError(AclError):
    code = ACL_ERROR_RT_INVALID_HANDLE


class InvalidDeviceError(AclError):
    code = ACL_ERROR_RT_INVALID_DEVICEID


class ContextError(AclError):
    code = ACL_ERROR_RT_CONTEXT_NULL


class OutOfMemoryError(AclError):
    code = ACL_ERROR_RT_MEMORY_ALLOCATION


class MemoryFreeError(AclError):
    code = ACL_ERROR_RT_MEMORY_FREE


class MemoryAccessError(AclError):
    """An access outside every live allocation, or to freed memory."""

    code = ACL_ERROR_RT_DEVICE_MEM_ERROR


class StreamTaskFullError(AclError):
    code = ACL_ERROR_RT_STREAM_TASK_FULL


class KernelLookupError(AclError):
    code = ACL_ERROR_RT_KERNEL_LOOKUP


class TaskFaultError(AclError):
    """A task failed on the device (a kernel raised, or read or wrote outside its memory)."""

    code = ACL_ERROR_RT_AICORE_EXCEPTION


class ModelStateError(AclError):
    code = ACL_ERROR_RT_MODEL_EXECUTE


class StreamModelError(AclError):
    code = ACL_ERROR_RT_STREAM_MODEL


class LabelError(AclError):
    code = ACL_ERROR_RT_LABEL_CONTEXT


class CaptureError(AclError):
    code = ACL_ERROR_RT_STREAM_CAPTURED


class FeatureNotSupportedError(AclError):
    code = ACL_ERROR_RT_FEATURE_NOT_SUPPORT


class DeadlockError(AclError):
    """No stream can make progress and the host waits on one of them. A real device would hang
    until the stream-sync timeout, hence that code. ``blocked`` lists the wait-for chain."""

    code = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT

    def __init__(self, message: str, blocked: tuple = ()) -> None:
        super().__init__(message)
        self.blocked = blocked
