"""Main's kernels for a DEPEND_COMPUTE AI CPU op (see lowering/depend_compute_converter.py):
its launch with result summaries for outputs, the stream sync the host needs before reading
them, the read, and the copy into the outputs allocated at the real sizes."""
from __future__ import annotations

from ge_core.events import KernelLaunched
from ge_core.runtime.v2.execute_graph import TensorSpec
from ge_core.runtime.v2.kernel.kernel_registry import KernelContext, issue, register_kernel
from npu_emu.core.result_summary import SummaryCopyTask, make_summary_kernel_task, read_summary
from npu_emu.scheduler.cost_model import Unit


@register_kernel("LaunchKernelWithSummary")
def launch_kernel_with_summary(ctx: KernelContext) -> None:
    v, ids, a = ctx.values, ctx.ins, ctx.attrs
    n, kernel = a["n_inputs"], a["kernel"]
    stream = v[ids[0]]
    device = stream.device
    issue(stream)
    task = make_summary_kernel_task(device, kernel.op_type, tuple(v[i] for i in ids[1:1 + n]),
                                    tuple(v[i] for i in ids[1 + n:]), kernel.attrs,
                                    kernel.opset, kernel.unit)
    device.submit(stream, task)
    device.runtime.bus.emit(KernelLaunched, a["node"], task.name, stream.id, task.task_id,
                            device.host_now)


@register_kernel("SyncStream")
def sync_stream(ctx: KernelContext) -> None:
    ctx.values[ctx.ins[0]].synchronize()


@register_kernel("GetSummaryOutputs")
def get_summary_outputs(ctx: KernelContext) -> None:
    """Per output: the kernel's result buffer (with its real shape) and the output's spec."""
    v = ctx.values
    device = v[ctx.ins[0]].device
    n = len(ctx.ins) - 1
    for i, (summary, dtype) in enumerate(zip(ctx.ins[1:], ctx.attrs["dtypes"])):
        result, shape_addr = read_summary(device, v[summary], dtype)
        v[ctx.outs[i]] = (result, shape_addr)
        v[ctx.outs[n + i]] = TensorSpec(result.shape, result.dtype)


@register_kernel("CopySummaryOutputs")
def copy_summary_outputs(ctx: KernelContext) -> None:
    v = ctx.values
    stream = v[ctx.ins[0]]
    n = (len(ctx.ins) - 1) // 2
    results = [v[i] for i in ctx.ins[1:1 + n]]
    outputs = [v[i] for i in ctx.ins[1 + n:]]
    released = [addr for result, shape_addr in results for addr in (result.addr, shape_addr)]
    nbytes = sum(result.nbytes for result, _ in results)
    device = stream.device
    issue(stream)
    duration = device.cost.kernel_ns("MemCopy", Unit.AI_CPU, [], [], 2 * nbytes)
    device.submit(stream, SummaryCopyTask([(r, o) for (r, _), o in zip(results, outputs)],
                                          released, duration, Unit.AI_CPU))
