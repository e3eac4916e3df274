"""The numbers a TaskDef carries: GE's ModelTaskType (ops_kernel_info_types.h, the same values as
the runtime's rtModelTaskType_t, inc/framework/common/runtime_model_ge.h) and ccKernelType for
KernelContext.kernel_type."""
from __future__ import annotations

from enum import IntEnum
from typing import Callable


class ModelTaskType(IntEnum):
    """GE's ``enum class ModelTaskType`` (hicann/ge inc/graph_metadef/common/opskernel/
    ops_kernel_info_types.h), every member in order, named without GE's ``MODEL_TASK_`` prefix.
    The RTS engine writes the label jumps as STREAM_LABEL_SWITCH_BY_INDEX and STREAM_LABEL_GOTO
    (label_switch_by_index_op.cc, label_goto_ex_op.cc); LABEL_SWITCH and LABEL_GOTO are older
    kinds GE's loader registers no TaskInfo for."""
    KERNEL = 0
    EVENT_RECORD = 1
    EVENT_WAIT = 2
    FUSION_START = 3
    FUSION_END = 4
    KERNEL_EX = 5
    HCCL = 6
    STREAM_SWITCH = 7
    STREAM_ACTIVE = 8
    LABEL_SET = 9
    LABEL_SWITCH = 10
    LABEL_GOTO = 11
    PROFILER_TRACE = 12
    MEMCPY_ASYNC = 13
    NOTIFY_RECORD = 14
    NOTIFY_WAIT = 15
    REDUCE_ASYNC = 16
    RDMA_SEND = 17
    EVENT_RESET = 18
    END_GRAPH = 19
    STREAM_SWITCH_N = 20
    RDMA_DB_SEND = 21
    MEMCPY_ADDR_ASYNC = 22
    STREAM_LABEL_SWITCH_BY_INDEX = 23
    STREAM_LABEL_GOTO = 24
    MODEL_EXIT = 25
    ALL_KERNEL = 26
    PROFILER_TRACE_EX = 27
    FFTS = 28
    FFTS_PLUS = 29
    DSA = 30
    CMO = 31
    BARRIER = 32
    NPU_GET_FLOAT_STATUS = 33
    NPU_CLEAR_FLOAT_STATUS = 34
    DVPP = 35
    NPU_GET_DEBUG_FLOAT_STATUS = 36
    NPU_CLEAR_DEBUG_FLOAT_STATUS = 37
    CMO_ADDR = 38
    VECTOR_KERNEL = 39
    VECTOR_ALL_KERNEL = 40
    UPDATE = 41
    NOP = 42
    PREPROCESS_KERNEL = 43
    SUPER_KERNEL = 44
    MEM_EVENT_RECORD = 45
    MEM_EVENT_WAIT = 46
    FUSION_KERNEL = 47
    KERNEL_LAUNCH_V2 = 48
    CCU_KERNEL = 49
    CUSTOM_KERNEL = 50


def enum_name(enum: type[IntEnum], value: int, fallback: Callable[[int], str] = str) -> str:
    """The member's name, or ``fallback(value)`` for a value the enum does not know."""
    try:
        return enum(value).name
    except ValueError:
        return fallback(value)


def task_type_name(value: int) -> str:
    """The type's name, or the bare number for one this schema does not know."""
    return enum_name(ModelTaskType, value)


class KernelType(IntEnum):
    """GE's ccKernelType: who compiled the kernel and so which unit runs it."""
    CCE_AI_CORE = 0
    CCE_AI_CPU = 1
    TE = 2                 # a TBE kernel on the AI Core (cube)
    CUSTOMIZED = 3
    TE_AI_CORE = 4
    TE_AI_CPU = 5
    AI_CPU = 6
    CUST_AI_CPU = 7
    HOST_CPU = 8
    DVPP = 9
    AI_CPU_KFC = 10
    MIX_AICORE = 11
    MIX_VECTOR_CORE = 12   # a kernel for the vector core only (our VectorEngine)


class MemcpyKind(IntEnum):
    """rtMemcpyKind_t, for MemcpyAsyncDef.kind."""
    HOST_TO_HOST = 0
    HOST_TO_DEVICE = 1
    DEVICE_TO_HOST = 2
    DEVICE_TO_DEVICE = 3
