"""StreamSwitchNMaker: a multi-batch Case sunk as GE's SwitchN route lays gears out - one stream
per gear, the gear picked by a StreamSwitchN (GE r1.x with MULTI_BATCH_WITH_SWITCHN: the graph
copier's SwitchN replaced by MultiBatchPass::ReplaceSwitchN; the Merge that joins the gears by
MergeToStreamMergePass and MergeInputMemcpyPass). Today's GE lowers the Case with labels
instead (case_label_maker.py), which is this package's default.

    stream s (head)   StreamSwitchN(ascend_mbatch_shape_data)  gear i's values -> starts g_i
    stream g_i        ...gear i...  MemcpyAsync(result -> out)  StreamActive(m)
    stream m          Merge (no task: every gear's copy writes its one buffer)  NetOutput

Gear i's nodes carry ``_stream_label`` "stream_label_batch_<i>" (each label gets a stream of its
own) and the switch ``_active_label_list`` of those labels, in gear order, so
SetActiveStreamsByLabel gives it gear i's stream as its i-th; the switch compares the gear's
values itself, so MapIndex has no reader left and goes. The Merge and everything after it carry
the Merge's own name as label: their stream starts only when a gear's last StreamActive starts
it, which also orders the gear's copies before the Merge's readers with no event (none could be:
a wait for a gear that did not run would never end).
"""
from __future__ import annotations

from ge_core.compiler.label.label_maker import LabelMaker
from ge_core.graph import GraphUtils, Node
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import (ATTR_DYNAMIC_TYPE, ATTR_INSERT_BY_MBATCH,
                                      ATTR_NAME_ACTIVE_LABEL_LIST, ATTR_NAME_BATCH_LABEL,
                                      ATTR_NAME_BATCH_NUM, ATTR_NAME_PRED_VALUE,
                                      ATTR_NAME_STREAM_LABEL, ATTR_NAME_SWITCH_DATA_TYPE,
                                      ATTR_USER_DESIGNEATE_SHAPE_ORDER)
from ge_core.graph.types import DataType
from ge_core.passes.multi_batch import batch_label

BRANCH_INDEX = 0                     # the Case's input 0: MapIndex(shape data, gear table)
SWITCH_DATA_TYPES = {DataType.DT_INT32: 0, DataType.DT_INT64: 1}   # aclrtCompareDataType
ENV = "MULTI_BATCH_WITH_SWITCHN"     # GE r1.x's switch to this route


def gear_stream_label(index: int) -> str:
    return f"stream_label_batch_{index}"   # GE's MultiBatchPass::AttachLabel


class StreamSwitchNMaker(LabelMaker):
    def make(self) -> list[OutDataAnchor]:
        index = self.parent_input(BRANCH_INDEX)
        if index is None or index.owner.type != "MapIndex":
            raise self.fail("its branch index is not MapIndex's: not a multi-batch Case")
        self.map_index = index.owner
        shape_data = self.map_index.in_data_anchors[0].peer
        self.switch = self._switch(shape_data)
        merge_label = f"{self.node.name}_Merge"
        self.gears: list[tuple[list[Node], Node]] = []
        copies: list[list[OutDataAnchor]] = []
        for i, name in enumerate(self.node.op_desc.subgraph_names):
            start = len(self.region)
            results = self.inline(self.node.graph.subgraph(name), [], self.new_body())
            if len(results) != len(self.node.out_data_anchors):
                raise self.fail(f"branch {name} returns {len(results)} values for "
                                f"{len(self.node.out_data_anchors)} outputs")
            copies.append([self._copy_out(k, r) for k, r in enumerate(results)])
            active = self._add("StreamActive", [], 0, {ATTR_NAME_ACTIVE_LABEL_LIST: [merge_label]})
            for node in self.region[start:]:
                node.op_desc.set_attr(ATTR_NAME_STREAM_LABEL, gear_stream_label(i))
                node.op_desc.set_attr(ATTR_NAME_BATCH_LABEL, batch_label(i))
            self.gears.append((self.region[start:-1], active))
        self.merges = [self._merge(k, [c[k] for c in copies], merge_label)
                       for k in range(len(self.node.out_data_anchors))]
        self.merge_label = merge_label
        return [m.out_data_anchor(0) for m in self.merges]

    def _switch(self, shape_data: OutDataAnchor) -> Node:
        """GE's CreateSwitchCaseNode: the Case's gear attributes, one stream label per gear."""
        case = self.node.op_desc
        gears = case.get_attr(ATTR_NAME_BATCH_NUM)
        attrs = {ATTR_NAME_BATCH_NUM: gears,
                 ATTR_DYNAMIC_TYPE: case.get_attr(ATTR_DYNAMIC_TYPE),
                 ATTR_USER_DESIGNEATE_SHAPE_ORDER: case.get_attr(ATTR_USER_DESIGNEATE_SHAPE_ORDER),
                 ATTR_NAME_ACTIVE_LABEL_LIST: [gear_stream_label(i) for i in range(gears)],
                 ATTR_NAME_SWITCH_DATA_TYPE: SWITCH_DATA_TYPES[
                     shape_data.owner.op_desc.output_descs[shape_data.idx].dtype]}
        for i in range(gears):
            attrs[f"{ATTR_NAME_PRED_VALUE}_{i}"] = case.get_attr(f"{ATTR_NAME_PRED_VALUE}_{i}")
        return self._add("StreamSwitchN", [shape_data], 0, attrs,
                         name=f"{shape_data.owner.name}_StreamSwitchN")

    def _copy_out(self, k: int, result: OutDataAnchor) -> OutDataAnchor:
        """The gear's result k into the Case's output k buffer (GE's MergeInputMemcpyPass),
        shaped as the Case's output, the largest gear's."""
        out = self.copy(result)
        out.owner.op_desc.update_output_desc(0, self.node.op_desc.output_descs[k])
        return out

    def _merge(self, k: int, inputs: list[OutDataAnchor], label: str) -> Node:
        merge = self._add("Merge", inputs, 1, {ATTR_INSERT_BY_MBATCH: True,
                                                 ATTR_NAME_STREAM_LABEL: label})
        merge.op_desc.update_output_desc(0, self.node.op_desc.output_descs[k])
        return merge

    def _fence(self) -> None:
        """Each gear after the switch and before its StreamActive; the Merges after every
        StreamActive; the Merges' readers on the Merges' stream. No order between gears (nor
        the region fence's: what the graph's region fences kept no longer holds)."""
        self.allocator.fences.forget(self.graph)
        for nodes, active in self.gears:
            inside = set(nodes)
            for node in nodes:
                if not any(p in inside for p in node.in_nodes()):
                    GraphUtils.add_edge(self.switch.out_control_anchor, node.in_control_anchor)
                if not any(s in inside for s in node.out_nodes()):
                    GraphUtils.add_edge(node.out_control_anchor, active.in_control_anchor)
            for merge in self.merges:
                GraphUtils.add_edge(active.out_control_anchor, merge.in_control_anchor)

    def run(self) -> None:
        super().run()
        for merge in self.merges:
            for reader in merge.out_nodes():
                reader.op_desc.set_attr(ATTR_NAME_STREAM_LABEL, self.merge_label)
        table = self.map_index.in_data_anchors[1].peer.owner
        GraphUtils.remove_node(self.map_index)
        if not any(True for _ in table.out_edges()):
            GraphUtils.remove_node(table)
