"""Execution units and the cost model: how long a task occupies its unit, in simulated ns.

Documented numbers, not measurements of any chip; they only need to be plausible in ratio so
that a timeline teaches the right lessons (a MatMul is compute-bound, a Relu memory-bound, an
H2D copy slow, a sync task almost free).

- every task: ``launch_ns`` of TS dispatch overhead (sync and control tasks cost only this)
- cube ops (MatMul, Gemm, Conv, ConvTranspose) on an AI Core: FLOPs / ``cube_flops_per_ns``
- other kernels on AI Vector (or AI Core if asked): bytes moved / ``vector_bytes_per_ns``
- AI CPU kernels: ``aicpu_launch_ns`` + bytes / ``aicpu_bytes_per_ns``
- DVPP kernels: bytes / ``dvpp_bytes_per_ns``
- memcpy on an SDMA engine: bytes / ``h2d_bytes_per_ns`` (host side) or ``d2d_bytes_per_ns``
- HCCL collectives on the link: ``hccl_latency_ns`` + bytes / ``hccl_bytes_per_ns``
- the host, not the device: ``host_launch_ns`` to issue one task from a host-scheduled executor
  (GE's v2 and hybrid executors, single op). Such an executor calls ``Device.host_issue`` per
  task, so the device cannot start a task before the host has issued it and an idle device
  shows the launch cost as a gap. Sink mode (a model's tasks distributed at load, then one
  ModelExecute) never calls it, which is the gap TaskSink removes; its timings do not change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from enum import IntEnum

from npu_emu.base.errors import InvalidParamError


class Unit(IntEnum):
    AI_CORE = 0
    AI_VECTOR = 1
    AI_CPU = 2
    DVPP = 3
    HCCL = 4
    SDMA = 5


TS_ONLY = -1   # control tasks run in the task scheduler itself and need no unit
GANG = -2      # a fused task: all of its sub-tasks' units at once

CUBE_OPS = frozenset({"MatMul", "Gemm", "Conv", "ConvTranspose"})


def default_unit_counts() -> dict[Unit, int]:
    return {Unit.AI_CORE: 8, Unit.AI_VECTOR: 8, Unit.AI_CPU: 4, Unit.DVPP: 1, Unit.HCCL: 1,
            Unit.SDMA: 2}


@dataclass(frozen=True)
class CostModel:
    launch_ns: int = 1_000
    cube_flops_per_ns: float = 8_000.0
    vector_bytes_per_ns: float = 256.0
    aicpu_launch_ns: int = 20_000
    aicpu_bytes_per_ns: float = 8.0
    dvpp_bytes_per_ns: float = 32.0
    h2d_bytes_per_ns: float = 24.0
    d2d_bytes_per_ns: float = 400.0
    hccl_latency_ns: int = 10_000
    hccl_bytes_per_ns: float = 50.0
    host_launch_ns: int = 2_000
    units: dict[Unit, int] = field(default_factory=default_unit_counts)

    def __post_init__(self) -> None:
        """Rates divide: each must be a positive finite number; times and unit counts are
        non-negative ints (a unit may be absent: 0)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "units":
                ok = isinstance(value, dict) and all(
                    isinstance(u, Unit) and type(n) is int and n >= 0 for u, n in value.items())
            elif f.name.endswith("_per_ns"):
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and \
                    0 < value < math.inf
            else:
                ok = type(value) is int and value >= 0
            if not ok:
                raise InvalidParamError(f"cost model {f.name}={value!r}")

    def kernel_ns(self, op_type: str, unit: Unit, in_shapes: list[tuple[int, ...]],
                  out_shapes: list[tuple[int, ...]], nbytes: int) -> int:
        if unit == Unit.AI_CPU:
            return self.launch_ns + self.aicpu_launch_ns + _ceil(nbytes / self.aicpu_bytes_per_ns)
        if unit == Unit.DVPP:
            return self.launch_ns + _ceil(nbytes / self.dvpp_bytes_per_ns)
        if op_type in CUBE_OPS:
            return self.launch_ns + _ceil(cube_flops(op_type, in_shapes, out_shapes)
                                          / self.cube_flops_per_ns)
        return self.launch_ns + _ceil(nbytes / self.vector_bytes_per_ns)

    def memcpy_ns(self, nbytes: int, host_side: bool) -> int:
        rate = self.h2d_bytes_per_ns if host_side else self.d2d_bytes_per_ns
        return self.launch_ns + _ceil(nbytes / rate)

    def hccl_ns(self, nbytes: int) -> int:
        return self.launch_ns + self.hccl_latency_ns + _ceil(nbytes / self.hccl_bytes_per_ns)


def default_unit(op_type: str) -> Unit:
    return Unit.AI_CORE if op_type in CUBE_OPS else Unit.AI_VECTOR


def cube_flops(op_type: str, in_shapes: list[tuple[int, ...]],
               out_shapes: list[tuple[int, ...]]) -> int:
    """2 x multiply-accumulates. Conv: each output element sums over Cin/group x kh x kw
    inputs, which is the weight's size over Cout (ConvTranspose: each input element)."""
    out = math.prod(out_shapes[0]) if out_shapes else 0
    if op_type == "MatMul":
        return 2 * out * in_shapes[0][-1]
    if op_type == "Gemm":  # K from |A| x |B| / |Y| = K^2, whatever the transposes
        k = math.isqrt(math.prod(in_shapes[0]) * math.prod(in_shapes[1]) // max(out, 1))
        return 2 * out * k
    w = in_shapes[1]
    if op_type == "Conv":
        return 2 * out * (math.prod(w) // max(w[0], 1))
    return 2 * math.prod(in_shapes[0]) * (math.prod(w) // max(w[0], 1))


def _ceil(x: float) -> int:
    return int(math.ceil(x))
