"""The host executor's trace event: what `step node` stops on while a graph runs on the host.
Apart from the executor so a debugger can name it without loading the kernels."""
from __future__ import annotations

from dataclasses import dataclass

from npu_emu.base.trace import TraceEvent


@dataclass(frozen=True, slots=True)
class NodeExecuted(TraceEvent):
    graph: str
    node: str
    op_type: str
