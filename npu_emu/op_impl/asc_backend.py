"""AscBackend: the kernel of a node GE's automatic fusion made (GE's autofuse: one AscBackend op
carries a small graph of pointwise ops that one generated vector kernel evaluates).

The node records its graph as ``asc_graph``, one step a string, in order:

    t0=Add(x0,x1)
    t1=LeakyRelu(t0) {"alpha": 0.1}

``x<i>`` is the node's input i, ``t<j>`` a step's result, ``_`` an optional input left out, and
the op's attributes follow as JSON; ``asc_outputs`` names the values the node returns, in output
order. The kernel runs the steps with the ops' own numpy kernels, whole
arrays at a time: one launch, and no intermediate tensor in device memory, which is the point of
the fusion.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from npu_emu.op_impl.registry import find_kernel, kernel

ASC_BACKEND = "AscBackend"     # GE's kAscBackendType (autofuse's can_fuse/backend/backend_utils.h)
ASC_GRAPH = "asc_graph"
ASC_OUTPUTS = "asc_outputs"
ASC_OPSET = "asc_opset"        # the ONNX opset the steps' kernels are taken at
_STEP = re.compile(r"(\w+)=(\w+)\(([\w,]*)\)(?: (\{.*\}))?")


@dataclass(frozen=True)
class AscStep:
    op: str
    inputs: tuple[str | None, ...]   # None: an optional input left out
    out: str
    attrs: dict[str, Any] = field(default_factory=dict)

    def encode(self) -> str:
        args = ",".join("_" if name is None else name for name in self.inputs)
        attrs = f" {json.dumps(self.attrs, sort_keys=True)}" if self.attrs else ""
        return f"{self.out}={self.op}({args}){attrs}"

    @staticmethod
    def decode(text: str) -> AscStep:
        match = _STEP.fullmatch(text)
        if match is None:
            raise ValueError(f"AscBackend step {text!r} is not OUT=OP(IN,...) [ATTRS]")
        out, op, args, attrs = match.groups()
        inputs = tuple(None if a == "_" else a for a in args.split(",") if a)
        return AscStep(op, inputs, out, json.loads(attrs) if attrs else {})


@functools.lru_cache(maxsize=1024)   # a model launches the same graph on every execution
def _steps(graph: tuple[str, ...]) -> tuple[AscStep, ...]:
    return tuple(AscStep.decode(s) for s in graph)


@kernel(ASC_BACKEND)
def asc_backend(*inputs: np.ndarray | None, asc_graph: Sequence[str],
                asc_outputs: Sequence[str], asc_opset: int = 10_000) -> tuple[np.ndarray, ...]:
    values: dict[str, np.ndarray | None] = {f"x{i}": v for i, v in enumerate(inputs)}
    for step in _steps(tuple(asc_graph)):
        fn = find_kernel(step.op, asc_opset)
        args = [None if name is None else values[name] for name in step.inputs]
        values[step.out] = fn(*args, **step.attrs)[0]
    return tuple(values[name] for name in asc_outputs)
