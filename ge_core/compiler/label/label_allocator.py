"""LabelAllocator: hands out a model's label ids and lowers each functional node with the maker
for its type (GE's label_allocator.cc and LabelMakerFactory).

Bodies are lowered innermost first: an If inside a Loop's body becomes label nodes inside that
body, and the Loop then inlines them with the rest of its body. Ids are dense from 0 in the
order makers ask for them; the count goes in ``graph.attrs["label_num"]``, where task
generation and the loader (one rtLabel per id) read it.
"""
from __future__ import annotations

from ge_core.compiler.label.case_label_maker import CaseLabelMaker
from ge_core.compiler.label.if_label_maker import IfLabelMaker
from ge_core.compiler.label.label_maker import LabelMaker, LabelMakerError
from ge_core.compiler.label.region_fence import RegionFences
from ge_core.compiler.label.stream_switch_n_maker import StreamSwitchNMaker
from ge_core.compiler.label.while_label_maker import WhileLabelMaker
from ge_core.graph import ComputeGraph
from ge_core.graph.attr_names import ATTR_MODEL_LABEL_NUM, ATTR_NAME_BATCH_NUM

# GE's LabelMakerFactory, by op type (an ONNX Loop is GE's While; a Case comes from the gear
# passes).
LABEL_MAKERS: dict[str, type[LabelMaker]] = {"If": IfLabelMaker, "Loop": WhileLabelMaker,
                                             "Case": CaseLabelMaker}


class LabelAllocator:
    def __init__(self, graph: ComputeGraph, switch_n: bool = False) -> None:
        """``switch_n``: lower a multi-batch Case to a StreamSwitchN over gear streams (GE's
        SwitchN route) rather than to labels."""
        self.graph = graph
        self.switch_n = switch_n
        self.fences = RegionFences()
        self.label_num = 0

    def new_label(self) -> int:
        self.label_num += 1
        return self.label_num - 1

    def assign_functional_labels(self) -> int:
        """Lower every functional node of the graph; returns how many were lowered."""
        lowered = self._lower(self.graph)
        if lowered:
            self.graph.set_attr(ATTR_MODEL_LABEL_NUM, self.label_num)
        return lowered

    def _lower(self, graph: ComputeGraph) -> int:
        lowered = 0
        for node in graph.topological_sort():
            if not node.op_desc.subgraph_names:
                continue
            for name in list(node.op_desc.subgraph_names):
                lowered += self._lower(graph.subgraph(name))
            maker = LABEL_MAKERS.get(node.type)
            if self.switch_n and node.type == "Case" and node.op_desc.has_attr(ATTR_NAME_BATCH_NUM):
                maker = StreamSwitchNMaker
            if maker is None:
                raise LabelMakerError(f"node {node.name} ({node.type}) owns subgraphs and no "
                                      f"label maker lowers its type (run the model with "
                                      f"--mode hybrid)")
            maker(node, self).run()
            lowered += 1
        self.fences.close(graph)   # its fences' waiting edges linked, before a parent inlines it
        return lowered


def assign_functional_labels(graph: ComputeGraph, switch_n: bool = False) -> int:
    return LabelAllocator(graph, switch_n).assign_functional_labels()
