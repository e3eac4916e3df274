"""The op stores of the engines GE's engine_conf.json has beside the core ones
(compiler/engines/manager/engine_manager/engine_conf.json; costs: docs/en/design/features/
engine.md):

    DNN_VM_DVPP          DVPP, cost 5, attach    image pre-processing on the media unit
    DNN_VM_AICPU_ASCEND  AICPU_ASCEND, cost 3,   CANN's own AI CPU kernels (aicpu_ascend_kernel);
                         attach                  DNN_VM_AICPU (cost 4) holds TensorFlow's
    DSAEngine            DSA, cost 2             random numbers on the data streaming accelerator

A store says which op types an engine holds and checks an op against it (GE's ops kernel info
store CheckSupported). The DVPP engine takes an op only when its graph optimizer claims it
(ge_core/compiler/dvpp_graph_optimizer.py), and GE's GE-local store registers the ops an earlier
pass must remove as GeDeletedOp, which fails: such an op reaching the GE-local engine is an error.
"""
from __future__ import annotations

from ge_core.graph import GeTensorDesc, Node
from ge_core.graph.types import DataType

DVPP_ENGINE = "DNN_VM_DVPP"
DVPP_KERNEL_LIB = "dvpp_ops_kernel"   # GE's kDvppOpsKernel
AICPU_ASCEND_ENGINE = "DNN_VM_AICPU_ASCEND"
DSA_ENGINE = "DSAEngine"

# GE's DVPP op store for 910B (tests/engines/dvppeng/stub/dvpp_ops_info_ascend910b.json) and the
# NormalizeV2 its optimizer fuses from Sub and Mul. Of these, ONNX has Resize.
DVPP_OPS = frozenset({"AdjustContrast", "AdjustContrastWithMean", "DecodeAndCropJpeg",
                      "DecodeJpeg", "GaussianBlur", "NormalizeV2", "Resize", "ResizeBilinearV2",
                      "ResizeV2", "RgbToGrayscale", "Rotate", "WarpAffineV2", "WarpPerspective"})
# The ONNX types of the ops CANN's ops repositories give an AI CPU kernel (hicann/ops-math,
# ops-nn, ops-cv: the op_kernel_aicpu directories; add, cast, concat_v2, gather_v2, identity ...).
AICPU_ASCEND_OPS = frozenset({
    "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "Cast", "Ceil", "Clip", "Concat",
    "Cosh", "CumSum", "Div", "Elu", "Equal", "Exp", "Expand", "Gather", "Greater",
    "GreaterOrEqual", "Identity", "Less", "Log", "LogSoftmax", "Mul", "Neg", "NonMaxSuppression",
    "Pow", "ReduceMean", "ReduceSum", "ReverseSequence", "Round", "ScatterElements", "ScatterND",
    "Sinh", "Slice", "Softmax", "Split", "Sqrt", "Sub", "Tan", "Tile", "TopK", "Where"})
# GE's DSA op types (framework_types_internal.h, ops_kernel_dsa_task_builder.h): made by a
# framework's graph, not by ONNX's random ops.
DSA_OPS = frozenset({"DSAGenBitMask", "DSARandomNormal", "DSARandomTruncatedNormal",
                     "DSARandomUniform", "DSAStatelessGenBitMask", "DSAStatelessRandomNormal",
                     "DSAStatelessRandomTruncatedNormal", "DSAStatelessRandomUniform"})
# GE-local ops GE registers as GeDeletedOp (local_engine/.../ge_deleted_op.cc): a pass removes
# them before placement (Identity: IdentityPass in GraphPrepare and after OptimizeStage1_3).
GE_DELETED_OPS = frozenset({"Identity", "IdentityN", "Shape", "Size", "Rank", "Snapshot",
                            "StopGradient", "PreventGradient", "GuaranteeConst"})

# The AI Core op store's dtypes per op, for the ops whose kernels take more than float: the
# union of the DataType lists of each op's definition in hicann/ops-math (math/*/op_host and
# conversion/*/op_host *_def.cpp, read for ONNX's name of the op: Max is Maximum, Where is
# SelectV2, Split is SplitV, ArgMax is ArgMaxV2). Those definitions configure the AI Core for
# ascend950; we take them for every chip. A union is coarser than the store, which lists
# allowed combinations row by row. An op not listed here is taken as float only (_FLOATS).
_FLOATS = frozenset({"DT_FLOAT", "DT_FLOAT16", "DT_BF16"})
_COMPARE = _FLOATS | {"DT_BOOL", "DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8", "DT_UINT64"}
_MOVE = _FLOATS | {"DT_BOOL", "DT_INT8", "DT_UINT8", "DT_INT16", "DT_UINT16", "DT_INT32",
                   "DT_UINT32", "DT_INT64", "DT_UINT64"}
_AICORE_DTYPE_NAMES: dict[str, frozenset[str]] = {
    "Add": _FLOATS | {"DT_BOOL", "DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "Sub": _FLOATS | {"DT_BOOL", "DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "Mul": _FLOATS | {"DT_BOOL", "DT_DOUBLE", "DT_INT16", "DT_INT32", "DT_INT64", "DT_INT8",
                      "DT_UINT8"},
    "Div": _FLOATS | {"DT_INT32", "DT_INT8", "DT_UINT8"},
    "Max": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "Min": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "Mod": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "Abs": _FLOATS | {"DT_INT16", "DT_INT32", "DT_INT64", "DT_INT8"},
    "Neg": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8"},
    "Sign": _MOVE - {"DT_BOOL"},
    "Pow": _FLOATS | {"DT_INT16", "DT_INT32", "DT_INT8", "DT_UINT8"},
    "Cast": _MOVE | {"DT_DOUBLE", "DT_INT4"},
    "Equal": _COMPARE | {"DT_DOUBLE"},
    "Less": _COMPARE | {"DT_DOUBLE"},
    "Greater": _COMPARE,
    "Where": _FLOATS | {"DT_BOOL", "DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "ArgMax": _FLOATS | {"DT_INT32", "DT_INT64"},
    "ArgMin": _FLOATS | {"DT_INT32", "DT_INT64"},
    "ReduceSum": _FLOATS | {"DT_BOOL", "DT_INT32", "DT_INT64"},
    "ReduceMean": _FLOATS | {"DT_INT32", "DT_INT64"},
    "ReduceMax": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "ReduceMin": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "ReduceProd": _FLOATS | {"DT_BOOL", "DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "CumSum": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT64", "DT_UINT8"},
    "Range": _FLOATS | {"DT_DOUBLE", "DT_INT32", "DT_INT64"},
    "OneHot": _FLOATS | {"DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "Expand": _FLOATS | {"DT_BOOL", "DT_INT32", "DT_INT64", "DT_INT8", "DT_UINT8"},
    "Concat": _MOVE | {"DT_DOUBLE"},
    "Split": _MOVE,
    "Slice": _MOVE,
    "Tile": _MOVE,
    "Transpose": _MOVE,
    "Pad": _MOVE | {"DT_DOUBLE"},
    # hicann/ops-nn: index/gather_v2/op_host/gather_v2_def.cpp (GatherV2: indices int32 or
    # int64) and index/scatter_nd_update/op_host/scatter_nd_update_def.cpp (ONNX's ScatterND is
    # ScatterNdUpdate; its ascend910b rows: indices int32 or int64)
    "Gather": _MOVE | {"DT_DOUBLE"},
    "ScatterND": _FLOATS | {"DT_BOOL", "DT_INT8", "DT_INT16", "DT_INT32", "DT_INT64"},
}
AICORE_DTYPES: dict[str, frozenset[DataType]] = {
    op: frozenset(DataType[name] for name in names) for op, names in _AICORE_DTYPE_NAMES.items()}
FLOAT_DTYPES = frozenset(DataType[name] for name in _FLOATS)


def aicore_dtype_unsupported(node: Node) -> str | None:
    """Why the AI Core op store refuses ``node``'s tensors, or None: every input and output
    dtype must be one the store lists for the op (an unknown dtype, not yet inferred, passes)."""
    allowed = AICORE_DTYPES.get(node.type, FLOAT_DTYPES)
    for d in node.op_desc.input_descs + node.op_desc.output_descs:
        if not d.absent and d.dtype != DataType.DT_UNDEFINED and d.dtype not in allowed:
            return f"the AI Core store's {node.type} takes no {d.dtype.name}"
    return None


_IMAGE_DTYPES = (DataType.DT_UINT8, DataType.DT_FLOAT)
_WIDTH = (6, 4096)    # widthMin .. widthMax
_HEIGHT = (4, 8192)


def dvpp_unsupported(node: Node) -> str | None:
    """Why the DVPP store refuses ``node`` (GE's DvppOpsChecker::CheckSupported), or None."""
    if node.type not in DVPP_OPS:
        return f"{node.type} is not in the DVPP op store"
    if not node.op_desc.input_descs:
        return "no image input"
    return image_unsupported(node.op_desc.input_descs[0])


def image_unsupported(image: GeTensorDesc) -> str | None:
    """Why the media unit cannot take ``image``, or None: a DVPP op's image is uint8 or float32,
    HWC/CHW or NHWC/NCHW, with its height and width (the last two dims, or the two before an
    HWC channel axis of 3) in the range most of the 910B store's ops accept."""
    dims = image.shape.dims
    if image.dtype not in _IMAGE_DTYPES:
        return f"image of {image.dtype.name}, DVPP takes uint8 or float32"
    if image.shape.is_unknown or len(dims) not in (3, 4):
        return f"image of shape {list(dims)}, DVPP takes a static 3-d or 4-d image"
    height, width = dims[-3:-1] if dims[-1] == 3 else dims[-2:]
    if not (_HEIGHT[0] <= height <= _HEIGHT[1] and _WIDTH[0] <= width <= _WIDTH[1]):
        return (f"image of {height}x{width}, DVPP takes {_HEIGHT[0]}..{_HEIGHT[1]} x "
                f"{_WIDTH[0]}..{_WIDTH[1]}")
    return None
