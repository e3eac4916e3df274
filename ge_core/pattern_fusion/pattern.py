"""The pattern language of GE's hand-written fusions (compiler/graph/fusion's Pattern).

A pattern is a small graph written as nested constructors, read like the computation:

    x, w = In("x"), In("w", const=True)
    conv = Pat("Conv", x, w, name="conv")
    relu = Pat("Relu", conv, name="relu")
    CONV_RELU = Pattern(relu)

``Pat`` matches one graph node: an op type (a set of types, or any), its data inputs index by
index, an optional predicate on the node. ``In`` is a pattern input, "any producer": it binds the
graph's output anchor feeding that input, and may demand a Const producer or allow the input to be
absent. Every item has a name; a match is looked up by those names (named captures).
"""
from __future__ import annotations

from typing import Callable, Iterable

from ge_core.graph import Node

NodePredicate = Callable[[Node], bool]


class In:
    """A pattern input: whatever produces this input of the consumer (a tensor, not a node)."""

    __slots__ = ("name", "const", "optional")

    def __init__(self, name: str, *, const: bool = False, optional: bool = False) -> None:
        self.name = name
        self.const = const        # the producer must be a Const node
        self.optional = optional  # the input may be absent (an omitted optional ONNX input)

    def __repr__(self) -> str:
        return f"In({self.name})"


class Pat:
    """A pattern node; a Pat among its inputs matches the producer of that input's output 0.
    ``commutative``: its first two inputs may bind either way round. ``shared``: the node may
    have consumers outside the match; it then stays in the graph (with the matched nodes it
    needs) instead of being replaced."""

    __slots__ = ("name", "ops", "inputs", "pred", "commutative", "shared")

    def __init__(self, op: str | Iterable[str] | None, *inputs: "Pat | In", name: str,
                 pred: NodePredicate | None = None, commutative: bool = False,
                 shared: bool = False) -> None:
        if commutative and len(inputs) < 2:
            raise ValueError(f"pattern node {name}: commutative needs two inputs")
        self.name = name
        self.ops = None if op is None else frozenset([op] if isinstance(op, str) else op)
        self.inputs = inputs
        self.pred = pred
        self.commutative = commutative
        self.shared = shared

    def accepts(self, node: Node) -> bool:
        """Type, arity (inputs beyond the pattern's must be absent) and predicate."""
        if self.ops is not None and node.type not in self.ops:
            return False
        if any(a.peer is not None for a in node.in_data_anchors[len(self.inputs):]):
            return False
        return self.pred is None or self.pred(node)

    def input_orders(self) -> list[tuple[int, ...]]:
        """The ways the pattern's inputs map onto the node's input indices, tried in order."""
        straight = tuple(range(len(self.inputs)))
        if not self.commutative:
            return [straight]
        return [straight, (1, 0) + straight[2:]]

    def __repr__(self) -> str:
        return f"Pat({self.name})"


class Pattern:
    """The pattern's output nodes, and every item reachable from them, named uniquely."""

    def __init__(self, *outputs: Pat, name: str = "") -> None:
        if not outputs:
            raise ValueError("a pattern needs at least one output node")
        self.outputs = outputs
        self.name = name or "_".join(p.name for p in outputs)
        self.nodes: list[Pat] = []   # inputs before consumers: the order rewrites list them in
        self.inputs: list[In] = []
        self.items: dict[str, Pat | In] = {}
        for p in outputs:
            self._collect(p)

    def _collect(self, item: Pat | In) -> None:
        seen = self.items.get(item.name)
        if seen is item:
            return
        if seen is not None:
            raise ValueError(f"pattern {self.name}: two items named {item.name!r}")
        self.items[item.name] = item
        if isinstance(item, In):
            self.inputs.append(item)
            return
        for i in item.inputs:
            self._collect(i)
        self.nodes.append(item)

    def __repr__(self) -> str:
        return f"<Pattern {self.name}: {', '.join(p.name for p in self.nodes)}>"
