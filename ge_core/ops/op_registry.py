"""The op registry (GE's OperatorFactory / OpsProtoManager): which op types exist, and each one's
InferShape function. It is the one place that answers "is this op supported".

Op semantics are ONNX's: attribute names, defaults and opset differences follow the ONNX operator
spec. An op of another domain than the default one is registered, and typed in the IR, by its
qualified name, ``ai.onnx.ml::LabelEncoder`` (GE's ONNX parser keys an op by domain as well): a
default-domain op of the same name is a different op. GE's own node types (Data, Const,
NetOutput) are registered here too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ge_core.ops.infer_context import InferShapeContext

InferShapeFunc = Callable[["InferShapeContext"], None]

DEFAULT_DOMAINS = ("", "ai.onnx")
ML_DOMAIN = "ai.onnx.ml"


def qualified_type(domain: str, op_type: str) -> str:
    """The IR type of ONNX op ``op_type`` of ``domain``: its own name in the default domain."""
    return op_type if domain in DEFAULT_DOMAINS else f"{domain}::{op_type}"


@dataclass(frozen=True, slots=True)
class OpDef:
    type: str
    infer_shape: InferShapeFunc
    family: str  # the module that defines it: elementwise, nn, tensor, ...


_OPS: dict[str, OpDef] = {}


def register(*op_types: str) -> Callable[[InferShapeFunc], InferShapeFunc]:
    """Register ``fn`` as the InferShape of each op type named (a shared rule takes many)."""

    def add(fn: InferShapeFunc) -> InferShapeFunc:
        family = fn.__module__.rsplit(".", 1)[-1]
        for op_type in op_types:
            if op_type in _OPS:
                raise ValueError(f"op {op_type} registered twice")
            _OPS[op_type] = OpDef(op_type, fn, family)
        return fn

    return add


def get_op_def(op_type: str) -> OpDef | None:
    return _OPS.get(op_type)


def is_supported(op_type: str) -> bool:
    return op_type in _OPS


def supported_ops() -> list[str]:
    return sorted(_OPS)
