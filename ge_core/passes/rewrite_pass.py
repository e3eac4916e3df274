"""RewritePass: the rule-table node pass most simple rewrites are written as (a table of op types
and rewrite functions, each with its `# before -> after` note, instead of a class per rewrite)."""
from __future__ import annotations

from typing import Callable, ClassVar

from ge_core.graph import Node
from ge_core.passes.base_node_pass import BaseNodePass

Rewrite = Callable[["RewritePass", Node], bool]


class RewritePass(BaseNodePass):
    """A node pass written as a table of (op types, rewrite) rows, tried in order; a rewrite
    returns whether it changed the graph. A node that survives a rewrite is passed again at once,
    so rules chain on it (a collapsed Reshape chain may now be an identity)."""

    rules: ClassVar[tuple[tuple[tuple[str, ...], Rewrite], ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        # its rules' types, unless it says its own or runs its own way
        super().__init_subclass__(**kwargs)
        if "types" not in vars(cls) and cls.run is RewritePass.run:
            cls.types = frozenset(t for op_types, _ in cls.rules for t in op_types)

    def run(self, node: Node) -> None:
        op_type = node.op_desc.type   # read once: every node of a walk meets every rule
        for op_types, rewrite in self.rules:
            if op_type in op_types and rewrite(self, node):
                if node not in self.deleted:
                    self.add_immediate_re_pass_node(node)
                return
