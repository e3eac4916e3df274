"""`info gepass`: the GEPass walk the compiler is in (GE's base_pass.cc), read while parked: how
many node visits so far against the 10 x nodes bound, the queue (an immediate re-pass goes to its
front), the nodes waiting to be re-passed once the queue drains, the suspended and the deleted,
and what the node passes already run on the current node asked for (GEPass takes those requests
after the node's last pass)."""
from __future__ import annotations

from typing import Iterable

from ge_core.graph import Node
from ge_core.passes import not_ge
from ge_core.passes.base_node_pass import BaseNodePass
from ge_core.passes.ge_pass import MAX_PASS_NODES_MULTIPLE, GEPass
from workbench.debugger.outcomes import Outcome, Printed
from workbench.debugger.targets.program import RunState

NOT_IN_GEPASS = ("not inside a GEPass walk (they run in the node pass groups, such as "
                 "InferShapeForPreprocess and OptimizeStage1_2)")


def _names(nodes: Iterable[Node]) -> str:
    return ", ".join(f"%{n.name}" for n in nodes) or "-"


def gepass(state: RunState | None) -> Outcome:
    manager = state.pipeline.manager if state is not None and state.pipeline else None
    graph_pass = manager.current if manager is not None else None
    ge_pass: GEPass | None = getattr(graph_pass, "ge_pass", None)
    if ge_pass is None or ge_pass.state is None:
        return Printed(NOT_IN_GEPASS)
    walk = ge_pass.state
    return Printed("\n".join([
        f"GEPass of {graph_pass.name} on graph {walk.graph.name}",
        f"  node passes: {', '.join(not_ge.shown(p.name) for p in ge_pass.passes)}",
        f"  node visits: {walk.visits} of at most {walk.limit} "
        f"({MAX_PASS_NODES_MULTIPLE} x {walk.limit // MAX_PASS_NODES_MULTIPLE} nodes)",
        f"  queue: {_names(walk.queue)}",
        f"  re-pass when the queue drains: {_names(walk.re_pass)}",
        f"  suspended: {_names(sorted(walk.suspended, key=lambda n: n.name))}",
        f"  deleted: {_names(sorted(walk.deleted, key=lambda n: n.name))}",
        *_requests(walk.ran),
    ]))


def _requests(ran: list[BaseNodePass]) -> list[str]:
    """What the passes already run on this node asked for; GEPass takes it after the last."""
    lines = []
    for p in ran:
        asked = [(what, nodes) for what, nodes in (
            ("immediate re-pass", p.immediate_re_pass), ("re-pass", p.re_pass),
            ("deleted", p.deleted), ("suspend", p.suspended), ("resume", p.resumed)) if nodes]
        if asked:
            lines.append(f"  {p.name} asked: "
                         + "; ".join(f"{what} {_names(nodes)}" for what, nodes in asked))
    return lines
