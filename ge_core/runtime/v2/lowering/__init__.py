"""Lowering: a ComputeGraph -> an ExecuteGraph (Init / Main / DeInit) through one NodeConverter
per kind of node."""
from ge_core.runtime.v2.lowering.graph_converter import lower_graph
from ge_core.runtime.v2.lowering.lowering_context import LoweringError, LoweringOptions
from ge_core.runtime.v2.lowering.node_converter import (converter_for, node_kind,
                                                        register_node_converter)

__all__ = ["LoweringError", "LoweringOptions", "converter_for", "lower_graph", "node_kind",
           "register_node_converter"]
