"""GE's graph IR: ComputeGraph, Node, OpDesc, GeTensorDesc, anchors, GraphUtils."""
from ge_core.graph.anchor import (GraphError, InControlAnchor, InDataAnchor, OutControlAnchor,
                                  OutDataAnchor)
from ge_core.graph.compute_graph import ComputeGraph
from ge_core.graph.dump import dump_graph, node_line, to_dot
from ge_core.graph.ge_tensor import UNKNOWN_DIM, UNKNOWN_RANK, GeShape, GeTensor, GeTensorDesc
from ge_core.graph.graph_utils import GraphUtils
from ge_core.graph.node import Node
from ge_core.graph.op_desc import OpDesc
from ge_core.graph.types import DataType, Format
from ge_core.graph.validate import GraphValidationError, validate

__all__ = ["ComputeGraph", "DataType", "Format", "GeShape", "GeTensor", "GeTensorDesc",
           "GraphError", "GraphUtils", "GraphValidationError", "InControlAnchor", "InDataAnchor",
           "Node", "OpDesc", "OutControlAnchor", "OutDataAnchor", "UNKNOWN_DIM", "UNKNOWN_RANK",
           "dump_graph", "node_line", "to_dot", "validate"]
