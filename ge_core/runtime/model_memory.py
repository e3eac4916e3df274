"""A model's memory on the device (GE's DavinciModel::InitModelMem and the logical-address
translation every TaskInfo does). Shared by every executor that runs a built model: v1's
DavinciModel, and v2 / hybrid / single op for the parts they keep static.

A task's args hold *logical* addresses (om/logical_memory.py): the feature map from FEATURE_MAP_BASE
(zero-copy I/O right after it), variables from VAR_BASE, weights from WEIGHT_BASE. Loading gives
each segment one device block - allocated here, provided by the user (set feature memory base,
const memory base), or shared with another model loaded from the same weights - and translates
an address by its segment: device = segment's device base + (logical - segment's logical base).

The fixed feature map (DavinciModel::InitFixedFeatureMap): when the user provides fixed feature
memory (SetGraphFixedFeatureMemoryBase) and the model has fixed sub memories (graph_mem_splitter:
where HCCL's buffers are), those sub memories lie end to end in the user's memory and the model
allocates only the rest of its feature map, the refreshable part, which a feature memory base
given later re-points. Without it the model allocates all of it (GE mallocs the fixed part in
the session's allocator; here it is part of the model's one block).

    memory = ModelMemory.allocate(device, ge_model)       # or with bases the caller provides
    memory.translate(logical_addr) -> device address
    memory.release()                                      # frees only what it allocated
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ge_core.graph import ComputeGraph, GeTensor
from ge_core.compiler.memory.graph_mem_splitter import SubMemoryInfo, decode
from ge_core.graph.attr_names import ATTR_MODEL_SUB_MEMORY_INFO, ATTR_NAME_WEIGHTS, OUTPUT_OFFSET
from ge_core.om.logical_memory import (FEATURE_MAP_BASE, HOST_FM_BASE, VAR_BASE, WEIGHT_BASE,
                                       tensor_size)
from ge_core.om.weights import Weights
from ge_core.runtime.errors import ModelLoadError
from npu_emu.driver.events import HostMemAccess

if TYPE_CHECKING:
    from ge_core.om.ge_model import GeModel
    from npu_emu.core.device import Device
    from npu_emu.core.kernel_task import TensorArg

FEATURE_MAP, VARIABLE, WEIGHT = "feature_map", "variable", "weight"
FIXED_FEATURE_MAP = "fixed_feature_map"
LOGICAL_BASE = {FEATURE_MAP: FEATURE_MAP_BASE, VARIABLE: VAR_BASE, WEIGHT: WEIGHT_BASE,
                FIXED_FEATURE_MAP: FEATURE_MAP_BASE}
VARIABLE_OPS = frozenset({"Variable"})


@dataclass(frozen=True)
class Segment:
    name: str
    size: int
    device_base: int      # 0 when size is 0: nothing lives there
    owned: bool           # allocated by this ModelMemory (and so freed by it)
    offset: int = 0       # where in its region it starts (a feature map's sub memory)

    @property
    def logical_base(self) -> int:
        return LOGICAL_BASE[self.name] + self.offset

    def contains(self, logical: int) -> bool:
        return self.logical_base <= logical < self.logical_base + self.size


def variable_bytes(graph: ComputeGraph) -> int:
    """The variable segment's extent: the end of the furthest tensor placed in it."""
    end = VAR_BASE
    for node in graph.all_nodes():
        for addr, desc in zip(node.op_desc.get_attr(OUTPUT_OFFSET) or [],
                              node.op_desc.output_descs):
            if VAR_BASE <= addr < WEIGHT_BASE:
                end = max(end, addr + tensor_size(desc))
    return end - VAR_BASE


def fixed_sub_memories(ge_model: GeModel) -> tuple[SubMemoryInfo, ...]:
    return tuple(s for s in decode(ge_model.task_def.attr[ATTR_MODEL_SUB_MEMORY_INFO]) if s.fixed)


def fixed_feature_bytes(ge_model: GeModel) -> int:
    """The fixed feature memory a user must provide (GE's summary GetFixedFeatureMemorySize)."""
    return sum(s.size for s in fixed_sub_memories(ge_model))


def _refreshable(total: int, fixed: tuple[SubMemoryInfo, ...]) -> list[tuple[int, int]]:
    """The feature map's (offset, size) ranges outside the fixed sub memories."""
    ranges, at = [], 0
    for sub in sorted(fixed, key=lambda s: s.base):
        if sub.base > at:
            ranges.append((at, sub.base - at))
        at = sub.base + sub.size
    if total > at:
        ranges.append((at, total - at))
    return ranges


def segment_sizes(ge_model: GeModel) -> dict[str, int]:
    """Bytes each segment needs on the device (CheckAndReleaseMemory weighs a model by these)."""
    return {FEATURE_MAP: ge_model.task_def.memory_size, VARIABLE: variable_bytes(ge_model.graph),
            WEIGHT: len(ge_model.weights)}


def host_to_device(device: Device, dst: int, data: bytes | np.ndarray | Weights) -> None:
    """A synchronous host-to-device copy of host data the runtime holds no pointer to (GE's
    rtMemcpy of a weight buffer): trace-visible as the host touching device memory. A weight
    buffer's pieces are copied each straight to its place (om/weights.py)."""
    nbytes = data.nbytes if isinstance(data, np.ndarray) else len(data)
    device.runtime.bus.emit(HostMemAccess, dst, nbytes, True)
    if isinstance(data, Weights):
        data.copy_into(device.memory.view(dst, (nbytes,), np.uint8))
        device.memory.wrote(dst)
    else:
        device.memory.write(dst, data)


def device_to_host(device: Device, arg: TensorArg) -> np.ndarray:
    """A synchronous device-to-host copy of a tensor (aclrtMemcpy D2H), trace-visible as the
    host reading device memory."""
    out = np.empty(arg.shape, arg.dtype)
    if out.nbytes:
        device.runtime.bus.emit(HostMemAccess, arg.addr, out.nbytes, False)
        out[...] = device.memory.view(arg.addr, arg.shape, arg.dtype)
    return out


class ModelMemory:
    def __init__(self, device: Device, segments: list[Segment]) -> None:
        self.device = device
        self.segments = segments

    @staticmethod
    def allocate(device: Device, ge_model: GeModel,
                 provided: dict[str, int] | None = None) -> "ModelMemory":
        """One block per non-empty segment: the device base in ``provided`` (by segment name)
        when given - the caller owns it - else a fresh allocation. Weights given here are the
        caller's to fill; allocated ones are filled from the model. With FIXED_FEATURE_MAP
        provided, the feature map's fixed sub memories lie there and the rest in its own block."""
        provided = provided or {}
        sizes = segment_sizes(ge_model)
        fixed = fixed_sub_memories(ge_model) if FIXED_FEATURE_MAP in provided else ()
        if fixed and FEATURE_MAP not in provided:
            sizes[FEATURE_MAP] -= sum(s.size for s in fixed)
        need = sum(size for name, size in sizes.items() if name not in provided)
        if need > device.memory.free_bytes():   # the plan against the device, before any malloc
            plan = ", ".join(f"{name.replace('_', ' ')} {size:,} B"
                             for name, size in sizes.items() if size and name not in provided)
            raise ModelLoadError(f"model {ge_model.name} needs {need:,} bytes of device memory "
                                 f"({plan}); device {device.id} has "
                                 f"{device.memory.free_bytes():,} free")
        segments: list[Segment] = []
        try:
            for name, size in sizes.items():
                if name == FEATURE_MAP and fixed:
                    segments += _fixed_segments(fixed, provided[FIXED_FEATURE_MAP])
                    base = provided.get(FEATURE_MAP) or (device.malloc(size) if size else 0)
                    segments += _laid(_refreshable(segment_sizes(ge_model)[FEATURE_MAP], fixed),
                                      base, FEATURE_MAP not in provided)
                elif size == 0:
                    segments.append(Segment(name, 0, 0, False))
                elif name in provided:
                    segments.append(Segment(name, size, provided[name], False))
                else:
                    segments.append(Segment(name, size, device.malloc(size), True))
                    if name == WEIGHT:
                        host_to_device(device, segments[-1].device_base, ge_model.weights)
                if name == WEIGHT and size:   # the caller's block too: its writes move the epoch
                    device.memory.mark_constant(segments[-1].device_base)
        except Exception:
            ModelMemory(device, segments).release()
            raise
        return ModelMemory(device, segments)

    def segment(self, name: str) -> Segment:
        return next(s for s in self.segments if s.name == name)

    def translate(self, logical: int) -> int:
        for s in self.segments:
            if s.contains(logical):
                return s.device_base + logical - s.logical_base
        where = "the host feature map, which no device task can reach" \
            if logical >= HOST_FM_BASE else "no segment of the model"
        raise ModelLoadError(f"logical address {logical:#x} lies in {where} "
                             f"({', '.join(f'{s.name} {s.size} B' for s in self.segments)})")

    def rebase(self, name: str, device_base: int) -> None:
        """Point a segment at memory the caller provides (UpdateGraphFeatureMemoryBase): the
        feature map's refreshable parts lie end to end from ``device_base``."""
        old = [s for s in self.segments if s.name == name]
        for s in old:
            if s.owned:
                self.device.free(s.device_base)
        new = _laid([(s.offset, s.size) for s in old], device_base, False)
        self.segments = [s for s in self.segments if s.name != name] + new

    def release(self) -> None:
        for s in self.segments:
            if s.owned:
                self.device.free(s.device_base)
        self.segments = [Segment(s.name, s.size, 0, False) for s in self.segments]

    @property
    def total_bytes(self) -> int:
        return sum(s.size for s in self.segments)


def _fixed_segments(fixed: tuple[SubMemoryInfo, ...], base: int) -> list[Segment]:
    """InitFixedFeatureMap: the fixed sub memories end to end in the user's memory."""
    out, at = [], base
    for sub in fixed:
        out.append(Segment(FIXED_FEATURE_MAP, sub.size, at, False, sub.base))
        at += sub.size
    return out


def _laid(ranges: list[tuple[int, int]], base: int, owned: bool) -> list[Segment]:
    """Feature-map ranges end to end from ``base``; the first owns the block when ``owned``."""
    out, at = [], base
    for k, (offset, size) in enumerate(ranges):
        out.append(Segment(FEATURE_MAP, size, at if size else 0, owned and k == 0, offset))
        at += size
    return out or [Segment(FEATURE_MAP, 0, 0, False)]


def trans_all_var_data(memory: ModelMemory, graph: ComputeGraph) -> int:
    """GE's TransAllVarData: each Variable's initial value copied to its place in the variable
    segment. Returns how many were copied."""
    copied = 0
    for node in graph.all_nodes():
        value = node.op_desc.get_attr(ATTR_NAME_WEIGHTS)
        offsets = node.op_desc.get_attr(OUTPUT_OFFSET) or []
        if node.type in VARIABLE_OPS and isinstance(value, GeTensor) and offsets:
            host_to_device(memory.device, memory.translate(offsets[0]),
                           np.ascontiguousarray(value.data))
            copied += 1
    return copied
