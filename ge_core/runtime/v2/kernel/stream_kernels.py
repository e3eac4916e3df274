"""Main's kernels that issue work to streams: an op's kernel, the cross-stream syncs the build
planned (Send / Recv events, notifies, StreamActive), and the host's final Synchronize. Each
issued task pays the host launch latency first (``issue``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ge_core.events import KernelLaunched
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, issue, register_kernel

if TYPE_CHECKING:
    from npu_emu.core.event import Event
    from npu_emu.core.stream import Stream


@register_kernel("LaunchKernelWithHandle")
def launch_kernel(ctx: KernelContext) -> None:
    v, ids, a = ctx.values, ctx.ins, ctx.attrs
    n = a["n_inputs"]
    stream = v[ids[0]]
    issue(stream)
    task = a["kernel"].launch(stream, [v[i] for i in ids[1:1 + n]], [v[i] for i in ids[1 + n:]])
    device = stream.device
    device.runtime.bus.emit(KernelLaunched, a["node"], task.name, stream.id, task.task_id,
                            device.host_now)


@register_kernel("RecordEvent")
def record_event(ctx: KernelContext) -> None:
    stream, event = ctx.values[ctx.ins[0]], ctx.values[ctx.ins[1]]
    issue(stream)
    stream.record_event(event)


@register_kernel("WaitEvent")
def wait_event(ctx: KernelContext) -> None:
    """Wait, then reset: an ordinary stream's wait leaves the event set, and the next
    execution's wait must block until the next record (aclrtStreamWaitEvent + ResetEvent)."""
    _wait_then_reset(ctx.values[ctx.ins[0]], ctx.values[ctx.ins[1]])


def _wait_then_reset(stream: Stream, event: Event) -> None:
    issue(stream)
    stream.wait_event(event)
    issue(stream)
    stream.reset_event(event)


@register_kernel("RecordNotify")
def record_notify(ctx: KernelContext) -> None:
    stream, notify = ctx.values[ctx.ins[0]], ctx.values[ctx.ins[1]]
    issue(stream)
    stream.record_notify(notify)


@register_kernel("WaitNotify")
def wait_notify(ctx: KernelContext) -> None:
    stream, notify = ctx.values[ctx.ins[0]], ctx.values[ctx.ins[1]]
    issue(stream)
    stream.wait_notify(notify)   # a notify wait clears it as it passes


@register_kernel("ActiveStream")
def active_stream(ctx: KernelContext) -> None:
    """StreamActive on ordinary streams: a v2 stream is always active, so "the target starts
    here" becomes "the target's next work waits for this point" - an event from the active
    node's stream to the target."""
    v = ctx.values
    stream, target, event = v[ctx.ins[0]], v[ctx.ins[1]], v[ctx.ins[2]]
    issue(stream)
    stream.record_event(event)
    _wait_then_reset(target, event)


@register_kernel("Synchronize")
def synchronize(ctx: KernelContext) -> None:
    """The host waits for every stream of the model; then every freed block is idle."""
    v = ctx.values
    for i in ctx.ins[1:]:
        v[i].synchronize()
    v[ctx.ins[0]].all_idle()
