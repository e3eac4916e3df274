"""ParseError: the one exception the parser raises for a bad model (its own module so the model
checker and the graph builder share it)."""
from __future__ import annotations


class ParseError(Exception):
    """Why a model cannot become a graph, in one line naming the file and, where there is one,
    the node and its op type."""

    def __init__(self, source: str, reason: str, node: str | None = None,
                 op_type: str | None = None) -> None:
        self.source = source
        self.reason = " ".join(reason.split())
        self.node = node
        self.op_type = op_type
        where = (f" node {node!r} (op {op_type}):" if node is not None
                 else f" a {op_type} node:" if op_type is not None else "")
        super().__init__(f"{source}:{where} {self.reason}")
