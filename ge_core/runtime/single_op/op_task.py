"""The tasks a single op launches (GE's runtime/v1/single_op/task/op_task.h): made once from the
op's TaskDefs when the op is built, launched straight on the caller's stream at every execution,
no model and no executor in between.

    TbeOpTask        a TBE kernel: KERNEL with kernel type TE (on the AI Core, or on the vector
                     cores for the VectorEngine's kernels)
    AiCpuCCTask      an AI CPU kernel of CANN's own: KERNEL with kernel type AI_CPU / CUST_AI_CPU
    AiCpuTask        a TensorFlow AI CPU kernel: KERNEL_EX
    MemcpyAsyncTask  a device-to-device copy: MEMCPY_ASYNC (GE's RtsKernelTaskBuilder)

A task's ``args`` are device addresses, the args table the TaskDef laid out; the single op's arg
table points at the entries that hold a Data's output or a NetOutput's input, and each execution
writes the caller's buffers there (GE's SingleOpImpl::UpdateArgs). A dynamic op's one task is
launched with the shapes of each call instead (``launch_with``): its run info (InferShape, GE's
UpdateRunInfo before tiling) comes from the inputs.
"""
from __future__ import annotations

from typing import Sequence

from ge_core.graph import DataType, GeTensorDesc, OpDesc
from ge_core.model_task_type import KernelType
from ge_core.ops.shape_refiner import infer_for_inputs
from ge_core.runtime.errors import GeError
from ge_core.runtime.op_kernel import OpKernel, tensor_args
from npu_emu.core.kernel_task import TensorArg
from npu_emu.core.stream import Stream
from npu_emu.scheduler.cost_model import Unit
from npu_emu.scheduler.task import MemcpyTask, Task


class OpTask:
    """One task of a single op: its op, its args table (device addresses)."""

    def __init__(self, op_desc: OpDesc, args: list[int]) -> None:
        self.op_desc = op_desc
        self.args = args

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.op_desc.name})"

    def launch_kernel(self, stream: Stream) -> Task:
        """Put the task on ``stream`` with its args as they stand (GE's LaunchKernel)."""
        raise NotImplementedError


class KernelOpTask(OpTask):
    """A kernel launch: the op's kernel resolved once, on the unit its kernel type names."""

    def __init__(self, op_desc: OpDesc, args: list[int], opset: int, unit: Unit) -> None:
        super().__init__(op_desc, args)
        self.kernel = OpKernel.of(op_desc, opset, unit)
        self.opset = opset

    def launch_kernel(self, stream: Stream) -> Task:
        return self.kernel.launch(stream, *tensor_args(self.op_desc, self.args))

    def update_run_info(self, inputs: Sequence[TensorArg | None]) -> list[GeTensorDesc]:
        """The output descs for this call's input shapes (a dynamic op's InferShape)."""
        descs = infer_for_inputs(self.op_desc, [None if a is None else
                                                (a.shape, DataType.from_numpy(a.dtype))
                                                for a in inputs], {}, self.opset)
        unknown = [i for i, d in enumerate(descs) if d.shape.is_unknown]
        if unknown:
            raise GeError(f"single op {self.op_desc.type}: output {unknown[0]}'s shape depends "
                          f"on input values, which its one task cannot read")
        return descs

    def launch_with(self, stream: Stream, inputs: Sequence[TensorArg | None],
                    outputs: Sequence[TensorArg]) -> Task:
        """A dynamic op's launch: this call's tensors (GE's LaunchKernel with descs)."""
        return self.kernel.launch(stream, inputs, outputs)


class TbeOpTask(KernelOpTask):
    """A TBE kernel (SingleOpModel::BuildKernelTask)."""


class AiCpuCCTask(KernelOpTask):
    """An AI CPU kernel of CANN's own (SingleOpModel::BuildCpuKernelTask)."""


class AiCpuTask(KernelOpTask):
    """A TensorFlow AI CPU kernel (SingleOpModel::BuildKernelExTask)."""


class MemcpyAsyncTask(OpTask):
    """A device-to-device copy of ``count`` bytes: args are [dst, src]."""

    def __init__(self, op_desc: OpDesc, args: list[int], count: int) -> None:
        super().__init__(op_desc, args)
        self.count = count

    def launch_kernel(self, stream: Stream) -> Task:
        (dst, src), n, device = self.args, self.count, stream.device
        return device.submit(stream, MemcpyTask(dst, src, n, device.cost.memcpy_ns(n, False),
                                                Unit.SDMA, ((src, n),), ((dst, n),)))


# SingleOpModel::BuildKernelAndExTask: a KERNEL task's kernel type picks the class; any other is
# ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID. The VectorEngine's kernels are TBE kernels in GE (their
# KernelType here only says they run on the vector cores).
KERNEL_TASK_OF_TYPE: dict[KernelType, type[KernelOpTask]] = {
    KernelType.TE: TbeOpTask, KernelType.MIX_VECTOR_CORE: TbeOpTask,
    KernelType.AI_CPU: AiCpuCCTask, KernelType.CUST_AI_CPU: AiCpuCCTask}

# SingleOpModel::BuildTaskListForDynamicOp picks by the op's kernel library (AIcoreEngine,
# aicpu_ascend_kernel, aicpu_tf_kernel); here by the engine the compiler placed the op on.
DYNAMIC_TASK_OF_ENGINE: dict[str, tuple[type[KernelOpTask], KernelType]] = {
    "AIcoreEngine": (TbeOpTask, KernelType.TE),
    "VectorEngine": (TbeOpTask, KernelType.MIX_VECTOR_CORE),
    "DNN_VM_AICPU_ASCEND": (AiCpuCCTask, KernelType.AI_CPU),
    "DNN_VM_AICPU": (AiCpuTask, KernelType.AI_CPU)}
