"""GE's pass system: GraphPass + PassManager, BaseNodePass + GEPass."""
from ge_core.passes.base_node_pass import BaseNodePass
from ge_core.passes.events import NodeVisited, PassBegin, PassEnd, Step
from ge_core.passes.ge_pass import GEPass, GEPassError, GEPassReport, NodePassGroup
from ge_core.passes.graph_pass import GraphPass
from ge_core.passes.pass_manager import PassManager, PassRecord

__all__ = ["BaseNodePass", "GEPass", "GEPassError", "GEPassReport", "GraphPass", "NodePassGroup",
           "NodeVisited", "PassBegin", "PassEnd", "PassManager", "PassRecord", "Step"]
