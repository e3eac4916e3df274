"""What the last command changed in the graph, from the IR's trace events: each node's cells
old -> new (op type, stream id, engine, memory offsets), each of its input and output tensor
descs old -> new, the nodes added and removed, the nodes whose anchors were relinked. How a
user watches a pass change the graph. After a command that re-executed the target (goto,
reverse-step) they are the re-run's events, not a change."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ge_core.graph.events import (AnchorLinked, AnchorUnlinked, AttrSet, DescUpdated, NodeAdded,
                                  NodeRemoved, TypeSet)
from npu_emu.base.trace import TraceEvent
from workbench.debugger.stop_table import FieldsStops, Units
from workbench.debugger.views.graph_table import COLUMN_OF_ATTR, attr_cell
from workbench.debugger.views.run_recorder import RunRecorder


@dataclass(frozen=True, slots=True)
class DescChange:
    """One input's or output's tensor desc over the command: the first old, the last new (as
    DescUpdated prints them)."""
    io: str      # "input" or "output"
    index: int
    old: str
    new: str


@dataclass
class StepChanges:
    # node -> column -> (old, new): the first old and the last new of the command
    cells: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    # node -> (io, index) -> its desc's change
    descs: dict[str, dict[tuple[str, int], DescChange]] = field(default_factory=dict)
    # ordered sets of node names, net over the command: a node added and removed again in it
    # (a pass's temporary, a rebuilt graph) is neither; one removed and added again relinked
    added: dict[str, None] = field(default_factory=dict)
    removed: dict[str, None] = field(default_factory=dict)
    relinked: dict[str, None] = field(default_factory=dict)   # ordered set of node names
    # by name, adds less removes over the command (one name, whichever graph holds it: a node
    # Partition moves into a subgraph is removed from the root and added there), and
    # the names whose first such event was a removal (there before the command)
    counts: dict[str, int] = field(default_factory=dict, repr=False)
    were_there: set[str] = field(default_factory=set, repr=False)

    @property
    def structural(self) -> bool:
        """Rows come or go, or move (the topological order follows the edges)."""
        return bool(self.added or self.removed or self.relinked)

    def nodes(self) -> set[str]:
        """The nodes a cell or desc of which the command wrote (changed back or not)."""
        return self.cells.keys() | self.descs.keys()

    def changed(self) -> dict[str, dict[str, tuple[str, str]]]:
        """Only the cells whose value differs at the end of the command."""
        out = {}
        for node, cols in self.cells.items():
            kept = {c: on for c, on in cols.items() if on[0] != on[1]}
            if kept:
                out[node] = kept
        return out

    def changed_descs(self) -> dict[str, list[DescChange]]:
        """Only the descs that differ at the end of the command, each node's inputs then
        outputs, by index."""
        out = {}
        for node, descs in self.descs.items():
            kept = sorted((d for d in descs.values() if d.old != d.new),
                          key=lambda d: (d.io != "input", d.index))
            if kept:
                out[node] = kept
        return out


_EDGE_KINDS = (AnchorLinked.__name__, AnchorUnlinked.__name__)


class ChangeRecorder(RunRecorder):
    KINDS = tuple(k.__name__ for k in (AttrSet, DescUpdated, TypeSet, NodeAdded, NodeRemoved,
                                       AnchorLinked, AnchorUnlinked))

    def __init__(self) -> None:
        super().__init__()
        self.changes = StepChanges()

    def new_command(self) -> None:
        self.changes = StepChanges()

    def check(self, kind: str) -> Callable[[TraceEvent, list], None]:
        # an edge's link and unlink, the commonest by far (Partition and the merge cut and mend
        # every edge across a cut), go straight to their own check
        return self._relinked if kind in _EDGE_KINDS else self._check

    def on_fields(self, kind: str) -> FieldsStops | None:
        # an edge edit, alone in a table with no unit of it, is never built for the gate
        return self._relinking if kind in _EDGE_KINDS else None

    def _relinking(self, units: Units, reasons: list) -> Callable[[int, str, str], bool] | None:
        def stops(tick: int, src: str, dst: str) -> bool:
            self._relinked_ends(src, dst)
            return True if reasons else False
        return None if units else stops

    def _relinked(self, e: AnchorLinked | AnchorUnlinked, reasons: list) -> None:
        self._relinked_ends(e.src, e.dst)

    def _relinked_ends(self, src: str, dst: str) -> None:
        relinked = self.changes.relinked   # "node:idx" or "node:ctrl" on both ends
        relinked[src.rpartition(":")[0]] = None
        relinked[dst.rpartition(":")[0]] = None

    def record(self, e: TraceEvent) -> None:
        ch = self.changes
        if isinstance(e, AttrSet):
            column = COLUMN_OF_ATTR.get(e.key)
            if column is not None:
                self._cell(e.node, column, attr_cell(column, e.old), attr_cell(column, e.new))
        elif isinstance(e, DescUpdated):
            descs = ch.descs.setdefault(e.node, {})
            first = descs.get((e.io, e.index))
            descs[e.io, e.index] = DescChange(e.io, e.index,
                                               first.old if first is not None else e.old, e.new)
        elif isinstance(e, TypeSet):
            self._cell(e.node, "type", e.old, e.new)
        elif isinstance(e, (NodeAdded, NodeRemoved)):
            self._counted(e.node, 1 if isinstance(e, NodeAdded) else -1)

    def _counted(self, node: str, delta: int) -> None:
        """A node of that name added (+1) or removed (-1): more adds than removes over the
        command, it is new; more removes, gone; as many, it was there before and back under
        its name (relinked: it moved), or it was a temporary (neither). Counted, not paired
        event by event: a node the parse made that Partition moved into an engine subgraph and
        a fusion there removed read as one that was there before and was removed."""
        ch = self.changes
        if node not in ch.counts and delta < 0:
            ch.were_there.add(node)
        n = ch.counts[node] = ch.counts.get(node, 0) + delta
        ch.added.pop(node, None)
        ch.removed.pop(node, None)
        if n > 0:
            ch.added[node] = None
        elif n < 0:
            ch.removed[node] = None
        elif node in ch.were_there:
            ch.relinked[node] = None

    def _cell(self, node: str, column: str, old: str, new: str) -> None:
        cols = self.changes.cells.setdefault(node, {})
        first = cols.get(column)
        cols[column] = (first[0] if first is not None else old, new)
