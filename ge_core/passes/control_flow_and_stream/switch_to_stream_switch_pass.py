"""SwitchToStreamSwitchPass (GE's switch_to_stream_switch_pass.cc): a Switch(data, pred) no
longer passes data; its branches read the data directly and are started by stream ops.

    pred -> <pred>_Cast (int32) -> <pred>_StreamActive        starts the switches' stream
    <pred>/StreamSwitch_t(cast, Const 1) -> true branch       each on the stream labelled
    <pred>/StreamSwitch_f(cast, Const 0) -> false branch      <pred>_Cast

Each StreamSwitch compares the cast predicate with its constant (switch_condition RT_EQUAL)
and starts its branch's stream when they match; control edges from it to the branch's first
nodes keep the branch after it, and one from the data's producer keeps the switch after that. As
GE's CombineSwitchNode, the Switches that share a predicate share its Cast, StreamActive and two
StreamSwitches. GE's cycle checks and control-flow groups (for TensorFlow loops) are not modelled.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ge_core.graph import ComputeGraph, GraphError, GraphUtils, Node, OpDesc
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_LABEL_LIST, ATTR_NAME_STREAM_LABEL,
                                      ATTR_NAME_STREAM_SWITCH_COND, ATTR_NAME_SWITCH_DATA_TYPE,
                                      ATTR_NAME_SWITCH_TRUE_BRANCH_FLAG, ATTR_NAME_WEIGHTS)
from ge_core.graph.ge_tensor import GeTensor
from ge_core.graph.types import DataType
from ge_core.passes.graph_pass import GraphPass

SWITCH_DATA, SWITCH_PRED = 0, 1
SWITCH_FALSE_OUTPUT, SWITCH_TRUE_OUTPUT = 0, 1
RT_EQUAL = 0            # rtCondition_t
RT_SWITCH_INT32 = 0     # rtSwitchDataType_t
ONNX_INT32 = 6          # Cast's "to" (the kernels take ONNX's enum)


class SwitchToStreamSwitchPass(GraphPass):
    name = "SwitchToStreamSwitchPass"

    def run(self, graph: ComputeGraph) -> bool:
        switches = [n for n in graph if n.type == "Switch"]
        by_pred: dict[tuple[str, int], list[Node]] = {}
        for switch in switches:
            data, pred = (a.peer for a in switch.in_data_anchors[:2])
            if data is None or pred is None:
                raise GraphError(f"node {switch.name} (Switch): needs its data and pred inputs")
            desc = pred.owner.op_desc.output_descs[pred.idx]
            if desc.dtype != DataType.DT_BOOL:
                raise GraphError(f"node {switch.name} (Switch): its pred {pred.label} is {desc}; "
                                 f"GE's SwitchToStreamSwitchPass takes a bool only")
            by_pred.setdefault((pred.owner.name, pred.idx), []).append(switch)
        for group in by_pred.values():
            self._replace(graph, group)
        return bool(switches)

    def _replace(self, graph: ComputeGraph, switches: list[Node]) -> None:
        pred = switches[0].in_data_anchors[SWITCH_PRED].peer
        cast = self._add(graph, f"{pred.owner.name}_Cast", "Cast", [pred], 1, {"to": ONNX_INT32})
        cast.op_desc.update_output_desc(0, replace(pred.owner.op_desc.output_descs[pred.idx],
                                                   dtype=DataType.DT_INT32))
        active = self._add(graph, f"{pred.owner.name}_StreamActive", "StreamActive", [], 0,
                           {ATTR_NAME_ACTIVE_LABEL_LIST: [cast.name]})
        GraphUtils.add_edge(cast.out_control_anchor, active.in_control_anchor)
        stream_switch: dict[int, Node] = {}
        for switch in switches:
            data = switch.in_data_anchors[SWITCH_DATA].peer
            for branch in (SWITCH_FALSE_OUTPUT, SWITCH_TRUE_OUTPUT):
                readers = list(switch.out_data_anchors[branch].peers) \
                    if branch < len(switch.out_data_anchors) else []
                if not readers:
                    continue
                if branch not in stream_switch:
                    stream_switch[branch] = self._stream_switch(graph, pred.owner.name, cast,
                                                                active, branch)
                # GE: the data's producer before the switch, so the branch that reads it needs
                # no event of its own (OptimizeByStreamActivate sees the switch start it)
                GraphUtils.add_edge(data.owner.out_control_anchor,
                                    stream_switch[branch].in_control_anchor)
                for reader in readers:
                    switch.out_data_anchors[branch].unlink(reader)
                    data.link_to(reader)
                    GraphUtils.add_edge(stream_switch[branch].out_control_anchor,
                                        reader.owner.in_control_anchor)
            for src, dst in list(switch.in_edges()):
                src.unlink(dst)
            graph.remove_node(switch)

    def _stream_switch(self, graph: ComputeGraph, pred_name: str, cast: Node, active: Node,
                       branch: int) -> Node:
        flag = "t" if branch == SWITCH_TRUE_OUTPUT else "f"
        const = self._add(graph, f"{pred_name}/StreamSwitch_{flag}_Constant_{flag}", "Const",
                          [], 1, {ATTR_NAME_WEIGHTS: GeTensor(np.array(branch, np.int32))})
        const.op_desc.update_output_desc(
            0, const.op_desc.get_attr(ATTR_NAME_WEIGHTS).desc)
        node = self._add(graph, f"{pred_name}/StreamSwitch_{flag}", "StreamSwitch",
                         [cast.out_data_anchor(0), const.out_data_anchor(0)], 0,
                         {ATTR_NAME_STREAM_SWITCH_COND: RT_EQUAL,
                          ATTR_NAME_SWITCH_DATA_TYPE: RT_SWITCH_INT32,
                          ATTR_NAME_SWITCH_TRUE_BRANCH_FLAG: branch == SWITCH_TRUE_OUTPUT,
                          ATTR_NAME_STREAM_LABEL: cast.name})
        GraphUtils.add_edge(active.out_control_anchor, node.in_control_anchor)
        return node

    @staticmethod
    def _add(graph: ComputeGraph, name: str, op_type: str, inputs: list[OutDataAnchor],
             outputs: int, attrs: dict) -> Node:
        node = graph.add_node(OpDesc(graph.unique_name(name), op_type, len(inputs), outputs,
                                     attrs))
        for k, src in enumerate(inputs):
            src.link_to(node.in_data_anchor(k))
            node.op_desc.update_input_desc(k, src.owner.op_desc.output_descs[src.idx])
        return node
