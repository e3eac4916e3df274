"""LabelMaker: what the If and While makers share (GE's label_maker.cc).

GE keeps a body as a subgraph and puts the label nodes at its ends; the task generator then
emits the body's tasks right after the parent's. Our memory planner plans the root graph only, so
a maker inlines the body instead: its nodes are cloned into the parent graph, each body Data read
as the parent-side tensor it stands for (memory shared, as GE's subgraph Data refs its parent's
input), and the body NetOutput's inputs handed back for the maker to copy into the parent's
outputs. What GE gets from the task order, we get from one control-edge chain through the region
in program order: the label nodes and the body nodes between them, nothing else. Every producer
the region reads from outside runs before its first node, and every other node after its last,
so no unrelated task lands inside a branch (skipped) or a loop (repeated).

Each body starts, as in GE's LabelMaker::AddStreamActive, with a StreamActive after its entry
LabelSet (``_subgraph_first_active``): the body's nodes may sit on streams of their own, which
that node starts when control reaches the body; a body not taken starts none of them. Which
streams a body gets is the stream passes' to say (AssignLabelBodyStreamsPass), from what the
maker leaves on the nodes: LABEL_REGION on its own nodes (labels, copies, counters: the parent's
stream, where the jumps are) and LABEL_BODIES on each inlined body node.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ge_core.compiler.engine_placer import EnginePlacer
from ge_core.compiler.label.region_fence import idle_source
from ge_core.graph import ComputeGraph, Node, OpDesc
from ge_core.graph.anchor import OutDataAnchor
from ge_core.graph.attr_names import (ATTR_NAME_ACTIVE_STREAM_LIST, ATTR_NAME_INDEX,
                                      ATTR_NAME_LABEL_SWITCH_LIST, ATTR_NAME_PARENT_NODE_INDEX,
                                      ATTR_NAME_RTS_LABEL_NODE, ATTR_NAME_SUBGRAPH_FIRST_ACTIVE,
                                      ATTR_NAME_WEIGHTS, ENGINE, LABEL_BODIES, LABEL_ID,
                                      LABEL_REGION, NO_REUSE_MEM_FLAG, REUSE_INPUT_INDEX)
from ge_core.graph.compute_graph import DATA_TYPES, NETOUTPUT
from ge_core.graph.ge_tensor import GeTensor
from ge_core.ops.shape_refiner import infer_shape

if TYPE_CHECKING:
    import numpy as np

    from ge_core.compiler.label.label_allocator import LabelAllocator


class LabelMakerError(Exception):
    """Why a functional node cannot be lowered to labels; the message names the node."""


class LabelMaker:
    def __init__(self, node: Node, allocator: LabelAllocator) -> None:
        self.node = node
        self.graph: ComputeGraph = node.graph
        self.allocator = allocator
        self.region: list[Node] = []    # the lowered nodes in program order
        self.region_id = f"{self.graph.name}/{node.name}"
        self._bodies = 0
        self._placer = EnginePlacer()

    def run(self) -> None:
        """Replace ``self.node`` by its lowered region."""
        outputs = self.make()
        self._fence()
        for anchor, source in zip(self.node.out_data_anchors, outputs):
            for peer in list(anchor.peers):
                anchor.unlink(peer)
                source.link_to(peer)
        for name in list(self.node.op_desc.subgraph_names):
            self.graph.remove_subgraph(name)
        for src, dst in list(self.node.in_edges()):
            src.unlink(dst)
        for src, dst in list(self.node.out_edges()):
            src.unlink(dst)
        self.graph.remove_node(self.node)

    def make(self) -> list[OutDataAnchor]:
        """Build the region (appending to ``self.region``); returns the anchors that take the
        place of the node's outputs."""
        raise NotImplementedError

    def fail(self, reason: str) -> LabelMakerError:
        return LabelMakerError(f"node {self.node.name} ({self.node.type}): {reason}")

    # -- the parent's side -------------------------------------------------------------------
    def parent_input(self, index: int) -> OutDataAnchor | None:
        return self.node.in_data_anchors[index].peer

    def body(self, attr: str) -> ComputeGraph:
        return self.graph.subgraph(self.node.op_desc.get_attr(attr))

    # -- new nodes -----------------------------------------------------------------------------
    def _add(self, op_type: str, inputs: Sequence[OutDataAnchor], outputs: int,
             attrs: dict | None = None, in_region: bool = True, name: str | None = None) -> Node:
        op = OpDesc(self.graph.unique_name(name or f"{self.node.name}_{op_type}"), op_type,
                    len(inputs), outputs, attrs)
        node = self.graph.add_node(op)
        for k, src in enumerate(inputs):
            src.link_to(node.in_data_anchor(k))
            op.update_input_desc(k, src.owner.op_desc.output_descs[src.idx])
        op.set_attr(ENGINE, self._placer.place(node).name)
        if in_region:
            op.set_attr(LABEL_REGION, self.region_id)
            self.region.append(node)
        return node

    def compute(self, op_type: str, inputs: Sequence[OutDataAnchor], **attrs: object
                ) -> OutDataAnchor:
        """A one-output kernel node (the loop's counter and flag), shapes inferred."""
        node = self._add(op_type, inputs, 1, attrs)
        infer_shape(node)
        return node.out_data_anchor(0)

    def const(self, value: np.ndarray) -> OutDataAnchor:
        tensor = GeTensor(value)
        node = self._add("Const", [], 1, {ATTR_NAME_WEIGHTS: tensor}, in_region=False)
        node.op_desc.update_output_desc(0, tensor.desc)
        return node.out_data_anchor(0)

    def copy(self, src: OutDataAnchor, into: OutDataAnchor | None = None) -> OutDataAnchor:
        """A MemcpyAsync of ``src`` into a buffer of its own, or into ``into``'s buffer (its
        output is then ``into``'s buffer, a ref the memory planner follows)."""
        inputs = [src] if into is None else [src, into]
        node = self._add("MemcpyAsync", inputs, 1,
                         None if into is None else {REUSE_INPUT_INDEX: 1})
        node.op_desc.update_output_desc(0, node.op_desc.input_descs[0])
        return node.out_data_anchor(0)

    def label_set(self, label_id: int) -> Node:
        return self._label_node("LabelSet", [], {LABEL_ID: label_id})

    def label_goto(self, label_id: int) -> Node:
        return self._label_node("LabelGotoEx", [], {LABEL_ID: label_id})

    def label_switch(self, index: OutDataAnchor, label_ids: list[int]) -> Node:
        """Jump to ``label_ids[index]``; ``index`` an int32 in device memory."""
        return self._label_node("LabelSwitchByIndex", [index],
                                {ATTR_NAME_LABEL_SWITCH_LIST: label_ids})

    def enter_body(self, label_id: int, active_name: str) -> str:
        """A body's entry: LabelSet, then the StreamActive that starts the body's other streams
        (GE names it ``<node>/<active_name>``); returns the body's id for ``inline``."""
        self.label_set(label_id)
        self._label_node("StreamActive", [], {ATTR_NAME_SUBGRAPH_FIRST_ACTIVE: True,
                                              ATTR_NAME_ACTIVE_STREAM_LIST: []},
                         name=f"{self.node.name}/{active_name}")
        return self.new_body()

    def new_body(self) -> str:
        self._bodies += 1
        return f"{self.region_id}:{self._bodies - 1}"

    def _label_node(self, op_type: str, inputs: list[OutDataAnchor], attrs: dict,
                    name: str | None = None) -> Node:
        return self._add(op_type, inputs, 0, {ATTR_NAME_RTS_LABEL_NODE: True, **attrs},
                         name=name)

    # -- bodies --------------------------------------------------------------------------------
    def inline(self, body: ComputeGraph, formal: Sequence[OutDataAnchor | None], body_id: str
               ) -> list[OutDataAnchor]:
        """Clone ``body`` into the region, each clone marked as lying in ``body_id`` (from
        ``enter_body``). A body Data with ``index`` k reads ``formal[k]``, one with
        ``parent_node_index`` k the parent's input k. Returns what the body's NetOutput reads,
        in order."""
        clones: dict[str, Node] = {}
        sources: dict[str, OutDataAnchor] = {}   # body Data name -> the tensor it stands for
        results: list[OutDataAnchor] = []
        for node in body.topological_sort():
            op = node.op_desc
            if node.type in DATA_TYPES:
                parent_index = op.get_attr(ATTR_NAME_PARENT_NODE_INDEX)
                source = self.parent_input(parent_index) if parent_index is not None \
                    else formal[op.get_attr(ATTR_NAME_INDEX, 0)]
                if source is None:
                    raise self.fail(f"body {body.name} reads {node.name}, which the node "
                                    f"does not provide")
                sources[node.name] = source
                continue
            srcs = [self._clone_source(a.peer, clones, sources) if a.peer is not None else None
                    for a in node.in_data_anchors]
            if node.type == NETOUTPUT:
                results = srcs
                continue
            clone = op.clone()
            clone.name = self.graph.unique_name(f"{self.node.name}/{node.name}")
            clone.set_attr(LABEL_BODIES, [body_id, *(op.get_attr(LABEL_BODIES) or ())])
            new = self.graph.add_node(clone)
            for k, src in enumerate(srcs):
                if src is not None:
                    src.link_to(new.in_data_anchor(k))
            for pred in node.in_control_nodes():
                if pred.name in clones:
                    clones[pred.name].out_control_anchor.link_to(new.in_control_anchor)
            clones[node.name] = new
            if not idle_source(new):
                self.region.append(new)
        return results

    @staticmethod
    def _clone_source(anchor: OutDataAnchor, clones: dict[str, Node],
                      sources: dict[str, OutDataAnchor]) -> OutDataAnchor:
        owner = anchor.owner
        if owner.name in sources:
            return sources[owner.name]
        return clones[owner.name].out_data_anchor(anchor.idx)

    # -- order ---------------------------------------------------------------------------------
    def _fence(self) -> None:
        """Chain the region in program order; outside producers before it, the rest after."""
        for prev, nxt in zip(self.region, self.region[1:]):
            prev.out_control_anchor.link_to(nxt.in_control_anchor)
        self.allocator.fences.fence(self.node, self.region)

    @staticmethod
    def no_reuse(nodes: Sequence[Node]) -> None:
        """A loop runs these again: none of their outputs may share memory (see
        while_label_maker.py)."""
        for node in nodes:
            node.op_desc.set_attr(NO_REUSE_MEM_FLAG, True)
