"""The v2 kernel registry (GE's REGISTER_KERNEL): the runtime functions an ExecuteGraph's nodes
name. A kernel is ``fn(ctx) -> None``: it reads the values its node reads from ``ctx.values``
by the ids in ``ctx.ins`` and writes its results at ``ctx.outs``. Everything a kernel needs
that lowering could resolve is in ``ctx.attrs``, so a call does only the run-time work.
"""
from __future__ import annotations

from typing import Any, Callable

KernelFunc = Callable[["KernelContext"], None]

_KERNELS: dict[str, KernelFunc] = {}


class KernelContext:
    """One node's context (GE's KernelContext): shared value table, its value ids, attrs."""

    __slots__ = ("name", "values", "ins", "outs", "attrs")

    def __init__(self, name: str, values: list[Any], ins: tuple[int, ...],
                 outs: tuple[int, ...], attrs: dict[str, Any]) -> None:
        self.name, self.values, self.ins, self.outs, self.attrs = name, values, ins, outs, attrs


def register_kernel(name: str) -> Callable[[KernelFunc], KernelFunc]:
    def register(fn: KernelFunc) -> KernelFunc:
        if name in _KERNELS:
            raise ValueError(f"v2 kernel {name} registered twice")
        _KERNELS[name] = fn
        return fn
    return register


def get_kernel_func(name: str) -> KernelFunc:
    fn = _KERNELS.get(name)
    if fn is None:
        raise KeyError(f"no v2 kernel {name!r}; known: {', '.join(sorted(_KERNELS))}")
    return fn


def issue(stream: Any) -> None:
    """The host issues one task to ``stream``: it pays the cost model's host launch latency in
    simulated time before the task can start (see npu_emu.scheduler.cost_model)."""
    stream.device.host_issue()
