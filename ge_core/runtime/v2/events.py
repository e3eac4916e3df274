"""Trace events of the v2 runtime (host-scheduled execution: v2, hybrid, single op)."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.trace import TraceEvent


@dataclass(frozen=True, slots=True)
class KernelLaunched(TraceEvent):
    """The host handed an op's kernel to a stream, at ``host_ns`` of simulated host time (the
    device cannot start it earlier: see CostModel.host_launch_ns)."""

    node: str
    op_type: str
    stream_id: int
    task_id: int
    host_ns: int
