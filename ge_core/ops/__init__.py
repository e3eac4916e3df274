"""The op registry and InferShape: which ops GE Workbench knows and what shapes they produce."""
from ge_core.ops.op_registry import (DEFAULT_DOMAINS, OpDef, get_op_def, is_supported,
                                     qualified_type, register, supported_ops)
from ge_core.ops.shape_refiner import (InferShapeError, infer_graph, infer_node, infer_shape,
                                       update_peer_input_desc)

# Importing the op families runs their @register decorators.
from ge_core.ops import (control_flow, elementwise, graph_io, hccl, linalg,  # noqa: F401
                         multi_batch, nn, reduce, tensor)
from ge_core.ops import attention, ml, quant, rnn, sequence, string, training  # noqa: F401
from ge_core.ops import (activation, bitwise, conv_variants, cumulative, image,  # noqa: F401
                         indexing, loss, matrix, normalization, random, signal)

__all__ = ["DEFAULT_DOMAINS", "InferShapeError", "OpDef", "get_op_def", "infer_graph",
           "infer_node", "infer_shape", "is_supported", "qualified_type", "register",
           "supported_ops", "update_peer_input_desc"]
