"""A model's inputs and outputs on each execution (GE's CopyModelData / CopyOutputData around
DavinciModel::NnExecute), over the zero-copy offsets InitIoNodes made.

What the caller gives is checked whole first, so a bad input leaves the model as it was. Then
each input given as a DeviceBuffer is bound (its readers' args point at it: no copy); a host
array is copied into the model's own buffer: in sync mode by an aclrtMemcpy straight from the
array, in async mode through a host staging buffer by a MemcpyAsync on the execution stream (so
it shows on the timeline and costs device time, and the caller may reuse its array at once).
Outputs the caller gives buffers for are bound where the model writes them straight there;
every other output is copied, after the execution, to the caller's buffer, or (sync mode, no
buffers given) into a fresh host array. A multi-batch model's inputs and outputs are those of
the gear the inputs name (multi_batch_data.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from ge_core.graph.multi_batch_gears import Dims, Gears
from ge_core.runtime.errors import ModelInputError, ModelOutputError
from ge_core.runtime.model_memory import device_to_host, host_to_device
from ge_core.runtime.model_io import DeviceBuffer, IoDesc, check_feed
from ge_core.runtime.v1.data_inputer import Inputs, Outputs
from ge_core.runtime.v1.multi_batch_data import gear_inputs, output_dims
from ge_core.runtime.v1.zero_copy import ZeroCopyOffset, zero_copy_outputs
from npu_emu.core.kernel_task import TensorArg

if TYPE_CHECKING:
    from npu_emu.core.stream import Stream
    from npu_emu.runtime import Runtime

Buffers = Sequence[DeviceBuffer] | None


class ModelDataCopy:
    def __init__(self, runtime: Runtime, name: str, inputs: list[IoDesc], outputs: list[IoDesc],
                 translate: Callable[[int], int], gears: Gears | None = None) -> None:
        self.runtime = runtime
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.gears = gears
        self.gear: int | None = None        # the gear of the execution under way
        self.zero_copy_inputs = [ZeroCopyOffset("input", io, translate(io.logical_addr))
                                 for io in inputs]
        self.zero_copy_outputs = [
            ZeroCopyOffset("output", io, translate(io.logical_addr)) if zero_copy else None
            for io, zero_copy in zip(outputs, zero_copy_outputs(inputs, outputs))]
        self._staging: dict[int, int] = {}   # by input: host buffers of async copies in

    @property
    def offsets(self) -> list[ZeroCopyOffset]:
        return [*self.zero_copy_inputs, *filter(None, self.zero_copy_outputs)]

    def offset_of(self, logical: int) -> ZeroCopyOffset | None:
        return next((o for o in self.offsets if o.contains(logical)), None)

    def rebase(self, translate: Callable[[int], int]) -> None:
        """The model's own buffers moved (a new feature map base): follow them."""
        for offset in self.offsets:
            own = offset.bound == offset.internal
            offset.internal = translate(offset.io.logical_addr)
            if own:
                offset.bound = offset.internal

    # -- before the execution ------------------------------------------------------------------
    def copy_in(self, inputs: Inputs, outputs: Buffers, stream: Stream | None) -> None:
        """CopyModelData: bind or copy in each input; bind each zero-copy output. A copy is
        queued on ``stream`` (async mode: aclrtMemcpyAsync), or done now without one (sync
        mode: aclrtMemcpy; GE's DavinciModel::CopyInputData picks by is_async_mode_)."""
        values, dims = self._checked_inputs(inputs)
        self._check_outputs(outputs)
        for offset, value, shape in zip(self.zero_copy_inputs, values, dims):
            io = offset.io
            if isinstance(value, DeviceBuffer):
                offset.bind(value.addr)
                continue
            offset.bind(offset.internal)
            if value.nbytes and stream is None:
                # aclrtMemcpy straight from the caller's buffer: one copy, where staging it in a
                # host buffer first made two (ShuffleNet's 600 KB image twice a run)
                host_to_device(self.runtime.device(), offset.internal, value)
            elif value.nbytes:
                host = self._staged(io)
                self.runtime.host.view(host, shape, io.dtype)[...] = value.reshape(shape)
                self._copy(stream, offset.internal, host, value.nbytes)
        for j, offset in enumerate(self.zero_copy_outputs):
            if offset is not None:
                offset.bind(outputs[j].addr if outputs is not None else offset.internal)

    def _checked_inputs(self, inputs: Inputs) -> tuple[list[Any], list[Dims]]:
        """The inputs in model order, each a DeviceBuffer or a host array that fits, and each
        one's dims this execution."""
        if self.gears is not None:
            gear = gear_inputs(self.gears, self.inputs, self.name, inputs)
            self.gear, inputs, dims = gear.gear, gear.values, gear.dims
        else:
            dims = [io.dims for io in self.inputs]
        if isinstance(inputs, Mapping):
            missing = [io.name for io in self.inputs if io.name not in inputs]
            if missing:
                raise ModelInputError(f"model {self.name}: no value for input(s) "
                                      f"{', '.join(missing)}")
            inputs = [inputs[io.name] for io in self.inputs]
        if len(inputs) != len(self.inputs):
            raise ModelInputError(f"model {self.name} takes {len(self.inputs)} inputs, "
                                  f"{len(inputs)} given")
        checked = []
        for io, value, shape in zip(self.inputs, inputs, dims):
            if isinstance(value, DeviceBuffer):
                _check_buffer(io, value, ModelInputError)
            else:
                value = check_feed(io.name, value, shape, io.dtype.name)
            checked.append(value)
        return checked, dims

    def _check_outputs(self, outputs: Buffers) -> None:
        if outputs is None:
            return
        if len(outputs) != len(self.outputs):
            raise ModelOutputError(f"model {self.name} has {len(self.outputs)} outputs, "
                                   f"{len(outputs)} buffers given")
        for io, buffer in zip(self.outputs, outputs):
            _check_buffer(io, buffer, ModelOutputError)

    # -- after the execution -------------------------------------------------------------------
    def copy_out(self, outputs: Buffers, stream: Stream | None,
                 resolve: Callable[[int], int]) -> None:
        """CopyOutputData, after the execution (queued on ``stream``, or done now): each output
        the model did not write straight into the caller's buffer is copied there from where it
        lives."""
        for io in self.outputs:
            if not io.nbytes:
                continue
            src, dst = resolve(io.logical_addr), outputs[io.index].addr
            if dst != src:
                self._copy(stream, dst, src, io.nbytes)

    def _copy(self, stream: Stream | None, dst: int, src: int, count: int) -> None:
        if stream is None:
            self.runtime.memcpy(dst, src, count)
        else:
            stream.memcpy_async(dst, src, count)

    def host_outputs(self, resolve: Callable[[int], int]) -> Outputs:
        """Sync mode with no buffers given: the outputs as fresh host arrays, each copied once
        from where it lives (aclrtMemcpy into the caller's host memory), shaped by the model's
        output descs (a static model's UpdateOutputTensorShape; a gear's tensor is the start of
        a buffer sized for the largest gear, and only it is copied)."""
        device = self.runtime.device()
        dims = ([io.dims for io in self.outputs] if self.gear is None
                else output_dims(self.gears, self.gear, self.outputs))
        return {io.name: device_to_host(device, TensorArg(resolve(io.logical_addr), tuple(d),
                                                          io.dtype))
                if io.nbytes else np.zeros(d, io.dtype) for io, d in zip(self.outputs, dims)}

    def _staged(self, io: IoDesc) -> int:
        if io.index not in self._staging:
            self._staging[io.index] = self.runtime.host.malloc(io.nbytes)
        return self._staging[io.index]

    def release(self) -> None:
        for addr in self._staging.values():
            self.runtime.host.free(addr)
        self._staging.clear()


def _check_buffer(io: IoDesc, buffer: DeviceBuffer, error: type[Exception]) -> None:
    if buffer.size < io.nbytes:
        raise error(f"{io.describe()} needs {io.nbytes} bytes, the buffer given has "
                    f"{buffer.size}")
