"""The v2 kernels this project registers that GE's runtime does not (GE's are the names its
REGISTER_KERNEL lists under hicann/ge runtime/), each with what GE has nearest, so that every
ExecuteGraph dump marks them: a student must not look for them in GE's source.

    shown(kernel)   the name as a dump shows it: "CopyOutput (not GE)"
"""
from __future__ import annotations

from ge_core.passes.not_ge import MARK

NOT_GE_KERNELS: dict[str, str] = {
    "RecordEvent": "GE records an op's events with SendEvents",
    "WaitEvent": "GE waits with WaitEvents",
    "RecordNotify": "GE has no per-op notify record among its kernels",
    "WaitNotify": "GE has no per-op notify wait among its kernels",
    "CreateNotify": "GE makes a graph's notifies with CreateNotifies",
    "ActiveStream": "GE's v2 starts no stream by a kernel of its own",
    "Synchronize": "GE synchronises a stream with SyncStream",
    "CreateStream": "GE takes its streams from ReusableStreamAllocator and SplitRtStreams",
    "DestroyStream": "GE's streams go back to its ReusableStreamAllocator",
    "FreeWeight": "GE's weights are freed with the model's memory",
    "ReleaseAllocator": "GE's allocators go with the executor",
    "CheckHostInput": "GE checks and copies an input with CopyH2D and MakeSureTensorAtDevice",
    "CopyOutput": "GE places outputs with AllocModelOutTensor and EnsureTensorAtOutMemory",
    "HostCpuKernel": "GE runs host-CPU ops with AicpuHostCompute and FusedHostCpuCompute",
    "LaunchKernelWithSummary": "GE launches with LaunchKernelWithHandle, sizes by summary "
                               "(GetSummaryDataSizes)",
    "GetSummaryOutputs": "GE reads a summary with GetHostSummary",
    "CopySummaryOutputs": "GE reads a summary with GetHostSummary",
}


def shown(kernel: str) -> str:
    return kernel + MARK if kernel in NOT_GE_KERNELS else kernel
