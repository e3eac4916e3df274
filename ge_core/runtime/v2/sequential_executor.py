"""GE's SequentialExecute: a flat node list sorted once at load, one call per node.

This is v2's whole point - per node, the host pays one function call on a pre-built context
(GE writes the loop in C for that reason). Nothing is looked up, counted or queued while
running; a failing kernel is named from the loop variables after the fact.
"""
from __future__ import annotations

from ge_core.runtime.v2.execute_graph import ExecuteGraphError
from ge_core.runtime.v2.kernel import KernelContext, KernelFunc
from npu_emu.base.errors import AclError

RunNode = tuple[KernelFunc, KernelContext]


class SequentialExecutor:
    name = "sequential"

    def __init__(self, nodes: list[RunNode], dependencies: list[list[int]]) -> None:
        self.nodes = nodes   # already in a topological order: dependencies are not needed

    def execute(self) -> None:
        ctx = None
        try:
            for func, ctx in self.nodes:
                func(ctx)
        except Exception as exc:
            raise node_failed(ctx, exc) from exc


def node_failed(ctx: KernelContext | None, exc: Exception) -> Exception:
    """The error to raise for a kernel's failure: the node's name in front (once). A typed
    runtime error (bad input, a device fault) keeps its type and ACL code."""
    if isinstance(exc, (ExecuteGraphError, AclError)) or ctx is None:
        return exc
    # a kernel refuses its inputs with a ValueError that says why, as the device's kernels do
    # (TaskScheduler._fault), and GE's own errors say why; another exception's class is part
    # of the message (a Python error is a defect, and shows as one)
    ours = type(exc) is ValueError or type(exc).__module__.split(".")[0] in ("ge_core", "npu_emu")
    said = str(exc) if ours else f"{type(exc).__name__}: {exc}"
    return ExecuteGraphError(f"{ctx.name}: {said}")
