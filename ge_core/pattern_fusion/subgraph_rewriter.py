"""Replace a match with new nodes in one step (GE's SubgraphRewriter).

A replacement function stages new nodes on a ``Replacement`` and says which tensor replaces each
pattern output; nothing touches the graph until ``rewrite`` commits. ``rewrite`` checks all it
needs first, so a replacement that raises, declines, or stages something inconsistent leaves the
graph exactly as it was. The commit then removes the matched nodes, adds the staged ones, moves
the consumers of each pattern output and the match's outside control edges onto them, and drops
Consts that fed only the match.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence, Union

import numpy as np

from ge_core.graph import (ComputeGraph, GeTensorDesc, GraphError, GraphUtils, Node, OpDesc,
                           OutDataAnchor)
from ge_core.graph.attr_names import ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES
from ge_core.graph.ge_tensor import ABSENT_DESC
from ge_core.passes.pass_utils import make_const
from ge_core.pattern_fusion.pattern_matcher import MatchResult


class RewriteError(GraphError):
    pass


class NewNode:
    """A node staged for a rewrite: its output 0 is what a later input or a pattern output uses."""

    __slots__ = ("op_type", "name", "inputs", "attrs", "data")

    def __init__(self, op_type: str, name: str, inputs: Sequence["Ref | None"],
                 attrs: dict[str, Any], data: np.ndarray | None = None) -> None:
        self.op_type = op_type
        self.name = name
        self.inputs = list(inputs)
        self.attrs = attrs
        self.data = data  # a Const's value

    def __repr__(self) -> str:
        return f"<new {self.op_type} {self.name}>"


Ref = Union[OutDataAnchor, NewNode]


class Replacement:
    def __init__(self, match: MatchResult) -> None:
        self.match = match
        self.nodes: list[NewNode] = []

    def add(self, op_type: str, inputs: Sequence[Ref | None], attrs: dict[str, Any] | None = None,
            name: str | None = None) -> NewNode:
        """Stage a node named ``name``, by default the (first) pattern output's name. A None
        input is absent; trailing absent inputs are dropped."""
        inputs = list(inputs)
        while inputs and inputs[-1] is None:
            inputs.pop()
        return self._stage(NewNode(op_type, name or self.match.output_nodes[0].name, inputs,
                                   dict(attrs or {})))

    def const(self, name: str, data: np.ndarray) -> NewNode:
        """Stage a Const; it gets ``name`` or, if taken, the next free ``name_<n>``."""
        return self._stage(NewNode("Const", name, [], {}, np.asarray(data)))

    def _stage(self, node: NewNode) -> NewNode:
        self.nodes.append(node)
        return node


def rewrite(replacement: Replacement, outputs: Mapping[str, Ref]) -> list[Node]:
    """Commit ``replacement`` in place of its match; ``outputs`` maps each pattern output's name
    to the tensor replacing its output 0. Returns the new nodes."""
    _check(replacement, outputs)
    match = replacement.match
    graph, removed = match.output_nodes[0].graph, match.removed
    gone = set(removed)
    # Per pattern output: its replacement, its desc (the replacement computes the same tensor,
    # so a new node takes it over) and its consumers outside the match.
    moves = [(outputs[p.name], match[p.name].op_desc.output_descs[0],
              [c for c in match[p.name].out_data_anchors[0].peers if c.owner not in gone])
             for p in match.pattern.outputs]
    ctrl_in = _unique(p.owner for n in removed for p in n.in_control_anchor.peers)
    ctrl_out = _unique(p.owner for n in removed for p in n.out_control_anchor.peers)
    weights = _unique(a.owner for a in match.inputs.values()
                      if a is not None and a.owner.type == "Const")
    # The framework ops a fused op came from (dump tools read them), so a user following conv1
    # through the passes finds it inside the fused node.
    origin = [name for n in removed
              for name in n.op_desc.get_attr(ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES, [n.name])]

    for n in removed:
        GraphUtils.remove_node(n)
    # Weights only the match read go before the new nodes are named, so a folded weight can
    # take the name of the one it replaces.
    reads = [*outputs.values(), *(r for new in replacement.nodes for r in new.inputs)]
    kept = {r.owner for r in reads if isinstance(r, OutDataAnchor)}
    for w in weights:
        if w not in kept and w not in gone and not any(True for _ in w.out_edges()) \
                and not w.in_control_anchor.peers:
            GraphUtils.remove_node(w)
    descs = {ref: desc for ref, desc, _ in moves if isinstance(ref, NewNode)}
    made: dict[NewNode, Node] = {}
    for new in replacement.nodes:
        made[new] = _materialise(graph, new, made, descs.get(new), origin)
    for ref, desc, consumers in moves:
        for dst in consumers:
            _anchor(ref, made).link_to(dst)
            dst.owner.op_desc.update_input_desc(dst.idx, desc)
    # The order outside nodes imposed on the match now holds for what replaces it.
    compute = [made[n] for n in replacement.nodes if n.data is None] or \
        _unique(c.owner for _, _, cs in moves for c in cs)
    for pred in (p for p in ctrl_in if p not in gone):
        for node in compute:
            pred.out_control_anchor.link_to(node.in_control_anchor)
    for succ in (s for s in ctrl_out if s not in gone):
        for ref, _, _ in moves:
            _anchor(ref, made).owner.out_control_anchor.link_to(succ.in_control_anchor)
    return list(made.values())


def _check(replacement: Replacement, outputs: Mapping[str, Ref]) -> None:
    """Everything the commit relies on, so that it cannot fail half-way."""
    match = replacement.match
    graph = match.output_nodes[0].graph
    gone = set(match.removed)
    wanted = [p.name for p in match.pattern.outputs]
    if sorted(outputs) != sorted(wanted):
        raise RewriteError(f"pattern {match.pattern.name}: replacement gives outputs "
                           f"{sorted(outputs)}, the pattern has {sorted(wanted)}")
    staged: set[NewNode] = set()
    names: set[str] = set()

    def check_ref(ref: Ref | None, user: str) -> None:
        if isinstance(ref, NewNode):
            if ref not in staged:
                raise RewriteError(f"{user} uses {ref.name}, which is not staged before it")
        elif ref is not None and (ref.owner in gone
                                  or graph.find_node(ref.owner.name) is not ref.owner):
            raise RewriteError(f"{user} uses {ref.label}, which the rewrite removes "
                               f"or which is not in graph {graph.name}")

    for new in replacement.nodes:
        for ref in new.inputs:
            check_ref(ref, f"new node {new.name}")
        if new.data is None:
            holder = graph.find_node(new.name)
            if new.name in names or (holder is not None and holder not in gone):
                raise RewriteError(f"new node name {new.name!r} is already taken")
            names.add(new.name)
        staged.add(new)
    for name, ref in outputs.items():
        check_ref(ref, f"pattern output {name}")


def _materialise(graph: ComputeGraph, new: NewNode, made: dict[NewNode, Node],
                 desc: GeTensorDesc | None, origin: list[str]) -> Node:
    if new.data is not None:
        return make_const(graph, new.name, new.data)
    op = OpDesc(new.name, new.op_type, len(new.inputs), 1, new.attrs)
    op.set_attr(ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES, list(origin))
    if desc is not None:
        op.update_output_desc(0, desc)
    for i, ref in enumerate(new.inputs):
        if ref is None:
            op.update_input_desc(i, ABSENT_DESC)
        else:
            src = _anchor(ref, made)
            op.update_input_desc(i, src.owner.op_desc.output_descs[src.idx])
    node = graph.add_node(op)
    for i, ref in enumerate(new.inputs):
        if ref is not None:
            _anchor(ref, made).link_to(node.in_data_anchors[i])
    return node


def _anchor(ref: Ref, made: dict[NewNode, Node]) -> OutDataAnchor:
    return made[ref].out_data_anchors[0] if isinstance(ref, NewNode) else ref


def _unique(nodes) -> list[Node]:
    """In first-seen order, each once (the order the commit relinks them in)."""
    return list(dict.fromkeys(nodes))
