"""An op's kernel as the device sees it: its tensor descs and device addresses -> an npu_emu
KernelTask. Shared by every executor: v1's KernelTaskInfo builds the task it sinks into a model
from here, and a host-scheduled executor (hybrid, v2, single op) launches node by node with
an ``OpKernel``
(resolved once per op, launched on tensors the executor allocated).

The addresses are an args table as GE's task builder lays it out (task_builder.kernel_args):
each *present* input, then each output, then each workspace. An optional input the model left
out has no entry; the op's input descs say which (``desc.absent``), and the kernel gets None
there. Our numpy kernels take no workspace, so workspace addresses are checked, not passed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from ge_core.graph import GeTensorDesc, OpDesc
from ge_core.graph.op_desc import kernel_attrs
from ge_core.model_task_type import KernelType
from npu_emu.base.errors import InvalidParamError
from npu_emu.core.kernel_task import KernelTask, TensorArg, make_kernel_task, tensor_arg
from npu_emu.scheduler.cost_model import Unit

if TYPE_CHECKING:
    from npu_emu.core.device import Device
    from npu_emu.core.stream import Stream
    from npu_emu.scheduler.task import Task

LATEST_OPSET = 10_000

# Which unit runs a kernel, by who compiled it (KernelContext.kernel_type): TBE kernels on the
# AI Core, vector-only ones on the AI Vector cores, AI CPU kernels (KERNEL_EX tasks) on the CPU.
UNIT_OF_KERNEL_TYPE = {KernelType.TE: Unit.AI_CORE, KernelType.TE_AI_CORE: Unit.AI_CORE,
                       KernelType.CCE_AI_CORE: Unit.AI_CORE, KernelType.MIX_AICORE: Unit.AI_CORE,
                       KernelType.MIX_VECTOR_CORE: Unit.AI_VECTOR,
                       KernelType.AI_CPU: Unit.AI_CPU, KernelType.CCE_AI_CPU: Unit.AI_CPU,
                       KernelType.TE_AI_CPU: Unit.AI_CPU, KernelType.CUST_AI_CPU: Unit.AI_CPU,
                       KernelType.DVPP: Unit.DVPP}
# The same by engine, for an executor that lowers by the op's engine (v2): each kernel-launching
# engine's kernels get the kernel type the task builder gives them (compiler/task/task_builder.py).
UNIT_OF_ENGINE = {engine: UNIT_OF_KERNEL_TYPE[kernel_type] for engine, kernel_type in
                  (("AIcoreEngine", KernelType.TE), ("VectorEngine", KernelType.MIX_VECTOR_CORE),
                   ("DNN_VM_AICPU", KernelType.AI_CPU), ("DNN_VM_AICPU_ASCEND", KernelType.AI_CPU),
                   ("DNN_VM_DVPP", KernelType.DVPP))}


def _arg(addr: int, desc: GeTensorDesc) -> TensorArg:
    if desc.shape.is_unknown:
        raise InvalidParamError(f"tensor {desc} has unknown dims: give its run-time shape")
    return tensor_arg(addr, desc.shape.dims, desc.dtype.to_numpy())


def args_count(op_desc: OpDesc) -> int:
    """Entries an args table for ``op_desc`` has before its workspaces."""
    return sum(not d.absent for d in op_desc.input_descs) + len(op_desc.output_descs)


def tensor_args(op_desc: OpDesc, addresses: Sequence[int]
                ) -> tuple[tuple[TensorArg | None, ...], tuple[TensorArg, ...]]:
    """The kernel's inputs (None for an absent one) and outputs from an args table."""
    need = args_count(op_desc)
    if len(addresses) < need:
        raise InvalidParamError(f"{op_desc.name} ({op_desc.type}): args table of "
                                f"{len(addresses)} addresses, the op needs {need}")
    it = iter(addresses)
    inputs = tuple(None if d.absent else _arg(next(it), d) for d in op_desc.input_descs)
    outputs = tuple(_arg(next(it), d) for d in op_desc.output_descs)
    return inputs, outputs


@dataclass(frozen=True)
class OpKernel:
    """An op's kernel resolved once - type, opset, the kernel's attrs, the unit - and launched
    on any tensors: what a TBE kernel handle is to GE's launches."""

    op_type: str
    opset: int
    attrs: dict[str, Any]
    unit: Unit | None = None    # None: the cost model's default for the op type

    @staticmethod
    def of(op_desc: OpDesc, opset: int = LATEST_OPSET, unit: Unit | None = None) -> "OpKernel":
        return OpKernel(op_desc.type, opset, kernel_attrs(op_desc), unit)

    def task(self, device: Device, inputs: Sequence[TensorArg | None],
             outputs: Sequence[TensorArg]) -> KernelTask:
        """The kernel task on these tensors (None for an absent input), not yet submitted."""
        return make_kernel_task(device, self.op_type, tuple(inputs), tuple(outputs), self.attrs,
                                opset=self.opset, unit=self.unit)

    def launch(self, stream: Stream, inputs: Sequence[TensorArg | None],
               outputs: Sequence[TensorArg]) -> Task:
        """aclrtLaunchKernel on ``stream`` (host-scheduled execution)."""
        return stream.device.submit(stream, self.task(stream.device, inputs, outputs))
