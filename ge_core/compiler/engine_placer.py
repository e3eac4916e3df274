"""EnginePlacer: which engine runs each op (GE's engine_manager + EnginePlacer;
compiler/engines/manager/engine_manager/engine_conf.json in hicann/ge).

Engines are tried in ascending cost, skipping excluded ones; the first whose support check
accepts the op wins. The check is by op type here (real GE asks each engine's ops kernel info
store); HOST_CPU accepts anything, so every op lands somewhere, and is where strings, sequences
and a Scan ScanPass kept go (``host_cpu_ops``: AI CPU and GE-local refuse them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ge_core.ops.host_cpu_ops import HOST_CPU_ENGINE, host_cpu_reason
from ge_core.graph import ComputeGraph, Node
from ge_core.compiler.op_stores import (AICPU_ASCEND_ENGINE, AICPU_ASCEND_OPS, DSA_ENGINE,
                                        DSA_OPS, DVPP_ENGINE, GE_DELETED_OPS,
                                        aicore_dtype_unsupported, dvpp_unsupported)
from ge_core.graph.attr_names import ATTR_NAME_OP_SPECIFIED_ENGINE_NAME, ENGINE
from ge_core.graph.graph_clone import copied_one_level
from ge_core.passes.graph_pass import NodeLoop
from ge_core.ops.graph_io import RTS_OPS

# Ops that launch no kernel: GE-local (compiler/engines/local_engine/ in hicann/ge: output reuses
# input, or pure bookkeeping).
GE_LOCAL_OPS = frozenset({"Data", "RefData", "Const", "Constant", "Variable", "NetOutput", "NoOp",
                          "Reshape", "Squeeze", "Unsqueeze", "ExpandDims", "Flatten", "If",
                          "Loop", "PartitionedCall", "PlaceHolder", "End", "Identity",
                          "Case", "Merge"})
# Cube-unit work and the fused ops built around it.
AICORE_OPS = frozenset({"Conv", "ConvTranspose", "MatMul", "Gemm", "FusedConv", "MaxPool",
                        "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization",
                        "FusedBatchNormRelu", "InstanceNormalization", "LRN", "Relu", "LeakyRelu",
                        "PRelu", "Sigmoid", "Tanh", "Elu", "Selu", "Softplus", "Clip",
                        "RNN", "GRU", "LSTM", "Attention", "LinearAttention",
                        "ai.onnx.preview::FlexAttention",
                        "AscBackend"})   # autofuse's: GE's MarkEngineAttrForAutofuseNode
# Cube work on quantized tensors (int8, int4, float8): GE's AscendQuant / AscendDequant and its
# int8 convolutions and matmuls run on the AI Core too.
QUANT_OPS = frozenset({"QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul",
                       "MatMulInteger", "ConvInteger"})
# Vector-unit work: elementwise, reductions, data movement.
VECTOR_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Pow", "Abs", "Neg", "Exp", "Log", "Sqrt",
                        "Reciprocal", "Floor", "Ceil", "Sign", "Max", "Min", "Sum", "Mean",
                        "Softmax", "LogSoftmax", "Hardmax", "ReduceMean", "ReduceSum",
                        "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceSumSquare",
                        "Concat", "Split", "Transpose", "Slice", "Pad", "Tile", "Expand",
                        "Gather", "Cast", "Dropout", "Shrink", "HardSigmoid", "Softsign", "Erf",
                        "Where", "Equal", "Less", "Greater", "Not", "And", "Or", "ArgMax",
                        "ArgMin", "RotaryEmbedding"})
# Activation, normalisation, image and loss ops that GE's AI Core and Vector op info stores hold
# (hicann/ops-nn, ops-math, ops-cv define AI Core kernels for them). Ops left out of both sets --
# the dynamic-output ones (Unique, NonZero, Compress, NonMaxSuppression), Einsum, Det, DFT, the
# window generators, CumProd, BitCast -- have only AI CPU kernels there.
AICORE_OPS |= {"Gelu", "Swish", "HardSwish", "Mish", "SwiGLU", "LayerNormalization",
               "RMSNormalization", "GroupNormalization", "Resize", "Upsample", "GridSample",
               "RoiAlign", "Col2Im", "DeformConv", "CausalConvWithState", "STFT"}
VECTOR_OPS |= {"CumSum", "Trilu", "EyeLike", "Range", "OneHot", "GatherElements", "GatherND",
               "Scatter", "ScatterElements", "ScatterND", "TopK", "IsInf", "IsNaN",
               "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "SpaceToDepth",
               "DepthToSpace", "ReverseSequence", "CenterCropPad", "Bernoulli",
               "RandomUniform", "RandomUniformLike", "RandomNormal", "RandomNormalLike"}
HCCL_OPS = frozenset({"HcomAllReduce", "HcomAllGather", "HcomBroadcast", "HcomReduceScatter"})


def _store_dtypes(node: Node) -> bool:
    """The AI Core and Vector stores take an op only in the dtypes they list for it
    (op_stores.AICORE_DTYPES); an op in others goes on to an AI CPU engine."""
    return aicore_dtype_unsupported(node) is None


@dataclass(frozen=True)
class Engine:
    name: str
    cost: int
    supports: Callable[[Node], bool]
    skip_assign_stream: bool = False  # GE-local work needs no stream of its own
    attach: bool = False              # may share a neighbour engine's stream
    independent: bool = False         # always gets its own stream (HCCL)


def _with_op_store_engines(engines: tuple[Engine, ...]) -> tuple[Engine, ...]:
    """Add the engines whose op stores live in op_stores.py, in cost order. CANN's own AI CPU
    kernels run what the AI CPU can (and the Identity a pass had to keep, as a copy)."""
    aicpu = next(e for e in engines if e.name == "DNN_VM_AICPU")
    return tuple(sorted(engines + (
        Engine(DSA_ENGINE, 2, lambda n: n.type in DSA_OPS),
        Engine(AICPU_ASCEND_ENGINE, 3, lambda n: n.type in AICPU_ASCEND_OPS and (
            n.type in GE_DELETED_OPS or aicpu.supports(n)), attach=True),
        Engine(DVPP_ENGINE, 5, lambda n: dvpp_unsupported(n) is None, attach=True),
    ), key=lambda e: e.cost))


ENGINES: tuple[Engine, ...] = tuple(sorted((
    Engine("AIcoreEngine", 1, lambda n: n.type in AICORE_OPS and _store_dtypes(n)
           or n.type in QUANT_OPS),
    Engine("VectorEngine", 2, lambda n: n.type in VECTOR_OPS and _store_dtypes(n)),
    Engine("DNN_VM_RTS", 2, lambda n: n.type in RTS_OPS, attach=True),
    Engine("DNN_HCCL", 2, lambda n: n.type in HCCL_OPS, independent=True),
    Engine("DNN_VM_AICPU", 4, lambda n: n.type not in GE_LOCAL_OPS and host_cpu_reason(n) is None,
           attach=True),
    Engine("DNN_VM_GE_LOCAL", 9, lambda n: n.type in GE_LOCAL_OPS and host_cpu_reason(n) is None,
           skip_assign_stream=True, attach=True),
    Engine(HOST_CPU_ENGINE, 10, lambda n: True, skip_assign_stream=True, attach=True),
), key=lambda e: e.cost))
ENGINES = _with_op_store_engines(ENGINES)
ENGINE_BY_NAME = {e.name: e for e in ENGINES}


class EnginePlacerError(Exception):
    pass


class EnginePlacer:
    def __init__(self, exclude: Iterable[str] = ()) -> None:
        exclude = set(exclude)
        unknown = exclude - set(ENGINE_BY_NAME)
        if unknown:
            raise EnginePlacerError(f"unknown engine(s) {', '.join(sorted(unknown))}; "
                                    f"engines: {', '.join(ENGINE_BY_NAME)}")
        self.engines = [e for e in ENGINES if e.name not in exclude]

    def place(self, node: Node) -> Engine:
        """The cheapest engine that accepts ``node``, or the one an engine's graph optimizer
        specified for it (GE's DNNEngineManager::GetOpInfos)."""
        specified = node.op_desc.get_attr(ATTR_NAME_OP_SPECIFIED_ENGINE_NAME)
        engines = [e for e in self.engines if e.name == specified] if specified else self.engines
        for engine in engines:
            if engine.supports(node) and not (engine.name == "DNN_VM_GE_LOCAL"
                                              and node.type in GE_DELETED_OPS):
                return engine
        where = f"node {node.name} ({node.type})"
        if specified:
            raise EnginePlacerError(f"{where}: the engine its graph optimizer specified, "
                                    f"{specified}, is excluded or refuses it")
        if node.type in GE_DELETED_OPS:
            raise EnginePlacerError(f"{where}: a pass should have removed it before placement; "
                                    f"the GE-local engine runs no {node.type} (GeDeletedOp)")
        raise EnginePlacerError(f"{where}: no engine accepts it "
                                f"(excluded engines leave {[e.name for e in self.engines]})")

    def run(self, graph: ComputeGraph) -> dict[str, int]:
        """Set each node's ``engine`` attribute; returns a count per engine."""
        placing = Placing(self, graph)
        for _ in placing.steps():
            pass
        return placing.counts

    def place_counted(self, node: Node, counts: dict[str, int]) -> bool:
        """Set ``node``'s engine and count it (a NodeLoop's visit; the graph's change shows in
        its edit counts)."""
        engine = self.place(node)
        if node.op_desc.get_attr(ENGINE) != engine.name:
            node.op_desc.set_attr(ENGINE, engine.name)
        counts[engine.name] = counts.get(engine.name, 0) + 1
        return False


@copied_one_level   # as a NodeLoop; the placer is shared
class Placing(NodeLoop):
    """A placement as a resumable walk (as Partitioning is): ``steps()`` yields every
    POSITION_NODES nodes, so a debugger's checkpoint may sit inside the stage (12.5k ticks at
    20k nodes)."""

    def __init__(self, placer: EnginePlacer, graph: ComputeGraph) -> None:
        super().__init__(graph.all_nodes())
        self.placer = placer

    @property
    def counts(self) -> dict[str, int]:
        """Engine -> the nodes placed on it so far."""
        return self.kept

    def steps(self) -> Iterator[None]:
        return self.visits(self.placer.place_counted)
