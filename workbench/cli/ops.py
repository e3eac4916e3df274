"""`gewb ops`: every supported op with its InferShape family, whether a device kernel exists,
and the engine the placer gives it."""
from __future__ import annotations

import argparse


def _cmd_ops(args: argparse.Namespace) -> int:
    from ge_core.compiler.engine_placer import EnginePlacer
    from ge_core.graph import ComputeGraph, OpDesc
    from ge_core.ops import get_op_def, supported_ops
    from npu_emu.base.trace import TraceBus
    from npu_emu.op_impl import has_kernel
    probe = ComputeGraph("ops", TraceBus())
    placer = EnginePlacer()
    width = max(map(len, supported_ops())) + 2  # ai.onnx.ml::ArrayFeatureExtractor
    print(f"{'op':<{width}}{'family':<14}{'kernel':<8}engine (float tensors)")
    for i, op_type in enumerate(supported_ops()):
        engine = placer.place(probe.add_node(OpDesc(f"n{i}", op_type))).name
        kernel = "yes" if has_kernel(op_type) or engine.endswith("GE_LOCAL") else "-"
        print(f"{op_type:<{width}}{get_op_def(op_type).family:<14}{kernel:<8}{engine}")
    return 0


def add_ops_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ops", help="list the supported ops: family, kernel, engine")
    p.set_defaults(func=_cmd_ops)
