"""Kernel binaries (seed 003 §1.3.6; hicann/runtime src/runtime/core/inc/kernel/program.hpp).

aclrtBinaryLoadFromData / FromFile -> BinaryLoader::Load -> a Program registering its Kernels,
found by name (Program::GetKernelByName, ``kernelNameMap_``) or by function entry, the tiling key
(Program::AllKernelLookup: a binary search of ``KernelTable_``, kept sorted by key). The first
GetFunction copies the binary to the device (Program::Load2Device, 4 KiB aligned); a launch names
a function handle and an args table, and becomes a kernel task on the stream like any other.

There is no instruction set to emulate, so an emulated binary is JSON: its kernels, each naming
the numpy kernel it runs and the tensors it was compiled for (an Ascend C kernel is built for its
tiling, one variant per tiling key)::

    {"kernels": [{"name": "add_custom_8", "kernel": "Add",
                  "inputs": [["float32", [8]], ["float32", [8]]],
                  "outputs": [["float32", [8]]], "attrs": {}}]}

As ElfProgram::ParseTilingKey reads it, a kernel's tiling key is the numeric suffix of its name
after the last ``_`` (none: 0). The runtime's name table (KernelTable: KernelRegister /
KernelLookup) stays for kernels launched by op type.
"""
from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from npu_emu.base.errors import InvalidHandleError, InvalidParamError, KernelLookupError
from npu_emu.core.kernel_task import KernelTask, TensorArg, make_kernel_task, tensor_arg
from npu_emu.scheduler.cost_model import Unit

if TYPE_CHECKING:
    from npu_emu.core.device import Device
    from npu_emu.core.stream import Stream

DEVICE_ALIGN = 4096   # Program::Load2Device places a binary on a 4 KiB boundary


class BinaryFormatError(InvalidParamError):
    """A binary this runtime cannot register; the message says which kernel and field."""


@dataclass(frozen=True)
class Kernel:
    """One function of a program: what aclrtBinaryGetFunction's handle stands for."""

    program: Program = field(repr=False, compare=False)
    name: str
    tiling_key: int
    op_type: str                                  # the numpy kernel it runs
    inputs: tuple[tuple[str, tuple[int, ...]], ...]
    outputs: tuple[tuple[str, tuple[int, ...]], ...]
    attrs: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def arg_count(self) -> int:
        return len(self.inputs) + len(self.outputs)

    def task(self, device: Device, addresses: Sequence[int], block_dim: int = 1,
             unit: Unit | None = None) -> KernelTask:
        """The kernel task a launch submits (or a fusion launch takes): the args table holds
        one device address per input, then per output, in the order the kernel was compiled
        with."""
        if block_dim < 1:
            raise InvalidParamError(f"kernel {self.name}: block dim {block_dim}")
        if len(addresses) != self.arg_count:
            raise InvalidParamError(f"kernel {self.name} takes {self.arg_count} args "
                                    f"({len(self.inputs)} in, {len(self.outputs)} out); the "
                                    f"args table has {len(addresses)}")
        self.program.load_to_device(device)
        args = [tensor_arg(a, shape, dtype)
                for a, (dtype, shape) in zip(addresses, self.inputs + self.outputs)]
        return make_kernel_task(device, self.op_type, tuple(args[:len(self.inputs)]),
                                tuple(args[len(self.inputs):]), self.attrs, unit=unit)

    def launch(self, stream: Stream, addresses: Sequence[int], block_dim: int = 1) -> KernelTask:
        """aclrtLaunchKernel*: by function handle, on ``stream``."""
        return stream.device.submit(stream, self.task(stream.device, addresses, block_dim))


def tiling_key_of(name: str) -> int:
    """ElfProgram::ParseTilingKey: the digits after the last ``_``, else 0."""
    _, sep, suffix = name.rpartition("_")
    return int(suffix) if sep and suffix.isdecimal() else 0


class Program:
    """A loaded binary: its kernels by name and by tiling key, and where it sits on the device."""

    def __init__(self, data: bytes) -> None:
        self.data = bytes(data)
        self.kernels = [self._kernel(k) for k in _kernel_specs(self.data)]
        self.index()
        self.device: Device | None = None
        self.dev_addr: int | None = None
        self.unloaded = False

    def index(self) -> None:
        """The lookup tables of ``kernels``: by name, and sorted by tiling key."""
        self._by_name = {k.name: k for k in self.kernels}
        if len(self._by_name) != len(self.kernels):
            raise BinaryFormatError("two kernels of the binary share a name")
        self._table = sorted((k.tiling_key, k.name) for k in self.kernels)

    def _kernel(self, spec: Any) -> Kernel:
        where = f"kernel {spec.get('name', '?')!r}" if isinstance(spec, dict) else "a kernel"
        try:
            return Kernel(self, str(spec["name"]), tiling_key_of(str(spec["name"])),
                          str(spec["kernel"]), _tensors(spec["inputs"]),
                          _tensors(spec["outputs"]), dict(spec.get("attrs") or {}))
        except (KeyError, TypeError, ValueError, InvalidParamError) as exc:
            raise BinaryFormatError(f"binary: {where}: bad or missing field {exc}") from None

    def kernel_by_name(self, name: str) -> Kernel:
        kernel = self._by_name.get(name)
        if kernel is None:
            raise KernelLookupError(f"no kernel {name!r} in the binary (kernels: "
                                    f"{', '.join(self._by_name) or 'none'})")
        return kernel

    def kernel_by_tiling_key(self, key: int) -> Kernel:
        i = bisect.bisect_left(self._table, (key, ""))
        if i == len(self._table) or self._table[i][0] != key:
            raise KernelLookupError(f"no kernel with tiling key {key} in the binary (keys: "
                                    f"{', '.join(str(k) for k, _ in self._table) or 'none'})")
        return self._by_name[self._table[i][1]]

    @property
    def dev_size(self) -> int:
        return -(-len(self.data) // DEVICE_ALIGN) * DEVICE_ALIGN

    def load_to_device(self, device: Device) -> int:
        """Program::Load2Device, once: the binary's bytes in device memory."""
        if self.unloaded:
            raise InvalidHandleError("the binary was unloaded: its functions are gone with it")
        if self.dev_addr is None:
            self.device, self.dev_addr = device, device.malloc(self.dev_size)
            device.memory.write(self.dev_addr, np.frombuffer(self.data, np.uint8))
        elif device is not self.device:
            raise InvalidParamError(f"the binary is loaded on device {self.device.id}, not "
                                    f"{device.id}")
        return self.dev_addr

    def unload(self) -> None:
        """aclrtBinaryUnLoad: the device copy is freed, the functions can no longer launch."""
        self.unloaded = True
        if self.dev_addr is not None:
            self.device.free(self.dev_addr)
            self.device = self.dev_addr = None


def _kernel_specs(data: bytes) -> list[Any]:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BinaryFormatError(f"binary: not an npu_emu kernel binary (JSON): {exc}") from None
    kernels = doc.get("kernels") if isinstance(doc, dict) else None
    if not isinstance(kernels, list) or not kernels:
        raise BinaryFormatError('binary: no "kernels" list')
    return kernels


def _tensors(specs: Any) -> tuple[tuple[str, tuple[int, ...]], ...]:
    out = []
    for dtype, shape in specs:
        arg: TensorArg = tensor_arg(0, shape, dtype)   # checks the dtype and dims
        out.append((arg.dtype, arg.shape))
    return tuple(out)
