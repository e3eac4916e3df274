"""The op registry and InferShape: which ops GE Workbench knows and what shapes they produce."""
from ge_core.ops.op_registry import OpDef, get_op_def, is_supported, register, supported_ops
from ge_core.ops.shape_refiner import (InferShapeError, infer_graph, infer_shape,
                                       update_peer_input_desc)

# Importing the op families runs their @register decorators.
from ge_core.ops import (control_flow, elementwise, graph_io, linalg, multi_batch,  # noqa: F401
                         nn, reduce, tensor)

__all__ = ["InferShapeError", "OpDef", "get_op_def", "infer_graph", "infer_shape", "is_supported",
           "register", "supported_ops", "update_peer_input_desc"]
