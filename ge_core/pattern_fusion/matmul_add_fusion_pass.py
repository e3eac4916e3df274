"""MatMulAddFusionPass: a 2-D MatMul by a constant weight, plus a constant bias, is a Gemm.

    MatMul(a[M,K], B[K,N]) -> Add(., c)  =>  Gemm(a, B, c)     (alpha = beta = 1)

Only where Gemm means exactly the same: a and B are 2-D (MatMul's 1-D promotion and batch
broadcasting have no Gemm form), float (Gemm before opset 13 is float only), and c broadcasts to
[M, N] without widening it. c is stored in the shape it broadcasts with.
"""
from __future__ import annotations

from ge_core.passes.pass_utils import graph_opset
from ge_core.pattern_fusion.fusion_utils import operand_shape, out_dims
from ge_core.pattern_fusion.pattern import In, Pat, Pattern
from ge_core.pattern_fusion.pattern_fusion_pass import PatternFusionPass
from ge_core.pattern_fusion.pattern_matcher import MatchResult
from ge_core.pattern_fusion.subgraph_rewriter import Ref, Replacement

_matmul = Pat("MatMul", In("a"), In("b", const=True), name="matmul")
_add = Pat("Add", _matmul, In("c", const=True), name="add", commutative=True)


class MatMulAddFusionPass(PatternFusionPass):
    name = "MatMulAddFusionPass"
    patterns = (Pattern(_add, name="matmul_add"),)

    def meet_requirements(self, match: MatchResult) -> bool:
        a = match["matmul"].op_desc.input_descs[0].shape
        dims = out_dims(match["add"])
        return (a.rank == 2 and match.const("b").ndim == 2 and dims is not None and len(dims) == 2
                and match.const("b").dtype.kind == "f"
                and operand_shape(match["add"], match.input("c")) is not None)

    def replacement(self, match: MatchResult, rw: Replacement) -> Ref:
        add = match["add"]
        shape = operand_shape(add, match.input("c"))
        c = match.const("c")
        # Gemm-1/6 broadcasts C only when told to (Gemm-7 on always does).
        attrs = {"broadcast": 1} if graph_opset(add.graph) < 7 and shape != out_dims(add) else {}
        bias = match.input("c") if c.shape == shape else \
            rw.const(f"{add.name}_bias", c.reshape(shape))
        return rw.add("Gemm", [match.input("a"), match.input("b"), bias], attrs)
